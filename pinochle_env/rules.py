"""Pure rule functions of RULES.md: meld, trick legality and winner, hand scoring, game end.

Nothing here holds state: every function takes counts, cards and switches and returns a value,
so the tables of RULES.md can be checked one function at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import NamedTuple

from .cards import (
    ACE,
    DIAMONDS,
    JACK,
    KING,
    LAST_TRICK_BONUS,
    NINE,
    NUM_SUITS,
    NUM_TYPES,
    QUEEN,
    RANK_OF,
    SPADES,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
    TEN,
    card,
)

# --------------------------------------------------------------------------------------------
# Meld (RULES.md section 4)

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
    """The maximum meld of one hand (count vector) with ``trump``, as RULES.md section 4 counts it.

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


# --------------------------------------------------------------------------------------------
# Tricks (RULES.md section 5)

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


# --------------------------------------------------------------------------------------------
# Scoring (RULES.md section 6)


def trick_points(cards: list[int] | tuple[int, ...], values: dict[int, int], last: bool) -> int:
    """Points of the cards of one trick under a counting table, with the last-trick bonus."""
    total = LAST_TRICK_BONUS if last else 0
    for c in cards:
        total += values[RANK_OF[c]]
    return total


def meld_kept(
    declaring: bool, points: int, tricks: int, save_meld: str = "points", save_meld_applies_to: str = "defenders"
) -> bool:
    """Whether a side that took ``points`` trick points in ``tricks`` tricks keeps its meld in a played
    hand (RULES.md section 6, "save meld"); ``declaring`` says if it is the declaring side."""
    if save_meld == "none" or (declaring and save_meld_applies_to == "defenders"):
        return True
    return points >= 1 if save_meld == "points" else tricks >= 1


class HandScore(NamedTuple):
    """A hand's result per team: ``score`` is this hand's change, ``made`` says if D made it."""

    score: tuple[int, int]
    made: bool


def score_hand(
    declaring_team: int,
    bid: int,
    meld: tuple[int, int] | list[int],
    points: tuple[int, int] | list[int],
    tricks: tuple[int, int] | list[int],
    thrown_in: bool,
    save_meld: str = "points",
    save_meld_applies_to: str = "defenders",
) -> HandScore:
    """Score one hand per team (team index 0 / 1) by RULES.md section 6."""
    defending_team = 1 - declaring_team
    score = [0, 0]
    if thrown_in:
        score[declaring_team] = -bid
        score[defending_team] = meld[defending_team]
        return HandScore((score[0], score[1]), False)

    def saved(team: int) -> int:
        kept = meld_kept(team == declaring_team, points[team], tricks[team], save_meld, save_meld_applies_to)
        return meld[team] if kept else 0

    total = saved(declaring_team) + points[declaring_team]
    made = total >= bid
    score[declaring_team] = total if made else -bid
    score[defending_team] = saved(defending_team) + points[defending_team]
    return HandScore((score[0], score[1]), made)


def game_winner(totals: tuple[int, int] | list[int], declaring_team: int, target: int) -> int | None:
    """The team that has won after a hand (the declaring team if both reached ``target``), or None."""
    over = [team for team in (0, 1) if totals[team] >= target]
    if not over:
        return None
    return declaring_team if len(over) == 2 else over[0]
