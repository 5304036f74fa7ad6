"""Compiled trick rules and meld: the game's own arithmetic, shared by the solver, the deal drawing and
the search wing's play-outs (:mod:`agents.search.kernel`).

The compact state of trick play (every array indexed by seat, ``S`` seats):

- ``hands``: int8 (S, 24) card counts; ``trick``: int64 (4,) the cards of the trick in progress,
  ``n`` of them, led by ``leader``; ``left``: tricks still to finish (the one in progress
  included); ``pts``, ``tks``: int64 (S,) trick points and tricks taken so far; ``played``
  (24,), ``played_by`` (S, 24) and ``void`` (S,) what the plays showed: the cards gone, who
  played them, and the suits each seat showed it lacks.
- ``rules``: int64 (RULES_SIZE,) the switches as integers (see the ``R_`` indices), and
  ``values``: int64 (24,) the trick points of each card type under the counting switch.

:mod:`pinochle_env.rules` stays the reference: ``tests/kernel/test_compiled_rules.py`` checks legality, winners,
points and meld against it on random positions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

# ------------------------------------------------------------------------------------------------
# Tables (module constants: numba freezes them into the compiled code)

NUM_TYPES = 24
SUIT = np.array([c // 6 for c in range(NUM_TYPES)], dtype=np.int64)
RANK = np.array([c % 6 for c in range(NUM_TYPES)], dtype=np.int64)
SUIT_BITS = np.array([0b111111 << (6 * s) for s in range(4)], dtype=np.int64)
#: Cards of the same suit ranked above each card.
ABOVE = np.array([sum(1 << (6 * (c // 6) + r) for r in range(c % 6 + 1, 6)) for c in range(NUM_TYPES)], dtype=np.int64)
NINE, JACK, QUEEN, KING, TEN, ACE = range(6)

#: Indices of the integer rule vector.
R_SEATS, R_TRUMP, R_HEAD, R_OVERTRUMP, R_DECLARER, R_SEQUENTIAL, R_SIMPLE_LAST, R_HAND_SIZE = range(8)
RULES_SIZE = 8
#: head_rule values, in the order of :data:`pinochle_env.rules.switches.CHOICES`.
HEAD_WINNER, HEAD_HIGHEST_LED, HEAD_LED_CARD, HEAD_TRUMP_LEAD_ONLY, HEAD_NONE = range(5)
#: run_extras values, in the same order.
RUN_CONSUME, RUN_REUSE, RUN_ROYAL_IN_RUN = range(3)
LAST_TRICK_BONUS = 10
#: Meld points of arounds per rank (single, double), ``AROUND_POINTS`` of pinochle_env/rules/meld.py.
AROUND_RANKS = np.array([ACE, KING, QUEEN, JACK], dtype=np.int64)
AROUND_SINGLE = np.array([100, 80, 60, 40], dtype=np.int64)
AROUND_DOUBLE = np.array([1000, 800, 600, 400], dtype=np.int64)
QUEEN_SPADES, JACK_DIAMONDS = 0 * 6 + QUEEN, 2 * 6 + JACK


class Position(NamedTuple):
    """The public state of trick play that every sampled deal shares: the trick in progress (its first
    ``n`` cards, led by ``leader``), the tricks ``left``, each seat's trick points ``pts`` and tricks
    ``tks``, and what the plays and the meld showed (``played``, ``played_by``, ``void``, ``shown``:
    the meld cards each seat showed)."""

    trick: np.ndarray
    n: int
    leader: int
    left: int
    pts: np.ndarray
    tks: np.ndarray
    played: np.ndarray
    played_by: np.ndarray
    void: np.ndarray
    shown: np.ndarray


# ------------------------------------------------------------------------------------------------
# Random numbers: splitmix64, so that every stream is explicit and reproducible


@njit(cache=True)
def next_random(state):
    """Advance ``state`` (uint64 array of one) and return a uniform float in [0, 1)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def random_below(state, n):
    """A uniform integer in [0, n)."""
    k = int(next_random(state) * n)
    return k if k < n else n - 1


# ------------------------------------------------------------------------------------------------
# Trick rules (the reference: pinochle_env.rules)


@njit(cache=True)
def held_bits(hand):
    """Bit mask of the card types a count vector holds."""
    bits = 0
    for c in range(NUM_TYPES):
        if hand[c] > 0:
            bits |= 1 << c
    return bits


@njit(cache=True)
def beats(challenger, winner, trump):
    """Whether ``challenger``, played after ``winner``, takes the trick from it."""
    if SUIT[challenger] == SUIT[winner]:
        return RANK[challenger] > RANK[winner]
    return SUIT[challenger] == trump


