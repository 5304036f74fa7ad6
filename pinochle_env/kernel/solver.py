"""Solving perfect-information positions with the compiled solver: the Python side of the calls.

Every call goes through here so that the compiled functions always see the same argument types
(one compiled version each) and share one transposition table per process (:func:`solver_for`).
The table keys a position on the cards left in every hand, the leader, (under ``save_meld="trick"``)
which sides have a trick, and a salt of the rule switches, sides, trump and card values, so entries
never mix games or deals and need no clearing between calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..cards import NUM_TYPES
from ..rules.switches import Rules
from .adapter import adapter_for
from .compiled import solver as S
from .state import PlayState, card_values, rules_vector

#: log2 of the transposition table's entries (4M entries of 16 bytes, 64 MB per process: a fifth
#: fewer nodes at the first lead than 1M entries, a tenth with 10 tricks left, level with 9).
TABLE_BITS = 22
#: A node budget no search reaches.
UNLIMITED = S.UNLIMITED


class _Table:
    """The process's transposition table and node budget (made on first use)."""

    def __init__(self) -> None:
        size = 1 << TABLE_BITS
        # Per entry: key, packed bounds and move. Filled rather than np.zeros, whose pages the first
        # solves would map by page faults: tens of ms once here, not inside a timed solve.
        self.entries = np.empty((size, 2), dtype=np.uint64)
        self.entries.fill(0)
        self.budget = np.array([0, UNLIMITED], dtype=np.int64)
        #: Part of every salt (:func:`_salt`): :func:`clear_table` moves it on, so that no later key
        #: matches an entry stored before.
        self.generation = 0


class NodeLimitReached(RuntimeError):
    """A solve visited its ``node_limit`` nodes before it found the value."""


_TABLE: _Table | None = None


