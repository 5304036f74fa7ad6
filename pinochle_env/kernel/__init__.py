"""The game's search kernel: trick play at compiled speed, an exact solver and deal drawing.

A small API over the numba-compiled functions of :mod:`pinochle_env.kernel.compiled` (imported
only when this package is: ``import pinochle_env`` neither imports numba nor compiles anything).
It serves the partnership game and cutthroat during trick play, and the two-handed game's phase 2.
Everything here follows from the rules alone; how bots play (play-out policies, PIMC, the deal
weighting) is the search wing's, :mod:`agents.search`. The first call on a machine compiles the
kernel (once: numba caches the machine code; :mod:`~pinochle_env.kernel.compiling`) and says
``compiling the search kernel (first run only)`` as it starts; :func:`compile_kernel` does it up
front, as a driver does before starting worker processes.

- :func:`solve` / :func:`card_values`: the exact value of a perfect-information position (an
  engine during trick play, every hand known) and of each legal card of the seat to act, as that
  seat's hand-score margin (its team's score minus the other team's; see
  :class:`~pinochle_env.kernel.state.Scoring` for cutthroat).
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

from ..cards import card_to_str
from .adapter import Scoring, SearchAdapter, adapter_for
from .compiling import COMPILING_MESSAGE
from .sampling import DealConstraints, Deals, deal_constraints, sample_deals
from .solver import solve_side_values
from .state import PlayState
from .warm import compile_kernel

__all__ = [
    "COMPILING_MESSAGE",
    "DealConstraints",
    "Deals",
    "PlayState",
    "Scoring",
    "SearchAdapter",
    "Solution",
    "adapter_for",
    "card_values",
    "compile_kernel",
    "deal_constraints",
    "sample_deals",
    "solve",
]


@dataclass
class Solution:
    """The solved position: the best card for the seat to act, its margin, and every legal card's."""

    card: str
    margin: float
    values: dict[str, float]


def card_values(position: Any) -> dict[str, float]:
    """Each legal card of the seat to act with its exact value: that seat's hand-score margin when
    everyone plays perfectly from there, every hand known (an engine or a :class:`PlayState`)."""
    state = PlayState.of(position)
    cards, scores = solve_side_values(state)
    margins = state.scoring.margin(scores[cards], state.bonus) * state.scoring.factor[state.to_act]
    return {card_to_str(c): float(m) for c, m in zip(cards, margins, strict=True)}


def solve(position: Any) -> Solution:
    """The exact solution of a perfect-information position (see :func:`card_values`); of equally
    good cards the first in card order."""
    values = card_values(position)
    card = max(values, key=values.__getitem__)
    return Solution(card, values[card], values)
