"""The ``heuristic`` bot's rules for the three- and two-handed games.

Simpler than the partnership player (no card counting), but a fair sparring partner that beats
``random`` by a wide margin (see the README's figures):

- **Cutthroat** (:func:`cutthroat_action`): bids up to its best meld plus a trick estimate with
  the widow's expected worth, names the trump that maximises the same value, buries the
  off-suit counters it would likely lose (buried counters score for the declarer) and keeps
  trump and aces, throws in when its meld plus the estimate cannot reach the contract, and plays
  cards by :func:`play_card`.
- **Two-handed** (:func:`two_hand_action`): declares the most valuable meld it may (a dix
  exchange before anything else), and plays by :func:`play_card`, which in the stock phase
  wins tricks that hold counters and otherwise throws its cheapest card.

Like the partnership bot, every decision is a function of the view and the legal mask, with a
seeded tie-break ``order`` over the 24 card types.
"""

from __future__ import annotations

from typing import Any

from pinochle_env import rules as R
from pinochle_env.actions import layout_for
from pinochle_env.cards import ACE, COUNTING_VALUES, KING, NUM_SUITS, RANK_OF, SUIT_OF, TEN
from pinochle_env.two_hand import LAYOUT as TWO_HAND_LAYOUT
from pinochle_env.two_hand import Phase as TwoHandPhase
from pinochle_env.two_hand import meld_points as two_hand_meld_points

from .heuristic import meld_points, suit_length, trick_estimate

#: What the cutthroat declarer expects the widow to add to its hand's value, in points.
WIDOW_VALUE = 20.0
#: The partnership trick estimate counts on a partner; a lone cutthroat declarer gets this share.
LONE_TRICK_SHARE = 0.8


def cutthroat_action(view: Any, legal: list[int], order: list[int], aggression: float) -> int:
    """The cutthroat decision for ``view`` among the ``legal`` action ids."""
    layout = layout_for(view.rules.max_bid)
    name = view.phase.name
    run_extras = view.rules.run_extras
    if name == "AUCTION":
        bids = [a for a in legal if a < layout.num_bids]
        best = max(cutthroat_value(view.hand, t, run_extras) for t in range(NUM_SUITS))
        if bids and layout.bid_value(bids[0]) <= aggression * (best + WIDOW_VALUE):
            return bids[0]
        return layout.passing
    if name == "TRUMP":
        return layout.trump0 + max(
            range(NUM_SUITS), key=lambda t: (cutthroat_value(view.hand, t, run_extras), order[t])
        )
    if name == "THROW_IN":
        own = view.meld[view.seat].points + LONE_TRICK_SHARE * trick_estimate(view.hand, view.trump)
        return layout.throw_in if own < view.contract else layout.play_on
    cards = [a - layout.card0 for a in legal]
    if name == "BURY":
        return layout.card0 + min(cards, key=lambda c: (_bury_cost(view.hand, c, view.trump), order[c]))
    last = len(view.trick) == view.rules.num_seats - 1
    return layout.card0 + play_card(view.trick, cards, view.trump, view.rules.counting, last, order)


def cutthroat_value(hand: list[int], trump: int, run_extras: str) -> float:
    """A lone declarer's hand value with ``trump``: meld plus its share of the trick estimate."""
    return meld_points(hand, trump, run_extras) + LONE_TRICK_SHARE * trick_estimate(hand, trump)


def _bury_cost(hand: list[int], c: int, trump: int) -> float:
    """What burying ``c`` costs: trump and aces take tricks; an off-suit ten or king buried is a
    counter banked, and a card of a short suit buried brings a void (to trump in) closer."""
    suit, rank = SUIT_OF[c], RANK_OF[c]
    if suit == trump:
        return 50.0 + rank
    if rank == ACE:
        return 30.0
    cost = float(rank) - (12.0 if rank == TEN else 8.0 if rank == KING else 0.0)
    return cost - 2.0 * max(0, 3 - suit_length(hand, suit))


def two_hand_action(view: Any, legal: list[int], order: list[int]) -> int:
    """The two-handed decision for ``view`` among the ``legal`` action ids."""
    layout = TWO_HAND_LAYOUT
    if view.phase == TwoHandPhase.MELD:
        return max(legal, key=lambda a: _meld_value(a, view.trump))
    cards = [a - layout.card0 for a in legal]
    # In the stock phase the follower need not head the trick: it only takes one that pays.
    must_head = view.phase == TwoHandPhase.PLAY2
    return layout.card0 + play_card(view.trick, cards, view.trump, view.rules.counting, must_head, order)


def _meld_value(action: int, trump: int) -> float:
    """Points a meld-turn action scores: a dix exchange first (it also takes the turn-up trump)."""
    layout = TWO_HAND_LAYOUT
    if action == layout.dix_exchange:
        return 10.5
    if action == layout.dix_show:
        return 10.0
    if action == layout.no_meld:
        return 0.0
    return float(two_hand_meld_points(action - layout.meld0, trump))


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
