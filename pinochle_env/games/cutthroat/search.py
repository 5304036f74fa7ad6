"""What the search kernel needs to know of cutthroat (its kit's ``search``): the declarer plays alone
against the two others; it takes the widow and buries cards, whose points count for it, which an
opponent sees neither of but the widow shown.

Imported by the kernel only (:func:`pinochle_env.kernel.adapter.adapter_for`), so ``import
pinochle_env`` stays free of numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import COPIES, NUM_TYPES
from ...kernel.adapter import AuctionScoring, Scoring, SearchAdapter
from ...kernel.sampling import DealConstraints
from ...kernel.state import card_values
from .game import BURY_COUNT, HAND_SIZE, NUM_TRICKS


class CutthroatScoring(AuctionScoring):
    """The declarer's score minus the mean of the opponents' (an opponent who has taken nothing yet is
    counted as saving its meld unless the declarer sweeps the rest: the solver plays the declarer
    against both others and does not follow each opponent's own points)."""

    def others(self, keeps_all: Any, other_has: Any) -> tuple[int, Any, int]:
        others = [p for p in range(len(self.meld)) if p != self.declarer]
        saved = [np.where(keeps_all | self.saved_already[p] | other_has, self.meld[p], 0) for p in others]
        return self.meld[self.declarer], np.sum(saved, axis=0), len(others)


class CutthroatSearch(SearchAdapter):
    """Cutthroat's search adapter (see :class:`~pinochle_env.kernel.adapter.SearchAdapter`)."""

    total_tricks = NUM_TRICKS
    hand_size = HAND_SIZE
    solve_from = 5
    dealt_phases = ("AUCTION",)
    deals = "pinochle_env.games.cutthroat.search:CutthroatDeals"

    def scoring(self, view: Any, meld_points: list[int], declarer: int, saved: tuple[bool, ...]) -> Scoring:
        """``factor``: -1/2 for an opponent, whose mean margin that is."""
        factor = tuple(1.0 if p == declarer else -0.5 for p in range(self.rules.num_seats))
        rules = self.rules
        return CutthroatScoring(view.contract, tuple(meld_points), declarer, rules.save_meld,
                                rules.save_meld_applies_to, saved, factor)  # fmt: skip


class CutthroatDeals(DealConstraints):
    """Deals of cutthroat: the widow before meld, the declarer's buried cards after (see
    :mod:`pinochle_env.kernel.sampling`)."""

    def piles_before_meld(self) -> list[int]:
        """The widow."""
        return [BURY_COUNT]

    def piles_from_meld(self) -> list[tuple[int, int]]:
        """The declarer's buried cards, for an opponent: at meld they were the declarer's."""
        view = self.view
        return [] if view.seat == view.declarer else [(view.declarer, BURY_COUNT)]

    def own_hidden_cards(self) -> np.ndarray:
        """The declarer's own buried cards."""
        view = self.view
        if view.seat != view.declarer:
            return super().own_hidden_cards()
        return np.bincount(np.array(view.buried, dtype=np.int64), minlength=NUM_TYPES)

    def forbid_more(self, placed: np.ndarray) -> None:
        """For an opponent: a widow card type whose every unseen copy came from the widow is the
        declarer's (in hand or buried), never the other opponent's."""
        view = self.view
        if view.seat == view.declarer:
            return
        widow = np.bincount(np.array(view.widow, dtype=np.int64), minlength=NUM_TYPES)
        unseen = COPIES - placed
        other = next(p for p in range(self.seats) if p not in (view.seat, view.declarer))
        for c in range(NUM_TYPES):
            from_widow = widow[c] - min(widow[c], self.played_by[view.declarer, c])
            if unseen[c] > 0 and from_widow >= unseen[c]:
                self.forbidden[other] |= 1 << c

    def known_bonus(self) -> int:
        """The points of the declarer's buried cards, which only the declarer sees."""
        values = card_values(self.rules)
        return int(sum(int(values[c]) for c in getattr(self.view, "buried", [])))
