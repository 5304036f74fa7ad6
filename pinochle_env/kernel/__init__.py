"""The search kernel: trick play at compiled speed, an exact end-game solver and fast deal drawing.

A small API over the numba-compiled functions of :mod:`pinochle_env.kernel.compiled` (imported
only when this package is: ``import pinochle_env`` neither imports numba nor compiles anything).
It serves the partnership game and cutthroat during trick play, and the two-handed game's phase 2.
The first call on a machine compiles the kernel (about half a minute, once: numba caches the
machine code) and says ``compiling the search kernel (first run only)``; :func:`compile_kernel`
does it up front, as a driver does before starting worker processes.

- :func:`solve` / :func:`card_values`: the exact value of a perfect-information position (an
  engine during trick play, every hand known) and of each legal card of the seat to act, as that
  seat's hand-score margin (its team's score minus the other team's; see
  :class:`~pinochle_env.kernel.state.Scoring` for cutthroat).
- :func:`play_out`: play a position out many times with a compiled policy (``"heuristic"``, the
  partnership heuristic bot's card play; ``"simple"``, the three- and two-handed heuristic's;
  ``"random"``), as many deals per call as given.
- :func:`sample_deals`: deals consistent with everything one seat's view shows
  (:mod:`pinochle_env.kernel.sampling`).

Example: solve an end game::

    from pinochle_env.kernel import card_values, solve
    values = card_values(game)   # {"AS": 60.0, "9H": -20.0, ...}
    best = solve(game)           # Solution(card="AS", margin=60.0, values=...)

``pinochle_env.rules`` stays the reference: the tests check the kernel against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import NUM_TYPES, card_to_str
from .sampling import DealConstraints, Deals, sample_deals
from .search import compile_kernel, play_out_deals, solve_side_values
from .state import PlayState, Scoring

__all__ = [
    "DealConstraints",
    "Deals",
    "PlayOuts",
    "PlayState",
    "Scoring",
    "Solution",
    "card_values",
    "compile_kernel",
    "play_out",
    "sample_deals",
    "solve",
]


def _state(position: Any) -> PlayState:
    """A :class:`PlayState` from an engine during trick play (or a PlayState as it is)."""
    return position if isinstance(position, PlayState) else PlayState.from_game(position)


@dataclass
class Solution:
    """The solved position: the best card for the seat to act, its margin, and every legal card's."""

    card: str
    margin: float
    values: dict[str, float]


def card_values(position: Any) -> dict[str, float]:
    """Each legal card of the seat to act with its exact value: that seat's hand-score margin when
    everyone plays perfectly from there, every hand known (an engine or a :class:`PlayState`)."""
    state = _state(position)
    cards, scores = solve_side_values(state)
    margins = state.scoring.margin(scores[cards], state.bonus) * state.scoring.factor[state.to_act]
    return {card_to_str(c): float(m) for c, m in zip(cards, margins, strict=True)}


def solve(position: Any) -> Solution:
    """The exact solution of a perfect-information position (see :func:`card_values`); of equally
    good cards the first in card order."""
    values = card_values(position)
    card = max(values, key=values.__getitem__)
    return Solution(card, values[card], values)


@dataclass
class PlayOuts:
    """Play-out results: each seat's trick points and tricks (N, seats) and the margin (N,) of the
    seat that was to act."""

    points: np.ndarray
    tricks: np.ndarray
    margins: np.ndarray


def play_out(
    position: Any,
    count: int = 1,
    policy: str = "heuristic",
    seed: int = 0,
    order: list[int] | None = None,
    deals: Deals | None = None,
) -> PlayOuts:
    """Play a position out ``count`` times with ``policy`` for every seat (``"heuristic"``, ``"simple"``
    or ``"random"``; ties broken by ``order``, a rank per card type, default card order).

    ``position`` is an engine or a :class:`PlayState` with every hand; with ``deals`` (from
    :func:`sample_deals`) the hands come from the deals instead, one play-out each. Deal ``i``
    plays with random stream ``seed + i``.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    state = _state(position)
    if deals is not None:
        hands, gifts, bonus = deals.hands, deals.gifts, deals.bonus
    else:
        hands = np.broadcast_to(state.hands, (count, *state.hands.shape))
        gifts = np.broadcast_to(state.gifts, (count, *state.gifts.shape))
        bonus = np.full(count, state.bonus)
    seeds = np.arange(seed, seed + len(hands), dtype=np.uint64)
    order = list(range(NUM_TYPES)) if order is None else order
    points, tricks = play_out_deals(state, hands, gifts, policy, seeds, order)
    side = points[:, state.side == 1].sum(axis=1)
    if state.mode == 1:
        own, other = tricks[:, state.side == 1].sum(axis=1), tricks[:, state.side == 0].sum(axis=1)
        side = side + (other == 0) - (own == 0)
    margins = state.scoring.margin(side, bonus) * state.scoring.factor[state.to_act]
    return PlayOuts(points, tricks, margins)
