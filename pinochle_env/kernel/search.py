"""Solving and playing out positions with the compiled kernel: the Python side of the calls.

Every call goes through here so that the compiled functions always see the same argument types
(one compiled version each) and share one transposition table per process. The table keys a
position on the cards left in every hand, the leader, (under ``save_meld="trick"``) which sides
have a trick, and a salt of the rule switches, sides, trump and card values, so entries never
mix games or deals and need no clearing between calls.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
from numba.core import event

from ..cards import NUM_TYPES
from ..switches import CHOICES, Rules
from . import compiled as K
from .state import PlayState, card_values, rules_vector

#: log2 of the transposition table's entries (1M entries, 13 MB per process).
TABLE_BITS = 20
#: Play-out policies by name.
POLICIES = {"random": K.POLICY_RANDOM, "heuristic": K.POLICY_HEURISTIC, "simple": K.POLICY_SIMPLE}
COMPILING_MESSAGE = "compiling the search kernel (first run only)"


class _Tables:
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


_TABLES: _Tables | None = None


def tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES


def _salt(state: PlayState, mode: int) -> np.uint64:
    """A 64-bit mix of everything besides the hands and the leader that a stored value depends on."""
    salt = 0x243F6A8885A308D3
    for number in (*state.rules_vector.tolist(), *state.side.tolist(), *state.values.tolist(), mode):
        salt = ((salt ^ (int(number) & 0xFFFFFFFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        salt ^= salt >> 29
    return np.uint64(salt)


def _flags(state: PlayState) -> int:
    """Bit 0: the maximising side has taken a trick; bit 1: the other side has."""
    own = bool(state.tks[state.side == 1].sum())
    other = bool(state.tks[state.side == 0].sum())
    return int(own) | (2 if other else 0)


def policy_id(state: PlayState, policy: str) -> int:
    """The kernel's number of a play-out policy (``ValueError`` for an unknown one, or the
    card-counting heuristic outside the partnership game it counts cards for)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if policy == "heuristic" and state.rules.variant != "partnership":
        raise ValueError(
            f"the heuristic play-out policy plays the partnership game; use 'simple' in {state.rules.variant}"
        )
    return POLICIES[policy]


def _hands(hands: Any) -> np.ndarray:
    return np.ascontiguousarray(hands, dtype=np.int8)


def clear_table() -> None:
    """Forget every stored position (a benchmark's cold start; results never need it)."""
    t = tables()
    t.key[:] = 0
    t.nodes[0] = 0


def take_nodes() -> int:
    """Nodes the solver visited since the last call (and reset the counter)."""
    counter = tables().nodes
    visited = int(counter[0])
    counter[0] = 0
    return visited


def solve_side_values(state: PlayState, equivalent: bool = True) -> tuple[list[int], np.ndarray]:
    """Exact final side score (see :class:`~pinochle_env.kernel.state.Scoring`) after each legal card
    of the seat to act in a perfect-information position: (legal cards, scores per card type)."""
    t = tables()
    out = np.zeros(NUM_TYPES, dtype=np.int64)
    mode = state.mode
    legal = K.solve_values(
        _hands(state.hands), state.trick.copy(), state.n, state.leader, state.left, _flags(state), state.side,
        state.rules_vector, state.values, mode, equivalent, _salt(state, mode), t.zobrist, t.key, t.low, t.high,
        t.move, t.nodes, out,
    )  # fmt: skip
    cards = [c for c in range(NUM_TYPES) if legal >> c & 1]
    base = state.side_points()
    return cards, out + base


