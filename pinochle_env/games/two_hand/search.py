"""What the search kernel needs to know of the two-handed game (its kit's ``search``): the kernel
plays its phase 2 only, the last 12 tricks with strict rules once the stock is gone, where every
card is known (a seat's own and what its opponent showed, played or must hold), so nothing is drawn;
seat 0 against seat 1, each with the meld it declared.

Imported by the kernel only (:func:`pinochle_env.kernel.adapter.adapter_for`), so ``import
pinochle_env`` stays free of numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import COPIES, NUM_TYPES
from ...kernel.adapter import ALL_POINTS, Scoring, SearchAdapter
from .game import HAND_SIZE, NUM_TRICKS, PHASE_TRICKS


class TwoHandScoring(Scoring):
    """Seat 0's score minus seat 1's: each its meld plus its trick points (no contract)."""

    def margin(self, s: Any, bonus: Any = 0) -> np.ndarray:
        s = np.asarray(s, dtype=np.float64)
        return (self.meld[0] + s) - (self.meld[1] + ALL_POINTS - s)


class TwoHandSearch(SearchAdapter):
    """The two-handed game's search adapter (see :class:`~pinochle_env.kernel.adapter.SearchAdapter`)."""

    total_tricks = NUM_TRICKS
    hand_size = HAND_SIZE
    solve_from = PHASE_TRICKS
    play_phases = ("PLAY2",)
    simple_last = True

    def check_view(self, view: Any) -> None:
        if view.phase.name not in self.play_phases:
            raise ValueError("the kernel plays the two-handed game's phase 2 only (once the stock is gone)")

    def own_cards(self, view: Any) -> Any:
        return view.concealed

    def current_hands(self, game: Any) -> list[list[int]]:
        """The concealed cards (phase 2 has no table)."""
        return [list(hand) for hand in game.concealed]

    def shown_meld(self, view: Any) -> tuple[np.ndarray, list[int]]:
        """No meld cards stay on the table in phase 2; the points declared."""
        return np.zeros((self.rules.num_seats, NUM_TYPES), dtype=np.int64), list(view.meld_points)

    def side(self, declarer: int) -> np.ndarray:
        """Seat 0 (the game has no declarer)."""
        return np.array([1, 0], dtype=np.int64)

    def scoring(self, view: Any, meld_points: list[int], declarer: int, saved: tuple[bool, ...]) -> Scoring:
        return TwoHandScoring(0, tuple(meld_points), 0, "none", "defenders", saved, (1.0, -1.0))

    @property
    def mode(self) -> int:
        """Meld needs no trick to count: the tricks taken count for their points only."""
        return 0

    def known_deal(self, view: Any, state: Any) -> np.ndarray:
        """The opponent holds every card neither played nor in the seat's hand."""
        hands = state.hands.copy()
        seen = np.array(view.concealed) + state.played
        hands[1 - view.seat] = COPIES - seen
        return hands

    def deal_constraints(self, view: Any) -> Any:
        raise ValueError("the two-handed game needs no deal drawing in phase 2, and phase 1 is not sampled here")
