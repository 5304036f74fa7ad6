"""The heuristic bot's rules for the two-handed game: declare the most valuable meld it may (a dix
exchange before anything else), and play by :func:`~.simple_play.play_card`, which in the stock
phase wins tricks that hold counters and otherwise throws its cheapest card."""

from __future__ import annotations

from typing import Any

from pinochle_env.games.two_hand.actions import LAYOUT
from pinochle_env.games.two_hand.game import Phase, TwoHandView
from pinochle_env.games.two_hand.melds import meld_points

from .simple_play import play_card

#: The search kernel's compiled copy of this bot (see :mod:`agents.heuristic.games`): its card play
#: (the simple play); its melds are not compiled.
PLAY_OUT_POLICY = "simple"
COMPILED_BIDDING = False
#: The :class:`~agents.heuristic.HeuristicAgent` parameters these rules read: none (no auction).
PARAMETERS_READ: tuple[str, ...] = ()


def act(agent: Any, view: TwoHandView, legal: list[int]) -> int:
    """The decision of the :class:`~agents.heuristic.HeuristicAgent` ``agent`` (its tie-break order)."""
    return two_hand_action(view, legal, agent.tie_break_order)


def two_hand_action(view: TwoHandView, legal: list[int], order: list[int]) -> int:
    """The two-handed decision for ``view`` among the ``legal`` action ids."""
    layout = LAYOUT
    if view.phase == Phase.MELD:
        return max(legal, key=lambda a: _meld_value(a, view.trump))
    cards = [a - layout.card0 for a in legal]
    # In the stock phase the follower need not head the trick: it only takes one that pays.
    must_head = view.phase == Phase.PLAY2
    return layout.card0 + play_card(view.trick, cards, view.trump, view.rules.counting, must_head, order)


def _meld_value(action: int, trump: int) -> float:
    """Points a meld-turn action scores: a dix exchange first (it also takes the turn-up trump)."""
    layout = LAYOUT
    if action == layout.dix_exchange:
        return 10.5
    if action == layout.dix_show:
        return 10.0
    if action == layout.no_meld:
        return 0.0
    return float(meld_points(action - layout.meld0, trump))
