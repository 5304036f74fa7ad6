"""Trick play: which card wins a trick, which cards a hand may play (must-follow, must-head,
must-trump under the head_rule and must_overtrump switches), and why a card is refused."""

from __future__ import annotations

from itertools import compress

from ..cards import (
    NUM_SUITS,
    NUM_TYPES,
    RANK_OF,
    SUIT_NAMES,
    SUIT_OF,
    card,
)

# --------------------------------------------------------------------------------------------
# Tricks (docs/rules.md, section 6)

#: Card types of each suit, weakest first.
SUIT_CARDS = tuple(tuple(card(r, s) for r in range(6)) for s in range(NUM_SUITS))


def beats(challenger: int, winner: int, trump: int) -> bool:
    """Whether ``challenger``, played after ``winner``, takes the trick from it."""
    if SUIT_OF[challenger] == SUIT_OF[winner]:
        return RANK_OF[challenger] > RANK_OF[winner]
    return SUIT_OF[challenger] == trump


#: Per trump suit and card: bit mask of the cards that take the trick from that card (``beats`` as a table).
BEATEN_BY = tuple(
    tuple(sum(1 << c for c in range(NUM_TYPES) if beats(c, winner, trump)) for winner in range(NUM_TYPES))
    for trump in range(NUM_SUITS)
)


def trick_winner(cards: list[int] | tuple[int, ...], trump: int) -> int:
    """Position (0 = the lead) of the card winning ``cards``; of equal cards the first wins."""
    beaten_by = BEATEN_BY[trump]
    best = 0
    for position in range(1, len(cards)):
        if beaten_by[cards[best]] >> cards[position] & 1:
            best = position
    return best


#: Bit mask of the card types of each suit, and of the cards of the same suit ranked above a card.
SUIT_BITS = tuple(0b111111 << (6 * s) for s in range(NUM_SUITS))
ABOVE_BITS = tuple(sum(1 << c for c in SUIT_CARDS[SUIT_OF[x]] if RANK_OF[c] > RANK_OF[x]) for x in range(NUM_TYPES))


#: Bit of each card type in a card bit mask.
CARD_BITS = tuple(1 << c for c in range(NUM_TYPES))


def held_bits(hand: list[int] | tuple[int, ...]) -> int:
    """Bit mask of the card types a count vector holds at least once (bit ``t`` for type ``t``)."""
    return sum(compress(CARD_BITS, hand))


def bits_to_cards(bits: int) -> list[int]:
    """Card types of a bit mask, weakest suit-major order."""
    return [c for c in range(NUM_TYPES) if bits >> c & 1]


def legal_card_bits(
    held: int,
    trick: list[int] | tuple[int, ...],
    trump: int,
    head_rule: str = "winner",
    must_overtrump: bool = True,
    winning: int | None = None,
) -> int:
    """Bit mask of the card types a hand holding ``held`` (bit mask) may play to ``trick``.

    Rule 1: holding the led suit, follow it and beat the card to head if a card can; rule 2:
    void in it but holding trump, trump (over-trumping a winning trump if able and required);
    rule 3: otherwise any card. An empty trick allows any card. ``winning`` is the card now
    winning ``trick`` when the caller keeps track of it (the engine does), else it is worked out.
    """
    if not trick:
        return held
    if winning is None:
        winning = trick[trick_winner(trick, trump)]
    led_suit = SUIT_OF[trick[0]]
    following = held & SUIT_BITS[led_suit]
    if following:
        if head_rule == "winner":  # the default, decided here without a call
            target = winning if SUIT_OF[winning] == led_suit else None
        else:
            target = _card_to_head(trick, led_suit, trump, winning, head_rule)
        if target is None:
            return following
        return (following & ABOVE_BITS[target]) or following
    trumps = held & SUIT_BITS[trump]
    if trumps:
        if must_overtrump and SUIT_OF[winning] == trump:
            return (trumps & ABOVE_BITS[winning]) or trumps
        return trumps
    return held


def legal_cards(
    hand: list[int] | tuple[int, ...],
    trick: list[int] | tuple[int, ...],
    trump: int,
    head_rule: str = "winner",
    must_overtrump: bool = True,
) -> list[int]:
    """Card types that ``hand`` (count vector) may play to ``trick`` (cards so far, in play order)."""
    return bits_to_cards(legal_card_bits(held_bits(hand), trick, trump, head_rule, must_overtrump))


#: What a follower of suit must beat under each ``head_rule`` (where a card of the suit can).
HEAD_WORDS = {
    "winner": "the card winning the trick",
    "highest_led": "the highest card of the suit led",
    "led_card": "the card led",
    "trump_lead_only": "the winning trump on a trump lead",
    "none": "nothing",
}


def play_refusal(
    hand: list[int] | tuple[int, ...],
    trick: list[int] | tuple[int, ...],
    trump: int,
    card: int,
    head_rule: str = "winner",
) -> str:
    """Why ``hand`` (count vector) may not play ``card``, a card it holds that :func:`legal_cards`
    refuses for ``trick`` (led, so not empty): the rule the card breaks, as a player would read it,
    in the words of ``head_rule`` (the play CLI and the web table tell a person this)."""
    led = SUIT_OF[trick[0]]
    if any(hand[c] for c in SUIT_CARDS[led]):
        if SUIT_OF[card] != led:
            return f"you must follow suit ({SUIT_NAMES[led]})"
        return f"you must beat {HEAD_WORDS[head_rule]} when you can, to head the trick"
    if SUIT_OF[card] != trump:
        return f"you have no {SUIT_NAMES[led]}, so you must trump"
    return "you must play a higher trump than the winning one when you can"


def _card_to_head(
    trick: list[int] | tuple[int, ...], led_suit: int, trump: int, winning: int, head_rule: str
) -> int | None:
    """The card a follower of the led suit must beat if it can, or None when any card of the suit will do."""
    if head_rule == "winner" or (head_rule == "trump_lead_only" and led_suit == trump):
        return winning if SUIT_OF[winning] == led_suit else None
    if head_rule == "led_card":
        return trick[0]
    if head_rule == "highest_led":
        return max((c for c in trick if SUIT_OF[c] == led_suit), key=RANK_OF.__getitem__)
    return None  # "none", and "trump_lead_only" on a plain-suit lead
