"""The whole-deal analysis (``agents.search.analysis``): exact play from the first lead in the
kernel's simulation equals the solver on the engine's own position after the heuristic's trump,
passes and meld; the table reports what it did not solve; bad input gets a message."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide
from agents.search.analysis import analyse_deals, dealt_counts
from agents.search.kernel import simulate_hands
from pinochle_env import Rules
from pinochle_env.kernel import PlayState, solver
from tests.helpers import after_auction

pytestmark = pytest.mark.usefixtures("search_kernel")

#: Deals whose first lead the solver finishes within LIMIT nodes (found by trying seeds 0-23).
SOLVABLE = {"points": (0, 4, 18, 22), "trick": (0, 4, 18)}
LIMIT = 2_500_000


def first_lead(rules: Rules, seed: int):
    """The hand of ``seed`` at its first lead, four heuristic bots deciding (None: thrown in)."""
    game, agents = after_auction(rules, seed)
    declarer, contract = game.declarer, game.contract
    while not game.hand_over and game.phase.decision != "play":
        game.apply(decide(agents[game.to_act], game))
    return (None if game.hand_over else game), agents[0].tie_break_order, declarer, contract


@pytest.mark.parametrize("save_meld", ["points", "trick"])
def test_exact_simulation_equals_the_solver_at_the_first_lead(save_meld):
    """The kernel's exact hand (the heuristic's passes, then the solver from the first lead) gives
    the declaring team the points, and each team the trick or none, that solving the engine's
    position gives."""
    rules = Rules(save_meld=save_meld)
    for seed in SOLVABLE[save_meld]:
        game, order, declarer, contract = first_lead(rules, seed)
        state = PlayState.from_game(game)
        expected = solver.solve_value(state, node_limit=LIMIT)  # the side's points, +-1 for a sweep (trick)
        dealt = dealt_counts([game])
        got = simulate_hands(rules, dealt, declarer, contract, game.trump, throw_in="play", order=order, solve=LIMIT)
        points, tricks = got.points[0], got.tricks[0]
        side_points = points[declarer]
        assert points[declarer] + points[(declarer + 1) % 4] == 250
        assert side_points == min(max(expected, 0), 250)
        if save_meld == "trick":
            assert (tricks[declarer], tricks[(declarer + 1) % 4]) == (int(expected >= 0), int(expected <= 250))


def test_the_table_reports_meld_points_and_the_contracts_made():
    """Each cell: the declaring team's meld, points and the highest contract it makes (meld kept
    plus points); a solve stopped by the node limit is -1, never a guess."""
    rules = Rules()
    game, order, declarer, _ = first_lead(rules, 18)
    table = analyse_deals(rules, dealt_counts([game]), declarers=[declarer], trumps=[game.trump], node_limit=LIMIT,
                          order=order)  # fmt: skip
    state = PlayState.from_game(game)
    assert table.points[0, 0, 0] == solver.solve_value(state, node_limit=LIMIT)
    team = [declarer, (declarer + 2) % 4]
    assert table.meld[0, 0, 0] == sum(game.melds[p].points for p in team)
    assert table.makes[0, 0, 0] == table.meld[0, 0, 0] + table.points[0, 0, 0]
    assert "not solved" not in table.format(0)
    stopped = analyse_deals(rules, dealt_counts([game]), declarers=[0, 1], trumps=[0, 1, 2, 3], node_limit=50)
    assert stopped.points.shape == (1, 2, 4)
    assert not stopped.solved.any()
    assert (stopped.makes == -1).all()
    assert stopped.format(0).count("not solved") == 8
    with pytest.raises(IndexError, match=r"deal 5 is not in the table: it holds deals 0\.\.0"):
        stopped.format(5)


def test_bad_input_is_refused_with_a_message():
    dealt = dealt_counts([first_lead(Rules(), 0)[0]])
    with pytest.raises(ValueError, match="partnership"):
        analyse_deals(Rules(variant="cutthroat"), dealt)
    with pytest.raises(ValueError, match="card counts"):
        analyse_deals(Rules(), dealt[:, :3])
    with pytest.raises(ValueError, match="trumps"):
        analyse_deals(Rules(), dealt, trumps=[4])
    with pytest.raises(ValueError, match="node_limit"):
        analyse_deals(Rules(), dealt, node_limit=-1)
    assert np.asarray(dealt).sum() == 48
    # Deals no shuffle can give were solved without a word (a hand of 13 beside one of 11 "made" 560).
    uneven = dealt.copy()
    card = int(np.flatnonzero(uneven[0, 1])[0])
    uneven[0, 1, card] -= 1
    uneven[0, 0, card] += 1
    twelve_nines = np.zeros_like(dealt)
    twelve_nines[0, :, :] = dealt[0]
    twelve_nines[0, 0] = 0
    twelve_nines[0, 0, 0] = 12
    message = r"12 cards a hand and each of the 24 cards 2 times a deal; deal \d+ does not"
    for bad in (uneven, twelve_nines, np.vstack([dealt, uneven])):
        with pytest.raises(ValueError, match=message):
            analyse_deals(Rules(), bad)
    with pytest.raises(ValueError, match="whole card counts"):
        analyse_deals(Rules(), dealt.astype(float))
    with pytest.raises(ValueError, match="declarers"):
        analyse_deals(Rules(), dealt, declarers=[1.5])
    with pytest.raises(ValueError, match="order must be a permutation"):
        analyse_deals(Rules(), dealt, order=[0, 1, 2])
