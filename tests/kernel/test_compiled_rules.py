"""The game's compiled trick rules and meld (``pinochle_env.kernel.compiled.tricks``) against the
reference rules.

``pinochle_env.rules`` is the reference: the kernel's legal cards, trick winners, trick points and
meld must equal it on random positions (100,000 positions per ``head_rule`` x ``must_overtrump``
pair, 10,000 per ``counting``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from pinochle_env import rules as R
from pinochle_env.cards import COUNTING_VALUES, NUM_TYPES, RANK_OF
from pinochle_env.kernel.compiled import tricks as T
from pinochle_env.rules.switches import CHOICES

pytestmark = pytest.mark.usefixtures("search_kernel")

HEAD_RULES = CHOICES["head_rule"]
POSITIONS_PER_PAIR = 100_000
POSITIONS_PER_COUNTING = 10_000


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
