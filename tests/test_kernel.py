"""The compiled search kernel against the reference rules, the heuristic bot and plain minimax.

``pinochle_env.rules`` is the reference: the kernel's legal cards, trick winners, trick points and
meld must equal it on random positions (100,000 positions per ``head_rule`` x ``must_overtrump``
pair, 10,000 per ``counting``); its play-outs must conserve the cards and deal out all 250 points;
its heuristic play-out policy must play as :class:`agents.heuristic.HeuristicAgent` does; and the
solver (alpha-beta, transposition table, move ordering, equivalent cards pruned) must return plain
minimax's values on random end positions of up to 3 tricks, under every variant and the switches
that change values.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from agents.base import decide
from agents.heuristic import HeuristicAgent
from agents.search import kernel as search_kernel
from agents.search.inference import calls_table, mismatches
from agents.search.kernel.compiled import heuristic as H
from agents.search.kernel.compiled import inference as M
from agents.search.kernel.compiled import playouts as P
from agents.search.original.sampling import DealSampler
from pinochle_env import Game, Rules, new_game
from pinochle_env import rules as R
from pinochle_env.cards import COUNTING_VALUES, NUM_TYPES, RANK_OF
from pinochle_env.games.partnership.search import partnership_scores
from pinochle_env.kernel import Deals, deal_constraints, sample_deals, solver
from pinochle_env.kernel.compiled import tricks as T
from pinochle_env.kernel.state import PlayState, card_values
from pinochle_env.rules.switches import CHOICES

HEAD_RULES = CHOICES["head_rule"]
POSITIONS_PER_PAIR = 100_000
POSITIONS_PER_COUNTING = 10_000


@pytest.fixture(scope="module", autouse=True)
def kernel():
    search_kernel.compile_search_kernel()


def random_positions(rng: np.random.Generator, count: int, seats: int = 4):
    """Random positions as arrays: held bits (hands with voids: each suit held with probability 0.7),
    tricks of 0 to ``seats - 1`` random cards, trumps."""
    trumps = rng.integers(0, 4, count)
    sizes = rng.integers(0, seats, count)
    tricks = rng.integers(0, NUM_TYPES, (count, 4))
    suits = rng.integers(1, 64, (count, 4)) * (rng.random((count, 4)) < 0.7)
    held = (suits << np.array([0, 6, 12, 18])).sum(axis=1)
    return held, tricks, sizes, trumps


@njit(cache=False)
def kernel_legal_bits(held, tricks, sizes, trumps, head, overtrump):
    """:func:`pinochle_env.kernel.compiled.tricks.legal_bits` of every position (one call from Python)."""
    out = np.zeros(held.size, dtype=np.int64)
    for i in range(held.size):
        out[i] = T.legal_bits(held[i], tricks[i], sizes[i], trumps[i], head, overtrump)
    return out


@pytest.mark.parametrize(("head_rule", "must_overtrump"), list(itertools.product(HEAD_RULES, (True, False))))
def test_legal_cards_equal_the_rules(head_rule, must_overtrump):
    rng = np.random.default_rng(HEAD_RULES.index(head_rule) * 2 + must_overtrump)
    held, tricks, sizes, trumps = random_positions(rng, POSITIONS_PER_PAIR)
    got = kernel_legal_bits(held, tricks, sizes, trumps, HEAD_RULES.index(head_rule), int(must_overtrump)).tolist()
    differ = narrowed = 0
    for h, trick, n, trump, bits in zip(
        held.tolist(), tricks.tolist(), sizes.tolist(), trumps.tolist(), got, strict=True
    ):
        expected = R.legal_card_bits(h, trick[:n], trump, head_rule, must_overtrump)
        differ += bits != expected
        narrowed += expected != h
    assert not differ, f"{differ} of {POSITIONS_PER_PAIR} positions differ"
    assert narrowed > POSITIONS_PER_PAIR // 4  # the rules restrict the hand in many of them


@pytest.mark.parametrize("counting", CHOICES["counting"])
@pytest.mark.parametrize("seats", [4, 3, 2])
def test_trick_winners_and_points_equal_the_rules(counting, seats):
    rng = np.random.default_rng(CHOICES["counting"].index(counting) + 10 * seats)
    table = COUNTING_VALUES[counting]
    values = np.array([table[RANK_OF[c]] for c in range(NUM_TYPES)], dtype=np.int64)
    buffer = np.zeros(4, dtype=np.int64)
    positions = []
    for _ in range(POSITIONS_PER_COUNTING):
        trick = [int(c) for c in rng.integers(0, NUM_TYPES, size=seats)]
        trump = int(rng.integers(4))
        last = bool(rng.integers(2))
        buffer[:seats] = trick
        positions.append(R.trick_winner(trick, trump))
        assert T.winning_position(buffer, seats, trump) == positions[-1], (trick, trump)
        assert T.trick_value(buffer, seats, values, last) == R.trick_points(trick, table, last), (trick, last)
    assert len(set(positions)) == seats  # every position wins somewhere


def test_meld_equals_the_rules():
    rng = np.random.default_rng(3)
    shown = np.zeros(NUM_TYPES, dtype=np.int64)
    scored = 0
    for _ in range(4000):
        size = int(rng.integers(9, 19))
        counts = np.bincount(rng.choice(np.repeat(np.arange(NUM_TYPES), 2), size, replace=False), minlength=24)
        for trump in range(4):
            for extras in CHOICES["run_extras"]:
                expected = R.meld(counts.tolist(), trump, extras)
                points = T.meld(counts, trump, CHOICES["run_extras"].index(extras), shown)
                assert (points, tuple(shown)) == (expected.points, expected.shown), (counts.tolist(), trump, extras)
                scored += points > 0
    assert scored > 10_000


# --------------------------------------------------------------------------------------------
# Play-outs


def start_of_play(rules: Rules, seed: int) -> Game:
    """A heuristic hand at its first card (a played hand: the seed is moved on past thrown-in ones)."""
    while True:
        game = new_game(rules, np.random.default_rng(seed))
        agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
        while not game.hand_over and game.phase.decision != "play":
            game.apply(decide(agents[game.to_act], game))
        if not game.hand_over:
            return game
        seed += 1000


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


# --------------------------------------------------------------------------------------------
# The solver


SOLVER_RULES = [
    Rules(),
    Rules(head_rule="highest_led", must_overtrump=False, counting="classic"),
    Rules(head_rule="led_card", save_meld="trick", save_meld_applies_to="both"),
    Rules(head_rule="trump_lead_only", counting="ak10_kq5", save_meld="none"),
    Rules(head_rule="none", save_meld="trick"),
    Rules(variant="cutthroat"),
    Rules(variant="cutthroat", head_rule="led_card", counting="ak10_kq5", save_meld="trick"),
    Rules(variant="two_hand"),
    Rules(variant="two_hand", counting="classic"),
]


def final_side_score(game, state: PlayState) -> int:
    """The maximising side's score (points, and the sweep adjustment under ``save_meld="trick"``)
    of a hand just finished."""
    values, total = state.values, len(game.tricks)
    points = tricks = others = 0
    for index, (_, cards, winner) in enumerate(game.tricks):
        if state.side[winner]:
            points += sum(int(values[c]) for c in cards) + (10 if index == total - 1 else 0)
            tricks += 1
        else:
            others += 1
    if state.mode == 1:
        points += (not others) - (not tricks)
    return points


@pytest.mark.parametrize("index", range(len(SOLVER_RULES)), ids=[
    f"{r.variant}-{r.head_rule}-{r.counting}-{r.save_meld}" for r in SOLVER_RULES])  # fmt: skip
def test_solver_equals_plain_minimax(index):
    """The value of the position and of every legal card, with and without pruning equivalent
    cards, equal plain minimax's; pruning saves nodes."""
    rules = SOLVER_RULES[index]
    nodes = {True: 0, False: 0}
    for game in solver.end_positions(rules, 60, seed=index):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state)
        for equivalent in (True, False):
            solver.clear_table()
            assert solver.solve_value(state, equivalent) == expected
            nodes[equivalent] += solver.take_nodes()
            cards, scores = solver.solve_side_values(state, equivalent)
            for c in cards:
                after = game.clone()
                after.apply(after.layout.card0 + c)
                value = final_side_score(after, state) if after.hand_over else solver.minimax_value(
                    PlayState.from_game(after))  # fmt: skip
                assert scores[c] == value, (c, equivalent)
    if rules.counting != "classic":  # classic counting gives every rank its own value: nothing is equivalent
        assert nodes[True] < nodes[False]


