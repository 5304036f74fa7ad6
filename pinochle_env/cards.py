"""Cards: the 24 card types of the Pinochle deck, their strings and their point values.

A card type is an integer ``suit * 6 + rank``: suits in the order ``S H D C`` and ranks ordered by
strength, so a higher rank index is a stronger card (``9 J Q K T A``). The deck holds two copies
of every type; a hand is a count vector of length 24 with entries 0, 1 or 2.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = "9JQKTA"  # weakest to strongest
NUM_SUITS = 4
NUM_RANKS = 6
NUM_TYPES = NUM_SUITS * NUM_RANKS
COPIES = 2
DECK_SIZE = NUM_TYPES * COPIES

NINE, JACK, QUEEN, KING, TEN, ACE = range(NUM_RANKS)
SPADES, HEARTS, DIAMONDS, CLUBS = range(NUM_SUITS)

#: Suit of each card type.
SUIT_OF = tuple(card // NUM_RANKS for card in range(NUM_TYPES))
#: Rank (0 = nine ... 5 = ace) of each card type.
RANK_OF = tuple(card % NUM_RANKS for card in range(NUM_TYPES))

#: Trick-point value of each rank, per ``counting`` rule switch (docs/rules.md, section 7).
COUNTING_VALUES = {
    "counters": {ACE: 10, TEN: 10, KING: 10, QUEEN: 0, JACK: 0, NINE: 0},
    "ak10_kq5": {ACE: 10, TEN: 10, KING: 5, QUEEN: 5, JACK: 0, NINE: 0},
    "classic": {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2, NINE: 0},
}
LAST_TRICK_BONUS = 10


def card(rank: int, suit: int) -> int:
    """The card type of ``rank`` in ``suit``."""
    return suit * NUM_RANKS + rank


def card_to_str(card_type: int) -> str:
    """``"TS"`` for the ten of spades: rank letter then suit letter."""
    return RANKS[RANK_OF[card_type]] + SUITS[SUIT_OF[card_type]]


_FROM_STR = {card_to_str(c): c for c in range(NUM_TYPES)}


def card_from_str(text: str) -> int:
    """Parse ``"TS"`` / ``"10S"`` / ``"qs"`` into a card type; ``ValueError`` on anything else."""
    key = text.strip().upper().replace("10", "T")
    if key not in _FROM_STR:
        raise ValueError(f"not a Pinochle card: {text!r} (expected rank {RANKS} then suit {SUITS}, e.g. 'TS')")
    return _FROM_STR[key]


def suit_from_str(text: str) -> int:
    """Parse ``"H"`` or ``"hearts"`` into a suit index."""
    key = text.strip().lower()
    for index, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES, strict=True)):
        if key in (letter.lower(), name, name[:-1]):
            return index
    raise ValueError(f"not a suit: {text!r} (expected one of {', '.join(SUITS)} or {', '.join(SUIT_NAMES)})")


def counts_from_cards(cards: Iterable[int]) -> list[int]:
    """Count vector (length 24) of a collection of card types."""
    counts = [0] * NUM_TYPES
    for c in cards:
        counts[c] += 1
    return counts


def cards_from_counts(counts: Iterable[int]) -> list[int]:
    """Card types of a count vector, each repeated by its count, weakest suit-major order."""
    return [c for c, n in enumerate(counts) for _ in range(n)]


def parse_cards(texts: Iterable[str]) -> list[int]:
    """Card types of a list of card strings."""
    return [card_from_str(t) for t in texts]


def format_cards(cards: Iterable[int]) -> list[str]:
    """Card strings of card types, in the order given."""
    return [card_to_str(c) for c in cards]


def sorted_for_display(cards: Iterable[int]) -> list[int]:
    """Cards grouped by suit (S H D C), strongest first within each suit."""
    return sorted(cards, key=lambda c: (SUIT_OF[c], -RANK_OF[c]))
