"""The two-handed game's meld kinds (one declared per meld turn) and the reuse of cards on the table."""

from __future__ import annotations

from typing import NamedTuple

from ... import rules as R
from ...cards import ACE, DIAMONDS, JACK, KING, NUM_SUITS, QUEEN, SPADES, SUITS, card

# What a card on the table has served in: one bit per meld group. Class A is split into runs,
# marriages and the dix, because a run may take over the king and queen of a royal marriage.
USED_RUN, USED_MARRIAGE, USED_DIX, USED_AROUND, USED_PINOCHLE = 1, 2, 4, 8, 16
CLASS_A = USED_RUN | USED_MARRIAGE | USED_DIX


class MeldKind(NamedTuple):
    """One meld a trick winner may declare.

    ``points`` is its value (a marriage in the trump suit, the royal marriage, scores twice it);
    ``marks`` the bit it sets on its cards; a card on the table whose bits meet ``blocked`` may not
    serve in it again.
    """

    name: str
    points: int
    marks: int
    blocked: int


def _around_kinds() -> list[MeldKind]:
    kinds = []
    for rank in (ACE, KING, QUEEN, JACK):
        single, double = R.AROUND_POINTS[rank]
        around, abound = R.AROUND_NAMES[rank]
        kinds.append(MeldKind(around, single, USED_AROUND, USED_AROUND))
        kinds.append(MeldKind(abound, double, USED_AROUND, USED_AROUND))
    return kinds


#: The meld actions, in action-id order. Only a run may reuse a card of its own class (the royal
#: marriage's king and queen, so ``blocked`` leaves out USED_MARRIAGE); double melds and every other
#: meld need cards fresh to their class.
MELD_KINDS: tuple[MeldKind, ...] = (
    MeldKind("run", 150, USED_RUN, USED_RUN),
    MeldKind("double run", 1500, USED_RUN, CLASS_A),
    *(MeldKind(f"marriage {SUITS[s]}", 20, USED_MARRIAGE, CLASS_A) for s in range(NUM_SUITS)),
    MeldKind("pinochle", 40, USED_PINOCHLE, USED_PINOCHLE),
    MeldKind("double pinochle", 300, USED_PINOCHLE, USED_PINOCHLE),
    *_around_kinds(),
)
MARRIAGE0 = 2  # index of "marriage S" in MELD_KINDS


def _meld_cards(kind: int, trump: int) -> tuple[tuple[int, int], ...]:
    """(card type, copies) of meld ``kind`` with ``trump``."""
    name = MELD_KINDS[kind].name
    if name in ("run", "double run"):
        copies = 2 if name == "double run" else 1
        return tuple((card(r, trump), copies) for r in R.RUN_RANKS)
    if name.startswith("marriage"):
        suit = kind - MARRIAGE0
        return ((card(KING, suit), 1), (card(QUEEN, suit), 1))
    copies = 2 if name.startswith("double") or name.endswith("abound") else 1
    if name.endswith("pinochle"):
        return ((card(QUEEN, SPADES), copies), (card(JACK, DIAMONDS), copies))
    rank = {"aces": ACE, "kings": KING, "queens": QUEEN, "jacks": JACK}[name.split()[0]]
    return tuple((card(rank, s), copies) for s in range(NUM_SUITS))


#: Per trump suit and meld kind: the (card type, copies) the meld needs.
MELD_CARDS = tuple(tuple(_meld_cards(k, t) for k in range(len(MELD_KINDS))) for t in range(NUM_SUITS))


def meld_points(kind: int, trump: int) -> int:
    """Points of meld ``kind`` with ``trump`` (the marriage in trump is the royal marriage, 40)."""
    royal = kind == MARRIAGE0 + trump
    return MELD_KINDS[kind].points * (2 if royal else 1)


def most_worn(copies: list[int], blocked: int = 0) -> int:
    """Index of the table copy to use (in a meld, among those free of ``blocked``) or to play: the one
    that has served in the most meld groups, so the fresher copy stays open to more melds."""
    free = [i for i, uses in enumerate(copies) if not uses & blocked]
    return max(free, key=lambda i: (bin(copies[i]).count("1"), copies[i]))