# --------------------------------------------------------------------------------------------
# Whole hands from the deal, and deal drawing


def after_auction(rules: Rules, seed: int) -> tuple[Game, list[HeuristicAgent]]:
    """A hand right after its auction, played so far by four heuristic bots with one seed (so
    one tie-break order, as the kernel's simulation uses)."""
    game = Game(rules, np.random.default_rng(seed))
    agents = [HeuristicAgent(seed) for _ in range(4)]
    while game.phase.decision == "auction":
        game.apply(decide(agents[game.to_act], game))
    return game, agents


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


def test_vectorised_partnership_scores_equal_the_rules():
    rng = np.random.default_rng(5)
    for save_meld, applies in itertools.product(CHOICES["save_meld"], CHOICES["save_meld_applies_to"]):
        rules = Rules(save_meld=save_meld, save_meld_applies_to=applies)
        count = 400
        meld = rng.integers(0, 30, (count, 4)) * 10
        points = np.zeros((count, 4), dtype=np.int64)
        tricks = np.zeros((count, 4), dtype=np.int64)
        team_points = rng.choice([0, 0, 10, 120, 240, 250], count)
        points[:, 0], points[:, 1] = team_points, 250 - team_points
        tricks[:, 0] = rng.integers(0, 13, count)
        tricks[:, 1] = 12 - tricks[:, 0]
        thrown = rng.random(count) < 0.2
        declarer = int(rng.integers(4))
        contract = rng.integers(25, 40, count) * 10
        got = partnership_scores(rules, declarer, contract, meld, points, tricks, thrown)
        for i in range(count):
            team = [meld[i, 0] + meld[i, 2], meld[i, 1] + meld[i, 3]]
            expected = R.score_hand(declarer % 2, contract[i], team, points[i, :2], tricks[i, :2], thrown[i],
                                    save_meld, applies)  # fmt: skip
            assert tuple(got[i]) == expected.score, (save_meld, applies, i)


