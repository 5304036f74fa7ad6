"""The ``pimc`` search bot: the original bot kept whole, legal and reproducible play in every game and
under every rule switch, no reading of hidden cards, the original bot's deal sampling, its
parameters, and the layers (no numba on ``import pinochle_env``, no torch in the bot)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from agents.base import RandomAgent, decide, legal_mask
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from agents.search.original.bot import playout_view
from agents.search.original.sampling import DealSampler
from agents.search.pimc import BATCH, PLAY_PHASES, PIMCAgent
from agents.search.simulation import race, swapped_sets
from pinochle_env import Game, Rules, new_game
from pinochle_env.games.partnership.game import Phase
from pinochle_env.kernel import COMPILING_MESSAGE
from tests.helpers import BOT_RULES, DATA, ROOT, check_same_decisions, play_hand, recorded_hand, start_of_play

pytestmark = pytest.mark.usefixtures("search_kernel")


def golden_decisions(file: str, spec: str) -> tuple[set[str], set[str]]:
    """Replay every position of a golden file (tests/data/make_pimc_golden.py) and check that ``spec``,
    seeded as recorded, decides as recorded; the decision kinds and the games met."""
    golden = json.loads((DATA / file).read_text(encoding="utf-8"))
    kinds, games = set(), set()
    for entry in golden["positions"]:
        rules = Rules.from_mapping(entry["rules"])
        game = new_game(rules, np.random.default_rng(0), dealer=entry["dealer"], deal=entry["deal"])
        for text in entry["actions"]:
            game.apply(game.layout.from_string(text))
        agent = load_agent(spec, entry["agent_seed"])
        assert game.layout.to_string(decide(agent, game)) == entry["decision"], (rules.variant, entry["actions"])
        kinds.add(entry["phase"])
        games.add(rules.variant)
    return kinds, games


def test_evaluate_heuristic_decides_as_the_original_bot():
    """On 119 seeded positions of every decision kind, ``pimc:evaluate=heuristic`` makes the
    decisions the original ``pimc`` made (recorded at 9cb0729 by tests/data/make_pimc_golden.py)."""
    kinds, _ = golden_decisions("pimc_heuristic_golden.json", "pimc:evaluate=heuristic,samples=16,budget=60")
    assert kinds == {"auction", "trump", "passing", "throw_in", "play"}


def test_search_decides_as_before_the_kernel_moved():
    """On 391 seeded positions of every game and decision kind, ``pimc`` at its defaults (with a budget
    that cannot bind) makes the decisions it made at 8673063, before the search and the kernel moved
    between packages (recorded by tests/data/make_pimc_golden.py; another seed changes 71 of them)."""
    kinds, games = golden_decisions("pimc_search_golden.json", "pimc:budget=1000")
    assert kinds == {"auction", "trump", "passing", "throw_in", "play", "meld"}
    assert games == {"partnership", "cutthroat", "two_hand"}


def test_evaluate_heuristic_keeps_its_defaults_and_refusals():
    original = load_agent("pimc:evaluate=heuristic")
    assert (original.samples, original.budget) == (16, 1.0)
    with pytest.raises(ValueError, match="partnership game only"):
        original.check_rules(Rules(variant="cutthroat"))


@pytest.mark.parametrize(
    ("text", "parameter"),
    [
        ("evaluate=magic", "evaluate"),
        ("samples=0", "samples"),
        ("budget=0", "budget"),
        ("nodes=0", "nodes"),
        ("solve=30", "solve"),
        ("leaf=-1", "leaf"),
        ("simulations=0", "simulations"),
        ("pass_simulations=0", "pass_simulations"),
        ("infer=0", "infer"),
        ("infer_play=1.5", "infer_play"),
        ("pool=0", "pool"),
        ("budget=3601", "budget"),  # huge counts and budgets hung a web table or exhausted the memory
        ("samples=1000000,pool=2", "samples"),
        ("simulations=400000", "simulations"),
        ("pass_simulations=400000", "pass_simulations"),
        ("pass_swaps=0", "pass_swaps"),
        ("pass_swaps=5", "pass_swaps"),
    ],
)
def test_bad_parameters_are_refused_by_name(text, parameter):
    with pytest.raises(ValueError, match=rf"pimc parameters? {parameter}"):
        load_agent(f"pimc:{text}")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(head_rule="led_card", save_meld="trick", counting="classic"),
        Rules(variant="cutthroat"),
        Rules(variant="two_hand"),
    ],
    ids=["partnership", "partnership-led_card-trick-classic", "cutthroat", "two_hand"],
)
def test_search_plays_legal_actions_in_every_game(rules):
    for seed in range(2):
        game = new_game(rules, np.random.default_rng(seed))
        seats = rules.num_seats
        agents = [PIMCAgent(seed + s, samples=4, budget=60) if s % 2 == 0 else HeuristicAgent(s) for s in range(seats)]
        play_hand(game, agents)  # ``decide`` refuses an illegal action
        assert game.hand_over


def test_the_search_gives_the_values_it_chose_its_card_by():
    """act_with_values plays what act plays (same seed, same hand) and values every legal card where
    it searched the card play, nothing elsewhere; a mix spec passes on its part's values."""
    game = Game(Rules(), np.random.default_rng(4))
    plain, valued = PIMCAgent(2, samples=3, budget=60), PIMCAgent(2, samples=3, budget=60)
    mixed = load_agent("mix:auction=heuristic,default=pimc:samples=3", 2)
    searched = 0
    while not game.hand_over:
        view, mask = game.view(game.to_act), legal_mask(game)
        action, values = valued.act_with_values(view, mask)
        assert action == plain.act(view, mask)
        legal = np.flatnonzero(mask).tolist()
        if view.phase.name in PLAY_PHASES and len(legal) > 1:
            searched += 1
            assert sorted(values) == legal and values[action] == max(values.values())
        else:
            assert values is None
        if view.phase.decision == "auction":
            assert mixed.act_with_values(view, mask)[1] is None  # the heuristic's part values nothing
        game.apply(action)
    assert searched > 10
    assert valued.search_counts() == (searched, 0, 0)  # a minute and 5 M nodes a decision: none cut short


