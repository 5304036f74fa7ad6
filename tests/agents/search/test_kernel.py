"""The search wing's compiled kernel (``agents.search.kernel``) against the engine and the heuristic bot.

Its play-outs must conserve the cards and deal out all 250 points; its heuristic play-out policy
must play as :class:`agents.heuristic.HeuristicAgent` does; its whole-hand simulation must reach the
engine's result for four heuristic bots; and its reading of the other seats' plays and calls
(``agents.search.inference``) must find the true deal far likelier than drawn ones.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.search import kernel as search_kernel
from agents.search.inference import calls_table, mismatches
from agents.search.kernel.compiled import heuristic as H
from agents.search.kernel.compiled import inference as M
from agents.search.kernel.compiled import playouts as P
from pinochle_env import Game, Rules
from pinochle_env.cards import NUM_TYPES
from pinochle_env.kernel import Deals, deal_constraints
from pinochle_env.kernel.state import PlayState, card_values
from tests.helpers import after_auction, play_views, start_of_play

pytestmark = pytest.mark.usefixtures("search_kernel")

#: Every play-out policy where it applies (the card-counting heuristic is the partnership game's).
PLAY_OUTS = [("partnership", "random"), ("partnership", "heuristic"), ("partnership", "simple"),
             ("cutthroat", "random"), ("cutthroat", "simple")]  # fmt: skip


@pytest.mark.parametrize(("variant", "policy"), PLAY_OUTS)
def test_play_outs_conserve_cards_and_deal_out_every_point(variant, policy):
    rules = Rules(variant=variant, counting="classic")
    for seed in range(20):
        game = start_of_play(rules, seed)
        state = PlayState.from_game(game)
        hands = state.hands.copy()
        before = hands.astype(np.int64).sum(axis=0)
        trick, pts, tks = state.trick.copy(), state.pts.copy(), state.tks.copy()
        played, played_by, void = state.played.copy(), state.played_by.copy(), state.void.copy()
        order = np.arange(NUM_TYPES, dtype=np.int64)
        random_state = np.array([seed], dtype=np.uint64)
        n, _, left = P.play_out(
            search_kernel.POLICIES[policy], hands, trick, state.n, state.leader, state.left, pts, tks, played,
            played_by, void, state.shown, state.gifts, state.rules_vector, state.values, order, random_state, 0,
            np.zeros(H.SCRATCH_SIZE, dtype=np.int64),
        )  # fmt: skip
        assert (n, left) == (0, 0) and not hands.any()
        assert (played == before).all() and (played_by.sum(axis=0) == before).all()
        assert (played_by.sum(axis=1) == game.HAND_SIZE).all()
        buried = sum(int(state.values[c]) for c in getattr(game, "buried", []))
        assert pts.sum() + buried == 250 and tks.sum() == game.NUM_TRICKS


def test_heuristic_play_out_policy_plays_as_the_heuristic_bot():
    """At every card decision with a choice of seeded heuristic hands, the compiled policy picks the
    card the bot picks (the same card counting, lead rules, follow values and tie-breaks)."""
    compared = agree = 0
    for index, rules in enumerate((Rules(), Rules(pass_mode="simultaneous", counting="ak10_kq5"))):
        for seed in range(30):
            game = start_of_play(rules, 100 * index + seed)
            agents = [HeuristicAgent(seed + s) for s in range(4)]
            while not game.hand_over:
                action = decide(agents[game.to_act], game)
                if len(game.legal_actions()) > 1:
                    state = PlayState.from_game(game)
                    order = agents[game.to_act].tie_break_order
                    compared += 1
                    agree += search_kernel.policy_card(state, "heuristic", order) == action - game.layout.card0
                game.apply(action)
    assert compared > 1000
    assert agree / compared >= 0.995, f"{agree} of {compared} agree"


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(pass_mode="simultaneous", counting="classic"),
        Rules(pass_count=3, throw_in="always"),
        Rules(pass_count=0, run_extras="royal_in_run"),
    ],
    ids=["default", "simultaneous-classic", "3-always", "0-royal_in_run"],
)
def test_simulated_hands_equal_the_heuristic_bots_playing_the_engine(rules):
    """From trump to the last card, the kernel's simulation (heuristic trump, passing, throw-in
    and play) reaches the engine's result for four heuristic bots: meld, points, tricks, throw-in."""
    played = 0
    for seed in range(40):
        game, agents = after_auction(rules, seed)
        dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal])[None]
        declarer, contract = game.declarer, game.contract
        while not game.hand_over:
            game.apply(decide(agents[game.to_act], game))
        got = search_kernel.simulate_hands(rules, dealt, declarer, contract, order=agents[0].tie_break_order)
        assert got.trumps[0] == game.trump
        assert got.meld[0].tolist() == [meld.points for meld in game.melds]
        assert bool(got.thrown[0]) == bool(game.thrown_in)
        if not game.thrown_in:
            values = card_values(rules)
            points = [0] * 4
            for index, (_, cards, winner) in enumerate(game.tricks):
                points[winner] += sum(int(values[c]) for c in cards) + (10 if index == 11 else 0)
            assert got.points[0].tolist() == points
            assert got.tricks[0].tolist() == [sum(w == p for _, _, w in game.tricks) for p in range(4)]
            played += 1
    assert played >= 20


