"""What a hand is worth to the heuristic bot: meld, suit lengths and a trick-point estimate."""

from __future__ import annotations

from pinochle_env import rules as R
from pinochle_env.cards import ACE, NUM_SUITS, TEN, card

#: Trick points the declaring team takes, from the declarer's hand as dealt: a constant (the
#: partner's share included), plus per trump, per high trump (A, 10) and per off-suit ace. A
#: least-squares fit over 3000 hands of heuristic self-play (residual spread about 35 points).
TRICK_BASE, TRICK_PER_TRUMP, TRICK_PER_HIGH_TRUMP, TRICK_PER_SIDE_ACE = 68.0, 16.0, 9.0, 13.0


def suit_length(hand: list[int], suit: int) -> int:
    """Number of cards of ``suit`` in a count vector."""
    return sum(hand[6 * suit : 6 * suit + 6])


def meld_points(hand: list[int], trump: int, run_extras: str) -> int:
    """Meld points of a count vector with ``trump``."""
    return R.meld(hand, trump, run_extras).points


def meld_loss(hand: list[int], card: int, trump: int, run_extras: str) -> int:
    """Meld points lost by giving away one copy of ``card`` from ``hand``."""
    before = meld_points(hand, trump, run_extras)
    hand[card] -= 1
    after = meld_points(hand, trump, run_extras)
    hand[card] += 1
    return before - after


def trick_estimate(hand: list[int], trump: int) -> float:
    """Trick points the declaring team can expect when this hand is the declarer's (partner included).

    A linear rule of thumb: trump length and high trumps give control, off-suit aces win tricks.
    """
    trumps = suit_length(hand, trump)
    high_trumps = hand[card(ACE, trump)] + hand[card(TEN, trump)]
    side_aces = sum(hand[card(ACE, s)] for s in range(NUM_SUITS) if s != trump)
    estimate = (
        TRICK_BASE + TRICK_PER_TRUMP * trumps + TRICK_PER_HIGH_TRUMP * high_trumps + TRICK_PER_SIDE_ACE * side_aces
    )
    return min(estimate, 250.0)


def hand_value(hand: list[int], trump: int, run_extras: str) -> float:
    """What the hand is worth as the declarer's with ``trump``: its meld plus expected trick points."""
    return meld_points(hand, trump, run_extras) + trick_estimate(hand, trump)