def test_a_decision_whose_first_deal_overruns_the_node_budget_plays_the_heuristics_card():
    """``nodes`` is checked inside the solver: with a budget of one node every deal stops at its
    first solve, so the decision is cut short and falls back to the heuristic's card, unvalued."""
    for seed in range(3):
        game = start_of_play(Rules(), seed)
        view, mask = game.view(game.to_act), legal_mask(game)
        if mask.sum() < 2:
            continue
        agent = PIMCAgent(seed, samples=4, budget=1000, nodes=1)
        action, values = agent.act_with_values(view, mask)
        assert values is None and agent.search_counts() == (1, 1, 0)  # searched, cut short, not on time
        assert action == HeuristicAgent(seed).act(view, mask)


def test_a_decision_past_its_time_budget_stops_after_its_first_batch_of_deals():
    """The time budget is checked between batches of deals: past it, the search keeps the first batch's
    values and counts the decision cut short on time."""
    game = start_of_play(Rules(), 0)
    view, mask = game.view(game.to_act), legal_mask(game)
    agent = PIMCAgent(0, samples=2 * BATCH, budget=1e-9)
    assert agent.act_with_values(view, mask)[1] is not None
    assert agent.search_counts() == (1, 1, 1)


def test_search_is_reproducible_for_a_seed():
    decisions = []
    for _ in range(2):
        game = Game(Rules(), np.random.default_rng(7))
        agents = [PIMCAgent(3 + s, samples=6, budget=60) for s in range(4)]
        actions = []
        while not game.hand_over:
            actions.append(decide(agents[game.to_act], game))
            game.apply(actions[-1])
        decisions.append(actions)
    assert decisions[0] == decisions[1]


