"""Pure rule functions of RULES.md: meld, trick legality and winner, hand scoring, game end.

Nothing here holds state: every function takes counts, cards and switches and returns a value,
so the tables of RULES.md can be checked one function at a time.
"""

from __future__ import annotations

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
    SUIT_OF,
    TEN,
    card,
)

# --------------------------------------------------------------------------------------------
# Meld (RULES.md section 4)

#: Points for one / two of each "around" meld, by rank.
AROUND_POINTS = {ACE: (100, 1000), KING: (80, 800), QUEEN: (60, 600), JACK: (40, 400)}
AROUND_NAMES = {ACE: ("aces around", "aces abound"), KING: ("kings around", "kings abound"),
                QUEEN: ("queens around", "queens abound"), JACK: ("jacks around", "jacks abound")}
RUN_RANKS = (ACE, TEN, KING, QUEEN, JACK)


class Meld(NamedTuple):
    """One player's meld: total points, the melds shown, and the cards shown (a count vector)."""

    points: int
    melds: tuple[tuple[str, int], ...]  # (meld name, points), e.g. ("run", 150)
    shown: tuple[int, ...]  # per card type, the copies shown: the most any single class uses


_RUN_CARDS = tuple(tuple(card(r, t) for r in RUN_RANKS) for t in range(NUM_SUITS))
_AROUND_CARDS = tuple((rank, tuple(card(rank, s) for s in range(NUM_SUITS))) for rank in AROUND_POINTS)
_QUEEN_SPADES, _JACK_DIAMONDS = card(QUEEN, SPADES), card(JACK, DIAMONDS)


def meld(counts: list[int] | tuple[int, ...], trump: int, run_extras: str = "consume") -> Meld:
    """The maximum meld of one hand (count vector) with ``trump``, as RULES.md section 4 counts it.

    ``shown`` takes, per card type, the most copies any single class (A, B, C) uses.
    """
    melds: list[tuple[str, int]] = []
    shown = [0] * NUM_TYPES

    # Class A: run, royal marriages, marriages, dix.
    ace, ten, king, queen, jack = _RUN_CARDS[trump]
    kings, queens = counts[king], counts[queen]
    run = min(counts[ace], counts[ten], kings, queens, counts[jack])
    if run:
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
        shown[king] = min(kings, run + royals)
        shown[queen] = min(queens, run + royals)
    for suit in range(NUM_SUITS):
        if suit != trump:
            suit_king = card(KING, suit)
            pairs = min(counts[suit_king], counts[suit_king - 1])  # the queen is one rank below
            if pairs:
                melds.append((f"marriage {'SHDC'[suit]}" + (" x2" if pairs == 2 else ""), 20 * pairs))
                shown[suit_king] = shown[suit_king - 1] = pairs
    dix = counts[card(NINE, trump)]
    if dix:
        melds.append(("dix" + (" x2" if dix == 2 else ""), 10 * dix))
        shown[card(NINE, trump)] = dix

    # Class B: arounds / abounds; a card may serve in class A too, so take the larger use.
    for rank, cards in _AROUND_CARDS:
        around = min(counts[cards[0]], counts[cards[1]], counts[cards[2]], counts[cards[3]])
        if around:
            single, double = AROUND_POINTS[rank]
            melds.append((AROUND_NAMES[rank][around - 1], single if around == 1 else double))
            for c in cards:
                shown[c] = max(shown[c], around)

    # Class C: pinochle.
    pinochles = min(counts[_QUEEN_SPADES], counts[_JACK_DIAMONDS])
    if pinochles:
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


def trick_winner(cards: list[int] | tuple[int, ...], trump: int) -> int:
    """Position (0 = the lead) of the card winning ``cards``; of equal cards the first wins."""
    best = 0
    for position in range(1, len(cards)):
        if beats(cards[position], cards[best], trump):
            best = position
    return best


#: Bit mask of the card types of each suit, and of the cards of the same suit ranked above a card.
SUIT_BITS = tuple(0b111111 << (6 * s) for s in range(NUM_SUITS))
ABOVE_BITS = tuple(sum(1 << c for c in SUIT_CARDS[SUIT_OF[x]] if RANK_OF[c] > RANK_OF[x]) for x in range(NUM_TYPES))


def held_bits(hand: list[int] | tuple[int, ...]) -> int:
    """Bit mask of the card types a count vector holds at least once (bit ``t`` for type ``t``)."""
    return sum(1 << c for c in range(NUM_TYPES) if hand[c])


def bits_to_cards(bits: int) -> list[int]:
    """Card types of a bit mask, weakest suit-major order."""
    return [c for c in range(NUM_TYPES) if bits >> c & 1]


def legal_card_bits(
    held: int,
    trick: list[int] | tuple[int, ...],
    trump: int,
    head_rule: str = "winner",
    must_overtrump: bool = True,
) -> int:
    """Bit mask of the card types a hand holding ``held`` (bit mask) may play to ``trick``.

    Rule 1: holding the led suit, follow it and beat the card to head if a card can; rule 2:
    void in it but holding trump, trump (over-trumping a winning trump if able and required);
    rule 3: otherwise any card. An empty trick allows any card.
    """
    if not trick:
        return held
    following = held & SUIT_BITS[SUIT_OF[trick[0]]]
    if following:
        target = _card_to_head(trick, trump, head_rule)
        if target is None:
            return following
        return (following & ABOVE_BITS[target]) or following
    trumps = held & SUIT_BITS[trump]
    if trumps:
        if must_overtrump:
            winner = trick[trick_winner(trick, trump)]
            if SUIT_OF[winner] == trump:
                return (trumps & ABOVE_BITS[winner]) or trumps
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


def _card_to_head(trick: list[int] | tuple[int, ...], trump: int, head_rule: str) -> int | None:
    """The card a follower of the led suit must beat if it can, or None when any card of the suit will do."""
    led_suit = SUIT_OF[trick[0]]
    if head_rule == "none" or (head_rule == "trump_lead_only" and led_suit != trump):
        return None
    if head_rule == "led_card":
        return trick[0]
    if head_rule == "highest_led":
        return max((c for c in trick if SUIT_OF[c] == led_suit), key=RANK_OF.__getitem__)
    winner = trick[trick_winner(trick, trump)]  # "winner" and "trump_lead_only" on a trump lead
    return winner if SUIT_OF[winner] == led_suit else None


# --------------------------------------------------------------------------------------------
# Scoring (RULES.md section 6)


def trick_points(cards: list[int] | tuple[int, ...], values: dict[int, int], last: bool) -> int:
    """Points of the cards of one trick under a counting table, with the last-trick bonus."""
    return sum(values[RANK_OF[c]] for c in cards) + (LAST_TRICK_BONUS if last else 0)


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
        if save_meld == "none" or (team == declaring_team and save_meld_applies_to == "defenders"):
            return meld[team]
        kept = points[team] >= 1 if save_meld == "points" else tricks[team] >= 1
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