def evaluate_cards(
    state: PlayState,
    deals: np.ndarray,
    gifts: np.ndarray,
    cards: Sequence[int],
    policy: str,
    seeds: np.ndarray,
    stop: int,
    solve: bool,
    order: Sequence[int],
    equivalent: bool = True,
) -> np.ndarray:
    """Final side scores per deal and candidate: (N, 24) by card type when ``solve``, else (N, len(cards)).

    See :func:`pinochle_env.kernel.compiled.evaluate_cards`.
    """
    t = tables()
    count = len(deals)
    out = np.zeros((count, NUM_TYPES if solve else len(cards)), dtype=np.int64)
    mode = state.mode
    K.evaluate_cards(
        _hands(deals).reshape(count, state.seats, NUM_TYPES), np.ascontiguousarray(gifts, dtype=np.int64),
        state.trick.copy(), state.n, state.leader, state.left, state.pts, state.tks, state.played, state.played_by,
        state.void, state.shown, state.rules_vector, state.values, np.asarray(order, dtype=np.int64),
        policy_id(state, policy), np.ascontiguousarray(seeds, dtype=np.uint64), stop, solve,
        np.asarray(cards, dtype=np.int64), state.side, mode, equivalent, _salt(state, mode), t.zobrist, t.key,
        t.low, t.high, t.move, t.nodes, out,
    )  # fmt: skip
    return out