def table() -> _Table:
    """The process's transposition table (made on first use)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _Table()
    return _TABLE


def _salt(rules: np.ndarray, side: np.ndarray, values: np.ndarray, mode: int) -> np.uint64:
    """A 64-bit mix of everything besides the hands and the leader that a stored value depends on,
    and of the table's generation."""
    salt = 0x243F6A8885A308D3
    for number in (*rules.tolist(), *side.tolist(), *values.tolist(), mode, table().generation):
        salt = ((salt ^ (int(number) & 0xFFFFFFFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        salt ^= salt >> 29
    return np.uint64(salt)


def solver_for(state: PlayState, equivalent: bool = True) -> S.Solver:
    """The compiled solver's settings for ``state``'s hand, on the process's table (``equivalent``:
    search one card of each group of equal cards)."""
    t = table()
    mode = state.mode
    salt = _salt(state.rules_vector, state.side, state.values, mode)
    return S.Solver(state.side, mode, equivalent, salt, t.entries, t.budget)


def hands_solver(rules: Rules) -> S.Solver:
    """The compiled solver's settings for whole hands of ``rules`` whose side and trump compiled code
    sets per hand (:func:`~pinochle_env.kernel.compiled.solver.solver_for_hand`), on the process's table."""
    t = table()
    mode = adapter_for(rules).mode
    side = np.zeros(rules.num_seats, dtype=np.int64)
    salt = _salt(rules_vector(rules, 0, 0, simple_last=False), side, card_values(rules), mode)
    return S.Solver(side, mode, True, salt, t.entries, t.budget)


def trick_flags(state: PlayState) -> int:
    """Bit 0: the maximising side has taken a trick; bit 1: the other side has."""
    own = bool(state.tks[state.side == 1].sum())
    other = bool(state.tks[state.side == 0].sum())
    return int(own) | (2 if other else 0)


def as_hands(hands: Any) -> np.ndarray:
    """Hands as the compiled code takes them: contiguous int8 counts."""
    return np.ascontiguousarray(hands, dtype=np.int8)


def clear_table() -> None:
    """Forget every stored position (a benchmark's cold start; results never need it): the entries
    stay, but the next generation's keys match none of them, so a clear costs nothing however large
    the table (zeroing 2^22 keys took longer than most solves it preceded)."""
    t = table()
    t.generation += 1
    t.budget[S.B_NODES] = 0


def take_nodes() -> int:
    """Nodes the solver visited since the last call (and reset the counter)."""
    budget = table().budget
    visited = int(budget[S.B_NODES])
    budget[S.B_NODES] = 0
    return visited


def _root(state: PlayState) -> tuple[int, int, int, int]:
    """The solver's root node of ``state``: (cards in the trick, leader, tricks left, flags)."""
    return state.n, state.leader, state.left, trick_flags(state)


@contextmanager
def node_budget(node_limit: int | None) -> Iterator[None]:
    """Let the solves inside visit at most ``node_limit`` nodes in all (None: no limit); a compiled
    search that reaches it stops and says so (:data:`~.compiled.solver.STOPPED`)."""
    budget = table().budget
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"node_limit must be at least 1 (or None for no limit), not {node_limit}")
    budget[S.B_LIMIT] = UNLIMITED if node_limit is None else budget[S.B_NODES] + node_limit
    try:
        yield
    finally:
        budget[S.B_LIMIT] = UNLIMITED


def solve_side_values(
    state: PlayState, equivalent: bool = True, node_limit: int | None = None
) -> tuple[list[int], np.ndarray]:
    """Exact final side score (see :class:`~pinochle_env.kernel.state.Scoring`) after each legal card
    of the seat to act in a perfect-information position: (legal cards, scores per card type).
    :class:`NodeLimitReached` when the search visits more than ``node_limit`` nodes."""
    out = np.zeros(NUM_TYPES, dtype=np.int64)
    with node_budget(node_limit):
        legal = S.solve_values(
            as_hands(state.hands), state.trick.copy(), _root(state), state.rules_vector, state.values,
            solver_for(state, equivalent), S.work_arrays(state.left, state.seats), out,
        )  # fmt: skip
    if legal < 0:
        raise NodeLimitReached(f"the values of every card need more than {node_limit:,} nodes")
    cards = [c for c in range(NUM_TYPES) if legal >> c & 1]
    return cards, out + state.side_points()


def solve_value(state: PlayState, equivalent: bool = True, node_limit: int | None = None) -> int:
    """The final side score of a perfect-information position under best play by both sides
    (:class:`NodeLimitReached` when the search visits more than ``node_limit`` nodes)."""
    with node_budget(node_limit):
        future = S.solve_node(
            as_hands(state.hands).copy(), state.trick.copy(), _root(state), state.rules_vector, state.values,
            solver_for(state, equivalent), S.work_arrays(state.left, state.seats),
        )  # fmt: skip
    if future == S.STOPPED:
        raise NodeLimitReached(f"the position's value needs more than {node_limit:,} nodes")
    return int(future) + state.side_points()


def minimax_value(state: PlayState, prune: bool = False) -> int:
    """The reference value: the final side score of a perfect-information position by plain minimax
    (slow: the tests' reference up to 3 or 4 tricks left), or with ``prune`` by plain alpha-beta (no
    table, no ordering, no merged cards: the exactness sweeps' reference from deeper positions)."""
    tricks = np.zeros((state.left + 1, 4), dtype=np.int64)
    tricks[state.left] = state.trick
    future = S.minimax(
        as_hands(state.hands).copy(), tricks, _root(state), state.side, state.rules_vector, state.values, state.mode,
        -S.INFINITY, S.INFINITY, prune,
    )  # fmt: skip
    return int(future) + state.side_points()


def minimax_card_values(game: Any, prune: bool = False) -> dict[int, int]:
    """The reference values of every legal card (type) of the seat to act in an engine during trick
    play: the final side score after the card (:func:`minimax_value` of the position it leads to, or
    the score of the hand it ends), as :func:`solve_side_values` gives them."""
    state = PlayState.from_game(game)
    values = {}
    legal = set(game.legal_actions())
    for c in range(NUM_TYPES):
        action = game.layout.card0 + c
        if action not in legal:
            continue
        after = game.clone()
        after.apply(action)
        values[c] = _finished_side_score(after, state) if after.hand_over else minimax_value(
            PlayState.from_game(after), prune)  # fmt: skip
    return values


def _finished_side_score(game: Any, state: PlayState) -> int:
    """The maximising side's score (points, and the sweep adjustment of ``state.mode`` 1) in a hand
    just finished."""
    total = len(game.tricks)
    points = tricks = others = 0
    for index, (_, cards, winner) in enumerate(game.tricks):
        if state.side[winner]:
            points += sum(int(state.values[c]) for c in cards) + (S.LAST_TRICK_BONUS if index == total - 1 else 0)
            tricks += 1
        else:
            others += 1
    if state.mode == 1:
        points += (not others) - (not tricks)
    return points


def end_positions(rules: Rules, count: int, seed: int, most_tricks: int = 3, least_tricks: int = 1) -> Iterator[Any]:
    """``count`` engines at perfect-information positions with ``least_tricks`` to ``most_tricks``
    tricks left, and a random number of cards in the trick, reached by random legal play (the
    solver checks' inputs)."""
    from ..games.kit import new_game

    rng = np.random.default_rng(seed)
    total = adapter_for(rules).total_tricks
    found = 0
    while found < count:
        game = new_game(rules, np.random.default_rng(int(rng.integers(2**31))))
        left = int(rng.integers(least_tricks, most_tricks + 1))
        into = int(rng.integers(rules.num_seats))
        while not game.hand_over:
            legal = game.legal_actions()
            if game.phase.decision == "play" and len(game.tricks) == total - left and len(game.trick) == into:
                break
            game.apply(int(rng.choice(legal)))
        if game.hand_over:
            continue
        found += 1
        yield game
