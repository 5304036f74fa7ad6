"""Solving perfect-information positions with the compiled solver: the Python side of the calls.

Every call goes through here so that the compiled functions always see the same argument types
(one compiled version each) and share one transposition table per process (:func:`solver_for`).
The table keys a position on the cards left in every hand, the leader, (under ``save_meld="trick"``)
which sides have a trick, and a salt of the rule switches, sides, trump and card values, so entries
never mix games or deals and need no clearing between calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..cards import NUM_TYPES
from ..rules.switches import Rules
from .adapter import adapter_for
from .compiled import solver as S
from .state import PlayState

#: log2 of the transposition table's entries (1M entries, 13 MB per process).
TABLE_BITS = 20


class _Table:
    """The process's transposition table, Zobrist keys and node counter (made on first use)."""

    def __init__(self) -> None:
        rng = np.random.default_rng(20261201)
        self.zobrist = rng.integers(0, 2**63, size=(5, NUM_TYPES, 3), dtype=np.int64).astype(np.uint64)
        size = 1 << TABLE_BITS
        self.key = np.zeros(size, dtype=np.uint64)
        self.low = np.zeros(size, dtype=np.int32)
        self.high = np.zeros(size, dtype=np.int32)
        self.move = np.zeros(size, dtype=np.int8)
        self.nodes = np.zeros(1, dtype=np.int64)


_TABLE: _Table | None = None


def table() -> _Table:
    """The process's transposition table (made on first use)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _Table()
    return _TABLE


def _salt(state: PlayState, mode: int) -> np.uint64:
    """A 64-bit mix of everything besides the hands and the leader that a stored value depends on."""
    salt = 0x243F6A8885A308D3
    for number in (*state.rules_vector.tolist(), *state.side.tolist(), *state.values.tolist(), mode):
        salt = ((salt ^ (int(number) & 0xFFFFFFFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        salt ^= salt >> 29
    return np.uint64(salt)


def solver_for(state: PlayState, equivalent: bool = True) -> S.Solver:
    """The compiled solver's settings for ``state``'s hand, on the process's table (``equivalent``:
    search one card of each group of equal cards)."""
    t = table()
    mode = state.mode
    return S.Solver(state.side, mode, equivalent, _salt(state, mode), t.zobrist, t.key, t.low, t.high, t.move, t.nodes)


def trick_flags(state: PlayState) -> int:
    """Bit 0: the maximising side has taken a trick; bit 1: the other side has."""
    own = bool(state.tks[state.side == 1].sum())
    other = bool(state.tks[state.side == 0].sum())
    return int(own) | (2 if other else 0)


def as_hands(hands: Any) -> np.ndarray:
    """Hands as the compiled code takes them: contiguous int8 counts."""
    return np.ascontiguousarray(hands, dtype=np.int8)


def clear_table() -> None:
    """Forget every stored position (a benchmark's cold start; results never need it)."""
    t = table()
    t.key[:] = 0
    t.nodes[0] = 0


def take_nodes() -> int:
    """Nodes the solver visited since the last call (and reset the counter)."""
    counter = table().nodes
    visited = int(counter[0])
    counter[0] = 0
    return visited


def solve_side_values(state: PlayState, equivalent: bool = True) -> tuple[list[int], np.ndarray]:
    """Exact final side score (see :class:`~pinochle_env.kernel.state.Scoring`) after each legal card
    of the seat to act in a perfect-information position: (legal cards, scores per card type)."""
    out = np.zeros(NUM_TYPES, dtype=np.int64)
    legal = S.solve_values(
        as_hands(state.hands), state.trick.copy(), state.n, state.leader, state.left, trick_flags(state),
        state.rules_vector, state.values, solver_for(state, equivalent), out,
    )  # fmt: skip
    cards = [c for c in range(NUM_TYPES) if legal >> c & 1]
    return cards, out + state.side_points()


def solve_value(state: PlayState, equivalent: bool = True) -> int:
    """The final side score of a perfect-information position under best play by both sides."""
    future = S.solve_node(
        as_hands(state.hands).copy(), state.trick.copy(), state.n, state.leader, state.left, trick_flags(state),
        state.rules_vector, state.values, solver_for(state, equivalent),
    )  # fmt: skip
    return int(future) + state.side_points()


def minimax_value(state: PlayState) -> int:
    """Plain minimax: the final side score of a perfect-information position (slow; the tests' reference)."""
    tricks = np.zeros((state.left + 1, 4), dtype=np.int64)
    tricks[state.left] = state.trick
    future = S.minimax(
        as_hands(state.hands).copy(), tricks, state.n, state.leader, state.left, trick_flags(state), state.side,
        state.rules_vector, state.values, state.mode,
    )  # fmt: skip
    return int(future) + state.side_points()


def end_positions(rules: Rules, count: int, seed: int, most_tricks: int = 3) -> Iterator[Any]:
    """``count`` engines at perfect-information positions with 1 to ``most_tricks`` tricks left, and
    a random number of cards in the trick, reached by random legal play (the solver checks' inputs)."""
    from ..games.kit import new_game

    rng = np.random.default_rng(seed)
    total = adapter_for(rules).total_tricks
    found = 0
    while found < count:
        game = new_game(rules, np.random.default_rng(int(rng.integers(2**31))))
        left = int(rng.integers(1, most_tricks + 1))
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