@njit(cache=True)
def winning_position(trick, n, trump):
    """Position of the card winning the first ``n`` cards of ``trick`` (of equal cards the first)."""
    best = 0
    for position in range(1, n):
        if beats(trick[position], trick[best], trump):
            best = position
    return best


@njit(cache=True)
def legal_bits(held, trick, n, trump, head, overtrump):
    """Bit mask of the card types a hand holding ``held`` may play to the first ``n`` cards of ``trick``."""
    if n == 0:
        return held
    winning = trick[winning_position(trick, n, trump)]
    led = SUIT[trick[0]]
    following = held & SUIT_BITS[led]
    if following:
        target = -1
        if head == HEAD_WINNER or (head == HEAD_TRUMP_LEAD_ONLY and led == trump):
            if SUIT[winning] == led:
                target = winning
        elif head == HEAD_LED_CARD:
            target = trick[0]
        elif head == HEAD_HIGHEST_LED:
            for position in range(n):
                c = trick[position]
                if SUIT[c] == led and (target < 0 or RANK[c] > RANK[target]):
                    target = c
        if target < 0:
            return following
        heading = following & ABOVE[target]
        return heading if heading else following
    trumps = held & SUIT_BITS[trump]
    if trumps:
        if overtrump and SUIT[winning] == trump:
            over = trumps & ABOVE[winning]
            return over if over else trumps
        return trumps
    return held


@njit(cache=True)
def trick_value(trick, n, values, last):
    """Trick points of the first ``n`` cards of ``trick``, with the last-trick bonus when ``last``."""
    total = LAST_TRICK_BONUS if last else 0
    for position in range(n):
        total += values[trick[position]]
    return total


@njit(cache=True)
def play_card(c, seat, hands, trick, n, leader, left, pts, tks, played, played_by, void, rules, values):
    """Play ``c`` for ``seat``: update the hands, the trick and the knowledge; returns (n, leader, left)."""
    trump, seats = rules[R_TRUMP], rules[R_SEATS]
    hands[seat, c] -= 1
    played[c] += 1
    played_by[seat, c] += 1
    if n > 0:
        led = SUIT[trick[0]]
        if SUIT[c] != led:
            void[seat] |= 1 << led
            if SUIT[c] != trump:
                void[seat] |= 1 << trump
    trick[n] = c
    n += 1
    if n < seats:
        return n, leader, left
    winner = (leader + winning_position(trick, n, trump)) % seats
    pts[winner] += trick_value(trick, n, values, left == 1)
    tks[winner] += 1
    return 0, winner, left - 1


# ------------------------------------------------------------------------------------------------
# Meld (the reference: pinochle_env.rules.meld)


@njit(cache=True)
def meld(counts, trump, run_extras, shown):
    """Meld points of a count vector with ``trump``; ``shown`` receives the cards shown per type."""
    for c in range(NUM_TYPES):
        shown[c] = 0
    base = 6 * trump
    ace, ten, king, queen, jack = base + ACE, base + TEN, base + KING, base + QUEEN, base + JACK
    kings, queens = counts[king], counts[queen]
    points = 0
    run = min(counts[ace], counts[ten], kings, queens, counts[jack])
    if run > 0:
        points += 1500 if run == 2 else 150
        shown[ace] = shown[ten] = shown[king] = shown[queen] = shown[jack] = run
    reused = run_extras == RUN_REUSE and run == 1
    if run_extras == RUN_ROYAL_IN_RUN:
        royals = min(kings, queens)
    elif reused:
        royals = (kings - 1) + (queens - 1)
    else:
        royals = min(kings, queens) - run
    if royals > 0:
        points += 40 * royals
        shown[king] = kings if reused else min(kings, queens)
        shown[queen] = queens if reused else min(kings, queens)
    for suit in range(4):
        if suit != trump:
            pairs = min(counts[6 * suit + KING], counts[6 * suit + QUEEN])
            if pairs > 0:
                points += 20 * pairs
                shown[6 * suit + KING] = shown[6 * suit + QUEEN] = pairs
    dix = counts[base + NINE]
    if dix > 0:
        points += 10 * dix
        shown[base + NINE] = dix
    for index in range(4):
        rank = AROUND_RANKS[index]
        around = min(counts[rank], counts[6 + rank], counts[12 + rank], counts[18 + rank])
        if around > 0:
            points += AROUND_SINGLE[index] if around == 1 else AROUND_DOUBLE[index]
            for suit in range(4):
                shown[6 * suit + rank] = max(shown[6 * suit + rank], around)
    pinochles = min(counts[QUEEN_SPADES], counts[JACK_DIAMONDS])
    if pinochles > 0:
        points += 300 if pinochles == 2 else 40
        shown[QUEEN_SPADES] = max(shown[QUEEN_SPADES], pinochles)
        shown[JACK_DIAMONDS] = max(shown[JACK_DIAMONDS], pinochles)
    return points