def play_views(rules: Rules, seeds: range):
    """Views of the seat to act at card decisions of heuristic hands (every third one)."""
    for seed in seeds:
        game = start_of_play(rules, seed)
        agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
        count = 0
        while not game.hand_over:
            if count % 3 == 0:
                yield game, game.view(game.to_act)
            count += 1
            game.apply(decide(agents[game.to_act], game))


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(pass_mode="simultaneous", head_rule="highest_led", counting="classic"),
        Rules(pass_count=0, head_rule="led_card", must_overtrump=False),
    ],
    ids=["default", "simultaneous-highest_led", "0-led_card"],
)
def test_drawn_deals_replay_to_the_view(rules):
    """Every drawn deal is a deal the seat's view could come from: replayed through the engine
    (agents.search.original.sampling.DealSampler.build_game, the reference), it reaches the same view, the meld
    included but for the draws made without the meld condition."""
    rng = np.random.default_rng(0)
    deals_seen = moved = fallback = 0
    for game, view in play_views(rules, range(6)):
        deals = sample_deals(view, 12, seed=deals_seen)
        reference = DealSampler(view)
        for d in range(len(deals)):
            hands = [[int(n) for n in hand] for hand in deals.hands[d]]
            replayed = reference.build_game(hands, rng)
            assert replayed is not None, "a drawn deal breaks the play"
            seen = replayed.view(view.seat)
            if deals.modes[d] == 2:
                fallback += 1
                seen.meld = view.meld
            assert seen == view
            moved += hands != [list(hand) for hand in game.hands]
            deals_seen += 1
    assert moved >= deals_seen // 2
    assert fallback <= deals_seen // 50


def test_cutthroat_deals_keep_the_cards_the_plays_and_the_meld():
    for game, view in play_views(Rules(variant="cutthroat"), range(6)):
        deals = sample_deals(view, 10, seed=1)
        played_by = np.zeros((3, NUM_TYPES), dtype=np.int64)
        for leader, cards, _ in [*view.tricks, (view.trick_leader, view.trick, -1)]:
            for position, c in enumerate(cards):
                played_by[(leader + position) % 3, c] += 1
        for d in range(len(deals)):
            hands = deals.hands[d].astype(np.int64)
            assert (hands[view.seat] == view.hand).all()
            assert (hands.sum(axis=1) == np.array([sum(h) for h in game.hands])).all()
            buried = 2 - hands.sum(axis=0) - played_by.sum(axis=0)
            assert (buried >= 0).all() and buried.sum() == 3
            values = card_values(view.rules)
            assert deals.bonus[d] == (buried * values).sum()
            shown = np.zeros(NUM_TYPES, dtype=np.int64)
            for p in range(3):
                at_meld = hands[p] + played_by[p] + (buried if p == view.declarer else 0)
                if p != view.seat and deals.modes[d] < 2:
                    points = T.meld(at_meld, view.trump, 0, shown)
                    assert (points, tuple(shown)) == (view.meld[p].points, view.meld[p].shown)


def test_deals_before_meld_keep_the_seat_hand_and_every_card():
    rules = Rules(pass_mode="sequential")
    game, agents = after_auction(rules, 3)
    game.apply(decide(agents[game.to_act], game))  # trump
    for _ in range(4):  # the partner passes to the declarer
        game.apply(decide(agents[game.to_act], game))
    view = game.view(game.to_act)  # the declarer, holding its partner's four cards
    deals = sample_deals(view, 20, seed=2)
    assert deals.dealt and len(deals) == 20
    dealt = np.array([np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal])
    received = np.bincount(view.cards_received, minlength=NUM_TYPES)
    for d in range(len(deals)):
        hands = deals.hands[d].astype(np.int64)
        assert (hands[view.seat] == dealt[view.seat]).all()
        assert (hands.sum(axis=0) == 2).all() and (hands.sum(axis=1) == 12).all()
        assert (hands[(view.seat + 2) % 4] >= received).all()


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


def test_readme_search_example_runs_and_prints_what_it_says():
    """The README's kernel example runs, and its solve() prints the solution its comment shows."""
    import contextlib
    import io
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Search\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    shown = block.split("print(solve(game))  # ", 1)[1].split("\n", 1)[0]
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, "README.md", "exec"), {})
    lines = output.getvalue().splitlines()
    assert lines[0] == shown
    assert lines[-1] == "(20, 4, 24)"
