"""The game's exact solver (``pinochle_env.kernel.solver``: alpha-beta, transposition table, move
ordering, equivalent cards pruned) returns plain minimax's values on random end positions of up to
3 tricks, under every variant and the switches that change values; and the README's example of it
runs as it says.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pinochle_env import Rules
from pinochle_env.kernel import solver
from pinochle_env.kernel.state import PlayState
from tests.helpers import ROOT

pytestmark = pytest.mark.usefixtures("search_kernel")

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


@pytest.mark.parametrize("index", range(len(SOLVER_RULES)), ids=[
    f"{r.variant}-{r.head_rule}-{r.counting}-{r.save_meld}" for r in SOLVER_RULES])  # fmt: skip
def test_solver_equals_plain_minimax(index):
    """The value of the position and of every legal card, with and without pruning equivalent
    cards, equal plain minimax's (as does plain alpha-beta's); pruning saves nodes."""
    rules = SOLVER_RULES[index]
    nodes = {True: 0, False: 0}
    for game in solver.end_positions(rules, 60, seed=index):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state)
        expected_cards = solver.minimax_card_values(game)
        assert solver.minimax_value(state, prune=True) == expected  # the deep sweeps' reference
        for equivalent in (True, False):
            solver.clear_table()
            assert solver.solve_value(state, equivalent) == expected
            nodes[equivalent] += solver.take_nodes()
            cards, scores = solver.solve_side_values(state, equivalent)
            assert {c: int(scores[c]) for c in cards} == expected_cards, equivalent
    if rules.counting != "classic":  # classic counting gives every rank its own value: nothing is equivalent
        assert nodes[True] < nodes[False]


@pytest.mark.parametrize("counting", ["counters", "ak10_kq5", "classic"])
def test_equivalent_cards_are_grouped_by_their_definition(counting):
    """The search's equivalent cards (its lookup per suit) against the definition: two legal cards of
    a suit are one group when they have the same points and no rank from one to the other (both
    included) is held by another hand, lies in the trick, or is the seat's own card it may not play;
    each group is searched through its lowest card."""
    from pinochle_env.kernel.compiled import solver as S

    values = PlayState.of(next(solver.end_positions(Rules(counting=counting), 1, seed=0))).values
    rng = np.random.default_rng(17)
    merged = 0
    for _ in range(3000):
        held = rng.integers(0, 1 << 24, size=4) & rng.integers(0, 1 << 24, size=4)
        seat, n = int(rng.integers(4)), int(rng.integers(4))
        trick = np.array([int(c) for c in rng.choice(24, size=4, replace=False)])
        legal = int(held[seat] & rng.choice([(1 << 24) - 1, int(rng.integers(0, 1 << 24))]))
        groups = np.full(24, -1)
        chosen = S.representatives(legal, seat, held, trick, n, 4, values, True, groups)
        stops = int(held[seat]) & ~legal
        for p in range(4):
            stops |= int(held[p]) if p != seat else 0
        for position in range(n):
            stops |= 1 << int(trick[position])
        cards = [c for c in range(24) if legal >> c & 1]
        for c in cards:
            alike = [d for d in cards if d == c or (d // 6 == c // 6 and values[d] == values[c]
                     and not any(stops >> r & 1 for r in range(min(c, d), max(c, d) + 1)))]  # fmt: skip
            assert groups[c] == min(alike)
            assert (chosen >> c & 1) == (groups[c] == c)
            merged += groups[c] != c
        assert S.representatives(legal, seat, held, trick, n, 4, values, True, None) == chosen
        assert S.representatives(legal, seat, held, trick, n, 4, values, False, None) == legal
    assert merged == 0 if counting == "classic" else merged > 100  # classic: every rank its own points


def test_readme_search_example_runs_and_prints_what_it_says():
    """The README's kernel example runs, and its solve() prints the solution its comment shows."""
    import contextlib
    import io

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Search\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    shown = block.split("print(solve(game))  # ", 1)[1].split("\n", 1)[0]
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, "README.md", "exec"), {})
    lines = output.getvalue().splitlines()
    assert lines[0] == shown
    assert lines[-1] == "(20, 4, 24)"


def _compiled_inputs(state: PlayState):
    """The compiled solver's inputs of ``state``: (hands, solver settings, root node, work arrays)."""
    from pinochle_env.kernel.compiled import solver as S

    hands = solver.as_hands(state.hands).copy()
    root = (state.n, state.leader, state.left, solver.trick_flags(state))
    return hands, solver.solver_for(state), root, S.work_arrays(state.left, state.seats)


