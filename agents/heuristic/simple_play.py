"""Card play without card counting: the heuristic bot's play in the three- and two-handed games."""

from __future__ import annotations

from pinochle_env import rules as R
from pinochle_env.cards import ACE, COUNTING_VALUES, RANK_OF, SUIT_OF


def play_card(trick: list[int], cards: list[int], trump: int, counting: str, last: bool, order: list[int]) -> int:
    """A card to play among the legal ``cards`` (card types), without card counting.

    Leading: an off-suit ace, else the cheapest off-suit card, else the lowest trump. Following:
    the cheapest card that wins the trick when the trick holds points or this is its last card
    (``last``), else the cheapest card of all.
    """
    values = COUNTING_VALUES[counting]

    def cost(c: int) -> tuple[float, int]:
        """Cheapest first: off-suit before trump, low points and rank before high."""
        return (100.0 if SUIT_OF[c] == trump else 0.0) + values[RANK_OF[c]] + RANK_OF[c] / 10, order[c]

    if not trick:
        aces = [c for c in cards if RANK_OF[c] == ACE and SUIT_OF[c] != trump]
        return min(aces, key=order.__getitem__) if aces else min(cards, key=cost)
    winning = trick[R.trick_winner(trick, trump)]
    winners = [c for c in cards if R.beats(c, winning, trump)]
    at_stake = sum(values[RANK_OF[c]] for c in trick)
    if winners and (at_stake > 0 or last):
        return min(winners, key=cost)
    return min(cards, key=cost)