def test_import_pinochle_env_does_not_import_numba_and_pimc_does_not_import_torch():
    code = (
        "import sys, numpy as np\n"
        "import pinochle_env\n"
        "assert 'numba' not in sys.modules, 'import pinochle_env imported numba'\n"
        "from agents.registry import load_agent\n"
        "from agents.base import decide\n"
        "agent = load_agent('pimc:samples=2')\n"
        "game = pinochle_env.Game(pinochle_env.Rules(), np.random.default_rng(0))\n"
        "while game.phase.decision != 'play' and not game.hand_over:\n"
        "    game.apply(decide(agent, game))\n"
        "for _ in range(8):\n"
        "    game.apply(decide(agent, game))\n"
        "assert 'numba' in sys.modules\n"
        "assert 'torch' not in sys.modules, 'the search bot imported torch'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_the_arena_compiles_the_kernel_once_before_its_workers_start(tmp_path):
    """From a cold numba cache (a fresh clone, CI), ``pinochle-arena pimc heuristic`` with two
    workers compiles the kernel once, in its own process, saying so once; the workers load it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    command = [sys.executable, "-m", "agents.arena", "pimc:samples=2", "heuristic", "--deals", "4", "--workers", "2",
               "--out", str(tmp_path / "arena")]  # fmt: skip
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(COMPILING_MESSAGE) == 1, result.stderr
    summary = json.loads((tmp_path / "arena" / "summary.json").read_text(encoding="utf-8"))
    assert summary["pairings"][0]["deal_pairs"] == 4


@pytest.mark.parametrize(
    ("total", "true", "best", "deals_seen"),
    [
        (64, [3.0, -1.0, 7.0, 2.0, 6.5, 0.0, 1.0, 5.0], 2, [16] * 6 + [64] * 2),
        (256, list(np.linspace(3.0, 0.0, 16)), 0, [16] * 12 + [64] * 2 + [256] * 2),
    ],
    ids=["two-stages", "three-stages"],
)
def test_simulated_candidates_race_to_the_best(total, true, best, deals_seen):
    """Successive halving (the simulated decisions' race): every candidate meets the first stage of
    the deals (a quarter; from 256 deals a sixteenth), the best quarter of them (at least two) each
    next stage, the leaders all of them; the best candidate ends with the best mean, each leader's
    mean over all the deals."""
    noise = np.random.default_rng(0).normal(0, 1, (len(true), total))
    seen: dict[int, int] = {}

    def margins(candidate: int, deals: slice) -> np.ndarray:
        seen[candidate] = seen.get(candidate, 0) + deals.stop - deals.start
        return true[candidate] + noise[candidate, deals]

    means = race(total, len(true), margins)
    assert int(np.argmax(means)) == best
    assert sorted(seen.values()) == deals_seen
    leaders = np.flatnonzero(np.isfinite(means))
    assert means[leaders] == pytest.approx([true[i] + noise[i].mean() for i in leaders])


@pytest.mark.parametrize("swaps", [1, 2, 3, 4])
def test_swapped_sets_are_every_set_of_the_hand_that_keeps_all_but_swaps_of_the_base(swaps):
    """The candidate passes: the heuristic's set first, then each set of the hand's cards (a
    multiset: duplicate cards) of its size that differs from it in at most ``swaps`` cards, once."""
    hand = [0] * 24
    for card in [0, 0, 1, 3, 3, 5, 8, 9, 9, 12, 14, 17, 20, 21, 23, 23]:
        hand[card] += 1
    base = [3, 9, 0, 21]
    held = [card for card in range(24) for _ in range(hand[card])]
    every = {tuple(sorted(cards)) for cards in itertools.combinations(held, len(base))}
    expected = {cards for cards in every if sum((Counter(base) - Counter(cards)).values()) <= swaps}
    found = swapped_sets(hand, base, swaps)
    assert found[0] == base
    assert len(found) == len({tuple(sorted(cards)) for cards in found}) == len(expected)
    assert {tuple(sorted(cards)) for cards in found} == expected
    assert (len(expected) == len(every)) == (swaps == len(base))


def test_pass_swaps_widens_the_candidates_that_race_for_the_passes(monkeypatch):
    """The same hand's first passing decision races more candidate sets with ``pass_swaps=2``."""
    from agents.search import simulation

    raced: list[tuple[int, int]] = []
    original = simulation.race

    def recording(total, count, margins):
        raced.append((total, count))
        return original(total, count, margins)

    monkeypatch.setattr(simulation, "race", recording)
    first = {}
    for swaps in (1, 2):
        raced.clear()
        spec = f"pimc:samples=2,simulations=8,pass_simulations=12,pass_swaps={swaps}"
        play_hand(new_game(Rules(), np.random.default_rng(3)), [load_agent(spec, seat) for seat in range(4)])
        first[swaps] = next(count for total, count in raced if total == 12)  # only the passes draw 12 deals
    assert first[2] > 2 * first[1] > 2


def test_passing_decisions_draw_pass_simulations_deals_and_the_others_simulations(monkeypatch):
    """``pass_simulations`` sets the deals of the passes alone; left out, they take ``simulations``."""
    from agents.search import simulation

    drawn: list[tuple[str, int]] = []
    draw = simulation.weighted_deals

    def recording(view, count, *args):
        drawn.append((view.phase.decision, count))
        return draw(view, count, *args)

    monkeypatch.setattr(simulation, "weighted_deals", recording)
    for spec, passing in (
        ("pimc:samples=2,simulations=8,pass_simulations=12", 12),
        ("pimc:samples=2,simulations=8", 8),
    ):
        drawn.clear()
        game = new_game(Rules(), np.random.default_rng(3))
        play_hand(game, [load_agent(spec, seat) for seat in range(4)])
        assert {count for decision, count in drawn if decision == "passing"} == {passing}, spec
        assert {count for decision, count in drawn if decision != "passing"} == {8}, spec
        assert {decision for decision, _ in drawn} >= {"auction", "trump", "passing"}, spec


# --------------------------------------------------------------------------------------------
# Under the bots' rule sets (helpers.BOT_RULES): legal play, no reading of hidden cards, the
# original bot's deal sampling, reproducible decisions

FAST_PIMC = {"samples": 2, "budget": 60.0}  # a budget never reached: decisions depend on the seed only


@pytest.mark.parametrize("rules", BOT_RULES.values(), ids=BOT_RULES.keys())
def test_pimc_plays_only_legal_actions(rules):
    for seed in range(2):
        agents = [PIMCAgent(seed, **FAST_PIMC), RandomAgent(seed), PIMCAgent(seed + 1, **FAST_PIMC), HeuristicAgent()]
        play_hand(Game(rules, np.random.default_rng(seed)), agents)


def test_pimc_never_reads_hidden_cards():
    def make(seed):
        return PIMCAgent(seed, **FAST_PIMC)

    assert check_same_decisions(make, Rules(), range(3), points=3, phases={Phase.PLAY}) >= 5


@pytest.mark.parametrize("rules", [Rules(), BOT_RULES["classic-simultaneous-3"], BOT_RULES["trump_lead_only-0-never"]])
def test_sampled_deals_agree_with_everything_the_seat_knows(rules):
    """A sampled deal replays to the seat's exact view (the meld too, but for rare fallback draws)."""
    rng = np.random.default_rng(0)
    positions = moved = meld_differs = 0
    for seed in range(4):
        game = Game(rules, np.random.default_rng(seed))
        agents = [HeuristicAgent(seed + s) for s in range(4)]
        while not game.hand_over:
            if game.phase == Phase.PLAY:
                view = game.view(game.to_act)
                assert playout_view(game) == view
                sampled = DealSampler(view).sample(rng)
                assert sampled is not None
                sampled_view = sampled.view(game.to_act)
                meld_differs += sampled_view.meld != view.meld
                sampled_view.meld = view.meld
                assert sampled_view == view
                moved += sampled.hands != game.hands
                positions += 1
            game.apply(decide(agents[game.to_act], game))
    assert moved >= positions // 2
    assert meld_differs <= positions // 50


def test_pimc_decisions_are_reproducible_for_a_seed():
    game, actions, _ = recorded_hand(Rules(), 5)
    at = Game(Rules(), np.random.default_rng(0), dealer=game.dealer, deal=game.deal)
    for action in actions:
        if len(at.tricks) == 2:  # the lead to the third trick
            break
        at.apply(action)
    assert at.phase == Phase.PLAY
    first, second = PIMCAgent(3, samples=4, budget=60.0), PIMCAgent(3, samples=4, budget=60.0)
    view, mask = at.view(at.to_act), legal_mask(at)
    assert first.act(view, mask) == second.act(view, mask)
    assert mask[first.act(view, mask)]