@pytest.mark.parametrize("index", [0, 4, 5, 7])
def test_last_trick_in_closed_form_equals_plain_minimax(index):
    """The last trick, from any number of cards in it, is valued without search as minimax values it."""
    from pinochle_env.kernel.compiled import solver as S

    rules = SOLVER_RULES[index]
    for game in solver.end_positions(rules, 40, seed=100 + index, most_tricks=1):
        state = PlayState.from_game(game)
        hands, _, root, _ = _compiled_inputs(state)
        value = S.last_trick(hands, state.trick, state.n, state.leader, root[3], state.side, state.rules_vector,
                             state.values, state.mode)  # fmt: skip
        assert value + state.side_points() == solver.minimax_value(state)


@pytest.mark.parametrize("index", [0, 4, 5, 7])
def test_null_window_searches_converge_on_the_full_window_value(index):
    """One alpha-beta search with the full window and MTD(f)'s null-window searches from a poor
    guess give minimax's value; a null-window search says on which side of its threshold the value is."""
    from pinochle_env.kernel.compiled import solver as S

    rules = SOLVER_RULES[index]
    for game in solver.end_positions(rules, 30, seed=200 + index, most_tricks=4):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state) - state.side_points()
        for guess in (-50, 0, expected, 400):
            solver.clear_table()
            hands, settings, root, work = _compiled_inputs(state)
            work.tricks[state.left] = state.trick
            assert S._exact(hands, root, guess, state.rules_vector, state.values, settings, work) == expected
        solver.clear_table()
        full = S._search(hands, root, -S.INFINITY, S.INFINITY, state.rules_vector, state.values, settings, work)
        assert full == expected
        for threshold in (expected - 5, expected, expected + 1, expected + 7):
            solver.clear_table()
            bound = S._search(hands, root, threshold - 1, threshold, state.rules_vector, state.values, settings, work)
            assert (bound >= threshold) == (expected >= threshold)


@pytest.mark.parametrize("index", [0, 2, 5, 7])
def test_ordered_playout_plays_the_hand_out_and_leaves_the_position_as_it_was(index):
    """MTD(f)'s first guess is the value of one legal play of the hand: what minimax gives where
    every card is forced (the last trick), between nothing and every point still to take otherwise;
    the hands and the trick in progress stay as they were."""
    from pinochle_env.kernel.compiled import solver as S
    from pinochle_env.kernel.compiled.tricks import LAST_TRICK_BONUS

    rules = SOLVER_RULES[index]
    for most in (1, 4):
        for game in solver.end_positions(rules, 30, seed=300 + index, most_tricks=most, least_tricks=most):
            state = PlayState.from_game(game)
            hands, settings, root, work = _compiled_inputs(state)
            work.tricks[state.left] = state.trick
            before_hands, before_tricks = hands.copy(), work.tricks.copy()
            value = S.ordered_playout(hands, root, state.rules_vector, state.values, settings, work)
            assert (hands == before_hands).all() and (work.tricks == before_tricks).all()
            future = solver.minimax_value(state) - state.side_points()
            if most == 1:
                assert value == future
            else:
                on_table = sum(int(state.values[c]) for c in state.trick[: state.n])
                to_take = S.points_in_hands(hands, state.seats, state.values) + on_table + LAST_TRICK_BONUS
                assert -1 <= value <= to_take + 1  # +-1: a sweep under save_meld="trick"


def test_clearing_the_table_makes_the_next_solve_cold_again():
    """A solve repeated on a warm table visits fewer nodes; after :func:`clear_table` it visits
    exactly the nodes of the first solve again (no entry stored before matches)."""
    game = next(iter(solver.end_positions(Rules(), 1, seed=77, most_tricks=6, least_tricks=6)))
    state = PlayState.from_game(game)
    solver.clear_table()
    value = solver.solve_value(state)
    cold = solver.take_nodes()
    assert solver.solve_value(state) == value and solver.take_nodes() < cold
    solver.clear_table()
    assert solver.solve_value(state) == value and solver.take_nodes() == cold


def test_a_table_entry_keeps_its_bounds_and_move_at_the_extremes():
    """The packed second word of a table entry gives back any bounds a search stores (values,
    +-INFINITY for a side not yet bounded) and any move code (-1: none, up to the last suit's)."""
    from pinochle_env.kernel.compiled import solver as S

    for low, high in ((-S.INFINITY, S.INFINITY), (-1, 251), (0, 0), (130, S.INFINITY), (-S.INFINITY, -2)):
        for code in (-1, 0, 5, 8 * 3 + 5):
            assert S._unpack(S._pack(low, high, code)) == (low, high, code)


