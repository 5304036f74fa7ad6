"""The heuristic bot's rules for cutthroat (:func:`cutthroat_action`).

Simpler than the partnership player (no card counting), but a fair sparring partner that beats
``random`` by a wide margin (see docs/benchmarks.md): it bids up to its best meld plus a trick
estimate with the widow's expected worth, names the trump that maximises the same value, buries
the off-suit counters it would likely lose (buried counters score for the declarer) and keeps
trump and aces, throws in when its meld plus the estimate cannot reach the contract, and plays
cards by :func:`~.simple_play.play_card`.

Like the partnership bot, every decision is a function of the view and the legal mask, with a
seeded tie-break ``order`` over the 24 card types.
"""

from __future__ import annotations

from typing import Any

from pinochle_env.cards import ACE, KING, NUM_SUITS, RANK_OF, SUIT_OF, TEN
from pinochle_env.games.cutthroat.game import CutthroatView, Phase
from pinochle_env.games.kit import variant_kit

from .hand_value import meld_points, suit_length, trick_estimate
from .simple_play import play_card

#: The search kernel's compiled copy of this bot (see :mod:`agents.heuristic.games`): its card play
#: (the simple play); its decisions before the first card are not compiled.
PLAY_OUT_POLICY = "simple"
COMPILED_BIDDING = False
#: The :class:`~agents.heuristic.HeuristicAgent` parameters these rules read (no partner to count on).
PARAMETERS_READ = ("aggression",)
#: What the cutthroat declarer expects the widow to add to its hand's value, in points.
WIDOW_VALUE = 20.0
#: The partnership trick estimate counts on a partner; a lone cutthroat declarer gets this share.
LONE_TRICK_SHARE = 0.8


def act(agent: Any, view: CutthroatView, legal: list[int]) -> int:
    """The decision of the :class:`~agents.heuristic.HeuristicAgent` ``agent`` (its tie-break order
    and aggression) among the ``legal`` action ids."""
    return cutthroat_action(view, legal, agent.tie_break_order, agent.aggression)


def cutthroat_action(view: CutthroatView, legal: list[int], order: list[int], aggression: float) -> int:
    """The cutthroat decision for ``view`` among the ``legal`` action ids."""
    layout = variant_kit(view.rules).layout
    phase = view.phase
    run_extras = view.rules.run_extras
    if phase == Phase.AUCTION:
        bids = [a for a in legal if a < layout.num_bids]
        best = max(cutthroat_value(view.hand, t, run_extras) for t in range(NUM_SUITS))
        if bids and layout.bid_value(bids[0]) <= aggression * (best + WIDOW_VALUE):
            return bids[0]
        return layout.passing
    if phase == Phase.TRUMP:
        return layout.trump0 + max(
            range(NUM_SUITS), key=lambda t: (cutthroat_value(view.hand, t, run_extras), order[t])
        )
    if phase == Phase.THROW_IN:
        own = view.meld_of(view.seat).points + LONE_TRICK_SHARE * trick_estimate(view.hand, view.trump)
        return layout.throw_in if own < view.contract else layout.play_on
    cards = [a - layout.card0 for a in legal]
    if phase == Phase.BURY:
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