def play_out_deals(
    state: PlayState, deals: np.ndarray, gifts: np.ndarray, policy: str, seeds: np.ndarray, order: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's final trick points and tricks (N, S) after playing every deal out with ``policy``."""
    count = len(deals)
    pts = np.zeros((count, state.seats), dtype=np.int64)
    tks = np.zeros((count, state.seats), dtype=np.int64)
    K.play_out_many(
        _hands(deals).reshape(count, state.seats, NUM_TYPES), np.ascontiguousarray(gifts, dtype=np.int64),
        state.trick.copy(), state.n, state.leader, state.left, state.pts, state.tks, state.played, state.played_by,
        state.void, state.shown, state.rules_vector, state.values, np.asarray(order, dtype=np.int64),
        policy_id(state, policy), np.ascontiguousarray(seeds, dtype=np.uint64), pts, tks,
    )  # fmt: skip
    return pts, tks


def policy_card(state: PlayState, policy: str, order: Sequence[int], seed: int = 0) -> int:
    """The card ``policy`` plays for the seat to act (every hand of ``state`` is read, as in a play-out)."""
    card = K.policy_card(
        state.to_act, state.trick.copy(), state.n, state.leader, state.left, _hands(state.hands), state.played,
        state.played_by, state.void, state.shown, state.gifts, state.rules_vector, state.values,
        np.asarray(order, dtype=np.int64), policy_id(state, policy), np.uint64(seed),
    )  # fmt: skip
    return int(card)


def minimax_value(state: PlayState) -> int:
    """Plain minimax: the final side score of a perfect-information position (slow; the tests' reference)."""
    tricks = np.zeros((state.left + 1, 4), dtype=np.int64)
    tricks[state.left] = state.trick
    future = K.minimax(
        _hands(state.hands).copy(), tricks, state.n, state.leader, state.left, _flags(state), state.side,
        state.rules_vector, state.values, state.mode,
    )  # fmt: skip
    return int(future) + state.side_points()


def end_positions(rules: Rules, count: int, seed: int, most_tricks: int = 3) -> Iterator[Any]:
    """``count`` engines at perfect-information positions with 1 to ``most_tricks`` tricks left, and
    a random number of cards in the trick, reached by random legal play (the solver checks' inputs)."""
    from ..variants import new_game

    rng = np.random.default_rng(seed)
    total = {"partnership": 12, "cutthroat": 15, "two_hand": 24}[rules.variant]
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


def solve_value(state: PlayState, equivalent: bool = True) -> int:
    """The final side score of a perfect-information position under best play by both sides."""
    t = tables()
    mode = state.mode
    future = K.solve_node(
        _hands(state.hands).copy(), state.trick.copy(), state.n, state.leader, state.left, _flags(state),
        state.side, state.rules_vector, state.values, mode, equivalent, _salt(state, mode), t.zobrist, t.key,
        t.low, t.high, t.move, t.nodes,
    )  # fmt: skip
    return int(future) + state.side_points()


@dataclass
class SimulatedHands:
    """Simulated whole hands: each seat's meld, trick points and tricks (N, 4), thrown-in flags and trumps (N,)."""

    meld: np.ndarray
    points: np.ndarray
    tricks: np.ndarray
    thrown: np.ndarray
    trumps: np.ndarray


#: Throw-in modes of :func:`simulate_hands`, by name (RULES.md's ``throw_in`` values, and "play").
THROW_MODES = {"play": K.THROW_NEVER, "seed": K.THROW_SEED, "always": K.THROW_ALWAYS, "never": K.THROW_NEVER}


def simulate_hands(
    rules: Rules,
    dealt: np.ndarray,
    declarer: Any,
    contract: Any,
    trumps: Any = -1,
    to_declarer: np.ndarray | None = None,
    back: np.ndarray | None = None,
    throw_in: str | None = None,
    order: Sequence[int] = tuple(range(NUM_TYPES)),
    seeds: np.ndarray | None = None,
) -> SimulatedHands:
    """Partnership hands played from the deal (N, 4, 24 as dealt) with ``declarer`` at ``contract``.

    ``declarer`` and ``contract``: one for every deal, or one per deal (a declarer of -1 skips the
    deal: a redeal); ``trumps``: a suit, one per deal, or -1 for the heuristic's choice;
    ``to_declarer`` / ``back``: the cards passed (N, 24 counts; a row of -1 for the heuristic's
    choice) or None for the heuristic's choice everywhere. ``throw_in``: the rule applied (default
    the game's; ``"play"`` plays every hand). Passing, the throw-in and card play follow the
    heuristic bot (its tie-break ``order``), every seat deciding from its own knowledge.
    """
    count = len(dealt)

    def per_deal(value: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(value, dtype=np.int64), (count,)).copy()

    def passes(given: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if given is None:
            return np.zeros((count, NUM_TYPES), dtype=np.int64), np.zeros(count, dtype=np.int64)
        rows = np.ascontiguousarray(given, dtype=np.int64).reshape(count, NUM_TYPES)
        known = np.asarray((rows >= 0).all(axis=1), dtype=np.int64)
        return rows, known

    given_to, to_known = passes(to_declarer)
    given_back, back_known = passes(back)
    settings = np.zeros(K.SETTINGS_SIZE, dtype=np.int64)
    settings[K.S_PASS_COUNT] = rules.pass_count
    settings[K.S_RUN_EXTRAS] = CHOICES["run_extras"].index(rules.run_extras)
    settings[K.S_THROW_MODE] = THROW_MODES[throw_in or rules.throw_in]
    out = SimulatedHands(
        np.zeros((count, 4), dtype=np.int64), np.zeros((count, 4), dtype=np.int64),
        np.zeros((count, 4), dtype=np.int64), np.zeros(count, dtype=np.bool_), np.zeros(count, dtype=np.int64),
    )  # fmt: skip
    seeds = np.zeros(count, dtype=np.uint64) if seeds is None else np.ascontiguousarray(seeds, dtype=np.uint64)
    K.simulate_hands(
        _hands(dealt).reshape(count, 4, NUM_TYPES), per_deal(declarer), per_deal(contract), per_deal(trumps),
        given_to, to_known, given_back, back_known, rules_vector(rules, 0, 0, simple_last=False), settings,
        card_values(rules), np.asarray(order, dtype=np.int64), K.POLICY_HEURISTIC, seeds, out.meld, out.points,
        out.tricks, out.thrown, out.trumps,
    )  # fmt: skip
    return out


# ------------------------------------------------------------------------------------------------
# Compilation


class _CompileNotice(event.Listener):
    """Prints the compiling message once, at the first compilation of a kernel function."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.said = False

    def on_start(self, ev: event.Event) -> None:
        dispatcher = ev.data["dispatcher"]
        if not self.said and getattr(dispatcher.py_func, "__module__", "") == K.__name__:
            self.said = True
            if self.stream is not None:
                print(COMPILING_MESSAGE, file=self.stream, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


_READY = False


def compile_kernel(stream: TextIO | None = sys.stderr) -> bool:
    """Compile every kernel entry point now, or load it from numba's cache; whether it compiled.

    The first run on a machine (a fresh clone, CI) compiles, printing
    ``compiling the search kernel (first run only)`` on ``stream``; later runs and other processes
    load the cached machine code. A driver that starts worker processes calls this first, so that
    the workers only load. Every kernel call also passes through here, so nothing compiles later.
    """
    global _READY
    if _READY:
        return False
    notice = _CompileNotice(stream)
    with event.install_listener("numba:compile", notice):
        _warm_up()
    _READY = True
    return notice.said


def _warm_up() -> None:
    """Call each entry point on empty inputs of the types every real call uses."""
    t = tables()
    empty_deals = np.zeros((0, 4, NUM_TYPES), dtype=np.int8)
    empty_gifts = np.zeros((0, 4, NUM_TYPES), dtype=np.int64)
    hands = np.zeros((4, NUM_TYPES), dtype=np.int8)
    trick = np.zeros(4, dtype=np.int64)
    per_seat = np.zeros(4, dtype=np.int64)
    per_card = np.zeros(NUM_TYPES, dtype=np.int64)
    per_seat_card = np.zeros((4, NUM_TYPES), dtype=np.int64)
    rules = np.zeros(K.RULES_SIZE, dtype=np.int64)
    rules[K.R_SEATS] = 4
    seeds = np.zeros(0, dtype=np.uint64)
    salt = np.uint64(0)
    K.evaluate_cards(
        empty_deals, empty_gifts, trick, 0, 0, 0, per_seat, per_seat, per_card, per_seat_card, per_seat,
        per_seat_card, rules, per_card, per_card, 0, seeds, 0, False, per_card, per_seat, 0, True, salt, t.zobrist,
        t.key, t.low, t.high, t.move, t.nodes, np.zeros((0, 1), dtype=np.int64),
    )  # fmt: skip
    K.solve_values(
        hands, trick, 0, 0, 0, 0, per_seat, rules, per_card, 0, True, salt, t.zobrist, t.key, t.low, t.high, t.move,
        t.nodes, np.zeros(NUM_TYPES, dtype=np.int64),
    )  # fmt: skip
    K.solve_node(
        hands, trick, 0, 0, 0, 0, per_seat, rules, per_card, 0, True, salt, t.zobrist, t.key, t.low, t.high, t.move,
        t.nodes,
    )  # fmt: skip
    K.play_out_many(
        empty_deals, empty_gifts, trick, 0, 0, 0, per_seat, per_seat, per_card, per_seat_card, per_seat,
        per_seat_card, rules, per_card, per_card, 0, seeds, np.zeros((0, 4), dtype=np.int64),
        np.zeros((0, 4), dtype=np.int64),
    )  # fmt: skip
    K.policy_card(
        0, trick, 0, 0, 0, hands, per_card, per_seat_card, per_seat, per_seat_card, per_seat_card, rules, per_card,
        per_card, K.POLICY_RANDOM, np.uint64(0),
    )  # fmt: skip
    simulate_hands(Rules(), empty_deals, 0, 250)
    no_draws = np.zeros((0, 4, NUM_TYPES), dtype=np.int64)
    K.draw_deals(
        per_seat_card, per_seat, per_seat, per_seat, per_card, per_seat, per_seat_card, per_seat, per_seat_card,
        per_seat, 0, 0, np.uint64(0), no_draws, np.zeros(0, dtype=np.int64),
    )  # fmt: skip
    K.forbidden_by_plays(per_seat_card, per_seat, per_seat, 4, 0, 0, 0, 0, per_seat)
    K.meld_breakers(per_seat_card, per_seat, 0, per_seat, per_seat, 0, 0, per_seat)
    K.play_mismatches(
        empty_deals, empty_gifts, per_seat_card, per_seat, per_seat, 0, per_seat_card, rules, per_card, per_card, 0,
        np.zeros(0, dtype=np.int64),
    )  # fmt: skip
    K.call_mismatches(no_draws, per_seat_card, 0, 0, 1000, True, np.zeros(0, dtype=np.int64))
    K.guess_gifts(empty_deals, per_seat_card, 0, 4, True, np.uint64(0), empty_gifts)
