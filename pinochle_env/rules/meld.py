"""Meld: what a hand shows for a trump (the meld table of docs/rules.md), and the meld a seat showed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..cards import (
    ACE,
    COPIES,
    DIAMONDS,
    JACK,
    KING,
    NINE,
    NUM_SUITS,
    NUM_TYPES,
    QUEEN,
    SPADES,
    SUITS,
    TEN,
    card,
)
from .tricks import held_bits

# --------------------------------------------------------------------------------------------
# Meld (docs/rules.md, section 4)

#: Points for one / two of each "around" meld, by rank.
AROUND_POINTS = {ACE: (100, 1000), KING: (80, 800), QUEEN: (60, 600), JACK: (40, 400)}
AROUND_NAMES = {
    ACE: ("aces around", "aces abound"),
    KING: ("kings around", "kings abound"),
    QUEEN: ("queens around", "queens abound"),
    JACK: ("jacks around", "jacks abound"),
}
RUN_RANKS = (ACE, TEN, KING, QUEEN, JACK)


class Meld(NamedTuple):
    """One player's meld: total points, the melds shown, and the cards shown (a count vector)."""

    points: int
    melds: tuple[tuple[str, int], ...]  # (meld name, points), e.g. ("run", 150)
    shown: tuple[int, ...]  # per card type, the copies shown: the most any single class uses


def shown_meld(melds: Sequence[Meld | None], seat: int) -> Meld:
    """The meld ``seat`` showed, from a hand's melds per seat (``RuntimeError`` before the meld)."""
    meld = melds[seat]
    if meld is None:
        raise RuntimeError(f"player {seat} has not melded yet in this hand")
    return meld


def _bits(cards: tuple[int, ...]) -> int:
    """Bit mask of some card types (bit ``t`` for type ``t``)."""
    return sum(1 << c for c in cards)


def _marriage(suit: int) -> tuple[tuple[str, str], int, int, int]:
    """(names for one / two, king, queen, both as a bit mask) of the marriage in ``suit``."""
    king, queen = card(KING, suit), card(QUEEN, suit)
    return (f"marriage {SUITS[suit]}", f"marriage {SUITS[suit]} x2"), king, queen, _bits((king, queen))


def _around(rank: int) -> tuple[int, tuple[int, ...], int]:
    """(rank, its card in each suit, those as a bit mask) of an around."""
    cards = tuple(card(rank, s) for s in range(NUM_SUITS))
    return rank, cards, _bits(cards)


# Per trump suit: the run's cards, the plain-suit marriages and the dix. Each meld also comes as a
# bit mask, so that a hand lacking one of its cards skips it without counting copies.
_RUN_CARDS = tuple(tuple(card(r, t) for r in RUN_RANKS) for t in range(NUM_SUITS))
_RUN_BITS = tuple(_bits(cards) for cards in _RUN_CARDS)
_MARRIAGES = tuple(tuple(_marriage(s) for s in range(NUM_SUITS) if s != t) for t in range(NUM_SUITS))
_NINES = tuple(card(NINE, t) for t in range(NUM_SUITS))
_AROUND_CARDS = tuple(_around(rank) for rank in AROUND_POINTS)
_QUEEN_SPADES, _JACK_DIAMONDS = card(QUEEN, SPADES), card(JACK, DIAMONDS)
_PINOCHLE_BITS = _bits((_QUEEN_SPADES, _JACK_DIAMONDS))


def meld(counts: list[int] | tuple[int, ...], trump: int, run_extras: str = "consume") -> Meld:
    """The maximum meld of one hand (count vector) with ``trump``, as docs/rules.md, section 4, counts it.

    ``shown`` takes, per card type, the most copies any single class (A, B, C) uses.
    """
    melds: list[tuple[str, int]] = []
    shown = [0] * NUM_TYPES
    held = held_bits(counts)

    # Class A: run, royal marriages, marriages, dix.
    ace, ten, king, queen, jack = _RUN_CARDS[trump]
    kings, queens = counts[king], counts[queen]
    run = 0
    if (held & _RUN_BITS[trump]) == _RUN_BITS[trump]:
        run = min(counts[ace], counts[ten], kings, queens, counts[jack])
        melds.append(("double run" if run == 2 else "run", 1500 if run == 2 else 150))
        shown[ace] = shown[ten] = shown[king] = shown[queen] = shown[jack] = run
    if run_extras == "royal_in_run":
        royals = min(kings, queens)
    elif run_extras == "reuse" and run == 1:
        royals = (kings - 1) + (queens - 1)
    else:
        royals = min(kings, queens) - run
    if royals:
        melds.append(("royal marriage" if royals == 1 else f"{royals} royal marriages", 40 * royals))
        # Royal marriages pair the trump kings and queens one to one, except that under ``reuse``
        # a spare K or Q marries the run's own partner card, so every trump K and Q is used.
        reused = run_extras == "reuse" and run == 1
        shown[king] = kings if reused else min(kings, queens)
        shown[queen] = queens if reused else min(kings, queens)
    for names, suit_king, suit_queen, pair in _MARRIAGES[trump]:
        if (held & pair) == pair:
            pairs = min(counts[suit_king], counts[suit_queen])
            melds.append((names[pairs - 1], 20 * pairs))
            shown[suit_king] = shown[suit_queen] = pairs
    nine = _NINES[trump]
    dix = counts[nine]
    if dix:
        melds.append(("dix" + (" x2" if dix == 2 else ""), 10 * dix))
        shown[nine] = dix

    # Class B: arounds / abounds; a card may serve in class A too, so take the larger use.
    for rank, cards, bits in _AROUND_CARDS:
        if (held & bits) == bits:
            around = min(counts[cards[0]], counts[cards[1]], counts[cards[2]], counts[cards[3]])
            single, double = AROUND_POINTS[rank]
            melds.append((AROUND_NAMES[rank][around - 1], single if around == 1 else double))
            for c in cards:
                shown[c] = max(shown[c], around)

    # Class C: pinochle.
    if (held & _PINOCHLE_BITS) == _PINOCHLE_BITS:
        pinochles = min(counts[_QUEEN_SPADES], counts[_JACK_DIAMONDS])
        melds.append(("double pinochle" if pinochles == 2 else "pinochle", 300 if pinochles == 2 else 40))
        shown[_QUEEN_SPADES] = max(shown[_QUEEN_SPADES], pinochles)
        shown[_JACK_DIAMONDS] = max(shown[_JACK_DIAMONDS], pinochles)

    return Meld(sum(points for _, points in melds), tuple(melds), tuple(shown))


def whole_deck_meld(run_extras: str = "consume") -> int:
    """The meld of the whole deck (two of each card) in one hand with the best trump: a bound on
    the meld of any hand, since meld only grows as cards are added (every meld is a set of cards);
    far from tight."""
    whole_deck = [COPIES] * NUM_TYPES
    return max(meld(whole_deck, trump, run_extras).points for trump in range(NUM_SUITS))