def test_the_true_deal_explains_the_other_seats_better_than_drawn_deals():
    """Mismatches with the heuristic (policy-based inference): the deal that was played explains
    the heuristic bots' plays and calls almost always, drawn deals far less often."""
    true_plays, drawn_plays, true_calls, drawn_calls = [], [], [], []
    for game, view in play_views(Rules(), range(8)):
        if len(view.tricks) < 3:
            continue
        order = HeuristicAgent(0).tie_break_order
        constraints = deal_constraints(view)
        truth = Deals(np.array(game.hands, dtype=np.int8)[None], PlayState.from_game(game).gifts[None],
                      np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), False)  # fmt: skip
        true_plays.append(mismatches(constraints, truth, order)[0][0])
        drawn_plays.append(mismatches(constraints, constraints.draw(20, 0), order)[0].mean())
    for seed in range(40):
        game, _ = after_auction(Rules(), seed)
        view = game.view(game.declarer)
        view.phase = type(view.phase).AUCTION  # the declarer's view of the whole auction
        constraints = deal_constraints(view)
        dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal], dtype=np.int8)
        truth = Deals(dealt[None], np.zeros((1, 4, NUM_TYPES), dtype=np.int64), np.zeros(1, dtype=np.int64),
                      np.zeros(1, dtype=np.int64), True)  # fmt: skip
        true_calls.append(mismatches(constraints, truth, HeuristicAgent(0).tie_break_order)[1][0])
        drawn_calls.append(
            mismatches(constraints, constraints.draw(20, 0), HeuristicAgent(0).tie_break_order)[1].mean()
        )
    assert np.mean(true_plays) < 0.25 * np.mean(drawn_plays)
    assert max(true_calls) == 0 and np.mean(drawn_calls) > 0.5


def test_location_evidence_moves_the_drawn_deals_to_where_the_model_puts_the_cards():
    """``location_evidence`` sums each deal's copies with each other seat times that seat's weight;
    a large weight on one card type with the next seat makes the deals kept give it more copies of
    that type than deals drawn without one."""
    from agents.search.inference import location_evidence, weighted_deals

    rng = np.random.default_rng(1)
    hands = rng.integers(0, 3, size=(5, 4, NUM_TYPES))
    locations = rng.normal(size=(3, NUM_TYPES))
    expected = [sum(hands[d, (3 + o) % 4] @ locations[o] for o in range(3)) for d in range(5)]  # seats 3, 0, 1
    assert np.allclose(location_evidence(hands, 2, locations), expected)
    order = HeuristicAgent(0).tie_break_order
    gained = []
    for _, view in play_views(Rules(), range(3)):
        if len(view.tricks) != 1:
            continue
        plain = weighted_deals(view, 12, 1, 1.0, 1.0, np.random.default_rng(0), order)
        nxt = (view.seat + 1) % 4
        hidden = int(np.argmax(plain.hands[:, nxt, :].var(axis=0)))  # a type the next seat may or may not hold
        locations = np.zeros((3, NUM_TYPES))
        locations[0, hidden] = 20.0
        weighted = weighted_deals(view, 12, 3, 1.0, 1.0, np.random.default_rng(0), order, locations)
        gained.append(weighted.hands[:, nxt, hidden].mean() - plain.hands[:, nxt, hidden].mean())
    assert gained and min(gained) > 0.3  # without the weight: -0.17 to +0.17 on these views


def test_the_bidding_reading_explains_every_call_of_heuristic_bots():
    """``call_mismatches`` (the heuristic's auction rule in the kernel) finds no call of four
    heuristic bots it would not have made with the hands they were dealt."""
    calls_seen = 0
    for rules in (Rules(), Rules(bid_raises="any", pass_with_help=False, max_bid=400)):
        for seed in range(60):
            game = Game(rules, np.random.default_rng(seed))
            agents = [HeuristicAgent(seed + s) for s in range(4)]
            while game.phase.decision == "auction":
                game.apply(decide(agents[game.to_act], game))
            dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal])[None]
            misses = np.zeros(1, dtype=np.int64)
            calls = calls_table(game.auction)
            M.call_mismatches(dealt, calls, -1, 0, rules.max_bid, rules.pass_with_help, misses)
            assert misses[0] == 0, seed
            calls_seen += len(calls)
    assert calls_seen > 400


def _card_decision(rules: Rules, seed: int, left: int) -> Game:
    """A heuristic hand at the first card decision with a choice and at most ``left`` tricks to go."""
    game = start_of_play(rules, seed)
    agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
    while game.NUM_TRICKS - len(game.tricks) > left or len(game.legal_actions()) < 2:
        game.apply(decide(agents[game.to_act], game))
    return game


def test_the_node_budget_stops_card_values_between_deals():
    """Under a node budget that lets the first deal finish and not the second, ``evaluate_cards``
    returns the first deal's values exactly as without a budget, and nothing of the deal it stopped in."""
    from agents.search.inference import weighted_deals
    from pinochle_env.kernel import solver

    game = _card_decision(Rules(), 5, 7)
    view = game.view(game.to_act)
    state = PlayState.from_view(view)
    order = list(range(NUM_TYPES))
    deals = weighted_deals(view, 4, 1, 1.0, 1.0, np.random.default_rng(0), order)
    seeds = np.zeros(len(deals), dtype=np.uint64)

    def values(count: int, limit: int | None) -> np.ndarray:
        solver.clear_table()
        solver.take_nodes()
        with solver.node_budget(limit):
            return search_kernel.evaluate_cards(state, deals.hands[:count], deals.gifts[:count], [], "heuristic",
                                                seeds[:count], 0, True, order)  # fmt: skip

    full = values(len(deals), None)
    values(1, None)
    first = solver.take_nodes()
    stopped = values(len(deals), first + 1)
    assert len(full) == 4 and len(stopped) == 1
    assert (stopped == full[:1]).all()