def _close_a_gap(hands: np.ndarray, values: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """``hands`` with every copy of one card type moved to the next lower rank of its suit that no
    hand holds, where both ranks have the same trick points (None where no such move exists)."""
    moves = []
    for c in range(24):
        rank = c % 6
        if hands[:, c].sum() and rank > 0 and not hands[:, c - 1].sum() and values[c - 1] == values[c]:
            moves.append(c)
    if not moves:
        return None
    c = int(rng.choice(moves))
    renamed = hands.copy()
    renamed[:, c - 1], renamed[:, c] = hands[:, c], 0
    return renamed


def _table_key(state: PlayState, hands: np.ndarray, values: np.ndarray, work: object = None) -> int:
    """The compiled table key of ``state``'s trick start with these ``hands`` and card ``values``
    (``work``: the work arrays to use, their cache of suit keys as it is; default: new ones)."""
    from pinochle_env.kernel.compiled import solver as S

    work = work if work is not None else S.work_arrays(state.left, state.seats)
    S.holdings(solver.as_hands(hands), state.seats, values, work)
    flags = solver.trick_flags(state)
    return int(S.position_key(work.holding, work.suit_keys, state.leader, flags, values, solver.solver_for(state).salt))


def test_table_key_from_the_cache_of_suit_keys_is_the_key_worked_out_afresh():
    """Work arrays that keyed many other positions, under other card values too, give each trick
    start the key that new work arrays give it (the cache of suit keys is a memo, never a guess)."""
    from pinochle_env.kernel.compiled import solver as S

    shared = S.work_arrays(12, 4)
    checked = 0
    for rules in (Rules(), Rules(counting="classic"), Rules()):
        for game in solver.end_positions(rules, 150, seed=41, most_tricks=4):
            state = PlayState.from_game(game)
            if state.n or state.seats != 4:
                continue
            assert _table_key(state, state.hands, state.values, shared) == _table_key(state, state.hands, state.values)
            checked += 1
    assert checked >= 100


def test_table_key_sees_through_ranks_and_only_through_ranks():
    """Trick starts that differ only in which ranks are gone share a table key, and have the same
    minimax value; a change of holder or of card points changes the key."""
    rng = np.random.default_rng(7)
    checked = 0
    for index in (0, 4, 5):
        rules = SOLVER_RULES[index]
        for game in solver.end_positions(rules, 200, seed=300 + index, most_tricks=4):
            state = PlayState.from_game(game)
            if state.n:
                continue
            renamed = _close_a_gap(state.hands, state.values, rng)
            if renamed is None:
                continue
            hands = state.hands

            def key(of: np.ndarray, values: np.ndarray, at: PlayState = state) -> int:
                return _table_key(at, of, values)

            assert key(hands, state.values) == key(renamed, state.values)
            other = PlayState.from_game(game)
            other.hands = renamed
            assert solver.minimax_value(other) == solver.minimax_value(state)
            c = int(np.flatnonzero(hands.sum(axis=0))[0])
            holder = int(np.flatnonzero(hands[:, c])[0])
            moved = hands.copy()
            moved[holder, c] -= 1
            moved[(holder + 1) % state.seats, c] += 1
            assert key(moved, state.values) != key(hands, state.values)
            richer = state.values.copy()
            richer[c] += 1
            assert key(hands, richer) != key(hands, state.values)
            checked += 1
    assert checked >= 50


def _blocks(hands: np.ndarray, values: np.ndarray, equal: bool) -> list[tuple[int, int, int]]:
    """(seat, lower, upper): two card types of a suit, next to each other among the ranks still held,
    every copy of both in that seat's hand, with equal trick points (``equal``) or not."""
    found = []
    for suit in range(4):
        held = [c for c in range(6 * suit, 6 * suit + 6) if hands[:, c].sum()]
        for lower, upper in itertools.pairwise(held):
            seats = np.flatnonzero(hands[:, lower] + hands[:, upper])
            if len(seats) == 1 and (values[lower] == values[upper]) == equal:
                found.append((int(seats[0]), lower, upper))
    return found


def _reshaped(hands: np.ndarray, block: tuple[int, int, int]) -> np.ndarray:
    """``hands`` with one card of the block's seat turned into the block's other card type."""
    seat, lower, upper = block
    reshaped = hands.copy()
    source, target = (lower, upper) if hands[seat, upper] < 2 else (upper, lower)
    reshaped[seat, source] -= 1
    reshaped[seat, target] += 1
    return reshaped


def test_table_key_sees_a_seats_run_of_equal_cards_as_one_block():
    """Trick starts that differ only in which cards of a run one seat holds alone (ranks next to each
    other among those still held, with the same points) share a table key and have the same minimax
    value; where the two ranks' points differ, the key differs."""
    rng = np.random.default_rng(11)
    merged = kept_apart = 0
    for index in (0, 2, 3, 5, 7):
        rules = SOLVER_RULES[index]
        for game in solver.end_positions(rules, 150, seed=500 + index, most_tricks=4):
            state = PlayState.from_game(game)
            if state.n:
                continue
            hands = state.hands
            equal, unequal = _blocks(hands, state.values, True), _blocks(hands, state.values, False)
            if equal:
                block = equal[int(rng.integers(len(equal)))]
                reshaped = _reshaped(hands, block)
                assert _table_key(state, reshaped, state.values) == _table_key(state, hands, state.values)
                other = PlayState.from_game(game)
                other.hands = reshaped
                assert solver.minimax_value(other) == solver.minimax_value(state)
                merged += 1
            if unequal:
                reshaped = _reshaped(hands, unequal[0])
                assert _table_key(state, reshaped, state.values) != _table_key(state, hands, state.values)
                kept_apart += 1
    assert merged >= 40 and kept_apart >= 20


def test_node_limit_stops_the_search_and_leaves_the_position_as_it_was():
    """A solve that reaches its node limit raises NodeLimitReached, puts every card back and leaves
    no wrong entry in the table: the same position solved afterwards gets minimax's value."""
    rules = Rules()
    stopped = 0
    for game in solver.end_positions(rules, 20, seed=400, most_tricks=4):
        state = PlayState.from_game(game)
        expected = solver.minimax_value(state)
        hands = state.hands.copy()
        solver.clear_table()
        for limit in (1, 5, 40):
            try:
                assert solver.solve_value(state, node_limit=limit) == expected
            except solver.NodeLimitReached:
                stopped += 1
            try:
                cards, scores = solver.solve_side_values(state, node_limit=limit)
                best = max if state.side[state.to_act] == 1 else min
                assert best(scores[c] for c in cards) == expected
            except solver.NodeLimitReached:
                stopped += 1
            assert (state.hands == hands).all()
        assert solver.solve_value(state) == expected
    assert stopped >= 20
    with pytest.raises(ValueError, match="node_limit"):
        solver.solve_value(state, node_limit=0)


def _sure_points_bound_minimax(rules: Rules, seed: int, bound: str, count: int) -> tuple[int, int]:
    """Hold a trick start's sure points of the side on lead (``bound``: ``"quick"`` tricks, or
    ``"entry"``, through the partner's entry) to minimax on random end positions: they bound the
    value from below where the maximising side leads, from above (the points left less them) where
    the other side does, on ``count`` positions. Returns (positions with sure points, positions
    where the bound is exact)."""
    from pinochle_env.kernel.compiled import solver as S
    from pinochle_env.kernel.compiled.tricks import LAST_TRICK_BONUS, R_TRUMP

    counted, tight = 0, 0
    for game in solver.end_positions(rules, count, seed=seed, most_tricks=4, least_tricks=2):
        state = PlayState.from_game(game)
        if state.n:
            continue
        hands, _, _, work = _compiled_inputs(state)
        S.holdings(hands, state.seats, state.values, work)
        before = hands.copy(), work.codes.copy(), work.held.copy()
        position = (hands, work.codes, work.held, state.leader, state.seats, state.rules_vector[R_TRUMP], state.values)
        if bound == "quick":
            tricks, sure = S.quick_points(*position, state.left, -1)
        else:
            tricks, sure = S.entry_points(*position, state.left)
        assert all((now == then).all() for now, then in zip((hands, work.codes, work.held), before, strict=True))
        if not tricks:
            continue
        future = solver.minimax_value(state, prune=True) - state.side_points()
        if state.side[state.leader] == 1:
            assert future >= sure
            tight += future == sure
        else:
            most = int(work.points[0]) + LAST_TRICK_BONUS - sure
            assert future <= most
            tight += future == most
        counted += 1
    return counted, tight


@pytest.mark.parametrize("index", [0, 1, 3, 4, 5, 7])
def test_quick_tricks_are_points_the_side_on_lead_takes_whatever_is_played(index):
    """The quick tricks' points of the side on lead bound minimax's value (see
    :func:`_sure_points_bound_minimax`), and the bound is met exactly at some positions, so it is
    no looser than it must be."""
    counted, tight = _sure_points_bound_minimax(SOLVER_RULES[index], 500 + index, "quick", 400)
    assert counted >= 40 and tight >= 3


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4])
def test_partner_entry_points_are_points_the_side_on_lead_takes_whatever_is_played(index):
    """The points of leading to the partner's master and cashing its quick tricks bound minimax's
    value alike, in the partnership game's rule sets, and are met exactly at some positions."""
    counted, tight = _sure_points_bound_minimax(SOLVER_RULES[index], 600 + index, "entry", 1500)
    assert counted >= 50 and tight >= 3
