"""Deals consistent with one seat's view, drawn in the compiled kernel (microseconds a deal).

The constraints are those of :class:`agents.search.original.sampling.DealSampler` (which replays each drawn deal
through the engine and stays as the reference of the original ``pimc`` bot):

- the seat's own cards, the cards it passed and received, and every card played stay as they are;
- each seat still holds the meld it showed, and its hand at meld time scores exactly that meld
  (the same points and the same cards shown);
- every card played was legal for the hand its player then held (a player who did not follow
  suit had none of it, one who did not trump had no trump, one who did not head the trick or
  over-trump had no card that could, under the game's ``head_rule`` and ``must_overtrump``);
- a defender, who never sees the passes, gets a random guess of them, drawn from the declarer's
  and its partner's hands at meld, for the play-outs' pass knowledge.

Hidden cards are dealt most constrained first, each to a holder that may take it with probability
proportional to the cards it still lacks; a deal that breaks the meld condition is drawn again,
then drawn checking each card against the meld, and as a last resort without the meld condition
(``Deals.modes`` says which), so a deal comes back whenever the play constraints allow one.

Views taken before meld (the auction, trump and passing) get deals *as dealt*: the seat's own
dealt hand (and in sequential passing, the declarer the cards its partner passed it), the other
cards uniformly among the others. The calls of the auction and the help flags are not read: the
agents' bidding is unknown, and uniform deals are the fallback the search bots document.

Cutthroat: the declarer's buried cards are a pile of their own for an opponent (they count with
the declarer's hand at meld), and a widow card an opponent cannot place elsewhere stays with the
declarer's side. The two-handed game's phase 2 needs no drawing: every card is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import COPIES, NUM_TYPES
from ..rules.switches import CHOICES
from .compiled import deals as D
from .state import HAND_SIZES, card_values, view_gifts
from .warm import compile_kernel

#: Phases whose views get deals as dealt (before meld), per variant.
BEFORE_MELD = {"partnership": ("AUCTION", "TRUMP", "PASS_TO_DECLARER", "PASS_BACK"), "cutthroat": ("AUCTION",)}


@dataclass
class Deals:
    """Drawn deals: ``hands`` (N, seats, 24) as they are now (``dealt`` false) or as dealt (true),
    ``gifts`` (N, seats, 24) each seat's pass knowledge in that deal, ``bonus`` (N,) the maximising
    side's points outside tricks (the cutthroat buried counters), ``modes`` (N,) how each was drawn
    (0 quick, 1 careful, 2 without the meld condition)."""

    hands: np.ndarray
    gifts: np.ndarray
    bonus: np.ndarray
    modes: np.ndarray
    dealt: bool

    def __len__(self) -> int:
        return len(self.hands)

    def subset(self, index: Any) -> Deals:
        """The deals at ``index`` (an index array or slice), in that order."""
        return Deals(self.hands[index], self.gifts[index], self.bonus[index], self.modes[index], self.dealt)


class DealConstraints:
    """What one view says about where the hidden cards are, as the kernel's arrays; :meth:`draw`."""

    def __init__(self, view: Any) -> None:
        rules = view.rules
        self.view = view
        self.rules = rules
        self.seats = rules.num_seats
        variant = rules.variant
        phase = view.phase.name
        if variant == "two_hand":
            raise ValueError("the two-handed game needs no deal drawing in phase 2, and phase 1 is not sampled here")
        self.dealt = phase in BEFORE_MELD[variant]
        if variant == "cutthroat" and not self.dealt and phase not in ("PLAY", "THROW_IN"):
            raise ValueError(f"cutthroat deals are drawn for the auction and for play, not phase {phase.lower()}")
        if self.dealt:
            self._before_meld()
        else:
            self._from_meld()
        self.pool = np.array(
            [c for c in range(NUM_TYPES) for _ in range(max(0, COPIES - int(self._placed[c])))], dtype=np.int64
        )

    # ------------------------------------------------------------------ before meld

    def _before_meld(self) -> None:
        view, seats = self.view, self.seats
        hand_size = HAND_SIZES[self.rules.variant]
        dealt = np.array(view.hand, dtype=np.int64)
        extra = 1 if self.rules.variant == "cutthroat" else 0  # the widow
        known = np.zeros((seats + extra, NUM_TYPES), dtype=np.int64)
        if self.rules.variant == "partnership":
            passed = np.bincount(np.array(view.cards_passed, dtype=np.int64), minlength=NUM_TYPES)
            received = np.bincount(np.array(view.cards_received, dtype=np.int64), minlength=NUM_TYPES)
            dealt = dealt + passed - received
            if view.rules.pass_mode == "sequential" and len(view.cards_received):
                known[(view.seat + 2) % 4] = received  # the partner was dealt what it passed
        known[view.seat] = dealt
        sizes = np.full(seats + extra, hand_size, dtype=np.int64)
        if extra:
            sizes[seats] = 3
        self.known = known
        self.need = sizes - known.sum(axis=1)
        self.holder_seat = np.array(list(range(seats)) + [-1] * extra, dtype=np.int64)
        self.forbidden = np.zeros(seats + extra, dtype=np.int64)
        self.meld_forbidden = self.forbidden
        self.played_by = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        self.target_points = np.zeros(seats, dtype=np.int64)
        self.target_shown = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        self.check = np.zeros(seats, dtype=np.int64)
        self.trump = 0
        self._placed = known.sum(axis=0)
        self._passes: tuple[list[int], list[int]] | None = None
        no_tricks = np.zeros(0, dtype=np.int64)
        self.history = D.History(np.zeros((0, 4), dtype=np.int64), no_tricks, no_tricks)

    # ------------------------------------------------------------------ from meld on

    def _from_meld(self) -> None:
        view, rules, seats = self.view, self.rules, self.seats
        compile_kernel()
        played_by = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        tricks = [*view.tricks, (view.trick_leader, list(view.trick), -1)]
        history = np.zeros((len(tricks), 4), dtype=np.int64)
        leaders = np.zeros(len(tricks), dtype=np.int64)
        sizes = np.zeros(len(tricks), dtype=np.int64)
        for t, (leader, cards, _) in enumerate(tricks):
            history[t, : len(cards)] = cards
            leaders[t], sizes[t] = leader, len(cards)
            for position, c in enumerate(cards):
                played_by[(leader + position) % seats, c] += 1
        self.history = D.History(history, leaders, sizes)
        forbidden = np.zeros(seats, dtype=np.int64)
        D.forbidden_by_plays(
            self.history, seats, view.seat, view.trump, CHOICES["head_rule"].index(rules.head_rule),
            int(rules.must_overtrump), forbidden,
        )  # fmt: skip
        hand_size = HAND_SIZES[rules.variant]
        shown = np.array([meld.shown for meld in view.meld], dtype=np.int64)
        floors = shown.copy()
        self._passes = self._pass_lists()
        declarer = view.declarer
        if self._passes is not None and rules.pass_count:
            to_declarer, back = (np.bincount(np.array(p, dtype=np.int64), minlength=NUM_TYPES) for p in self._passes)
            partner = (declarer + 2) % 4
            if view.seat == declarer:
                floors[partner] = np.maximum(floors[partner], back)
            else:  # sequential passing lets the declarer return cards it was just given
                kept = np.maximum(0, to_declarer - back) if rules.pass_mode == "sequential" else to_declarer
                floors[declarer] = np.maximum(floors[declarer], kept)
        known = np.maximum(0, floors - played_by)
        known[view.seat] = view.hand
        sizes_now = hand_size - played_by.sum(axis=1)
        holder_seat = list(range(seats))
        if rules.variant == "cutthroat":
            sizes_now[declarer] = hand_size - played_by[declarer].sum()
            if view.seat != declarer:  # the buried pile: a holder of its own, at meld with the declarer
                holder_seat.append(declarer)
                known = np.vstack([known, np.zeros((1, NUM_TYPES), dtype=np.int64)])
                sizes_now = np.append(sizes_now, 3)
                forbidden = np.append(forbidden, 0)
        self.holder_seat = np.array(holder_seat, dtype=np.int64)
        self.known = known
        self.need = sizes_now - known.sum(axis=1)
        self.need[view.seat] = 0
        self.played_by = played_by
        self.target_points = np.array([meld.points for meld in view.meld], dtype=np.int64)
        self.target_shown = shown
        self.check = np.array([int(p != view.seat) for p in range(seats)], dtype=np.int64)
        self.trump = view.trump
        placed = known.sum(axis=0) + played_by.sum(axis=0)
        if rules.variant == "cutthroat" and view.seat == declarer:
            placed = placed + np.bincount(np.array(view.buried, dtype=np.int64), minlength=NUM_TYPES)
            self.check[declarer] = 0
        self._placed = placed
        self.forbidden = forbidden
        if rules.variant == "cutthroat" and view.seat != declarer:
            self._keep_widow_with_declarer(placed)
        pool_bits = sum(1 << c for c in range(NUM_TYPES) if placed[c] < COPIES)
        surely = known[:seats] + played_by
        breakers = np.zeros(len(self.holder_seat), dtype=np.int64)
        extras = CHOICES["run_extras"].index(rules.run_extras)
        D.meld_breakers(
            surely, self.holder_seat, pool_bits, self.target_points, self.check, view.trump, extras, breakers
        )
        self.meld_forbidden = self.forbidden | breakers

    def _pass_lists(self) -> tuple[list[int], list[int]] | None:
        """(cards passed to the declarer, cards passed back) when the seat saw both, else None."""
        view = self.view
        if self.rules.variant != "partnership":
            return None
        if view.seat == view.declarer:
            return list(view.cards_received), list(view.cards_passed)
        if view.seat == (view.declarer + 2) % 4:
            return list(view.cards_passed), list(view.cards_received)
        return None

    def _keep_widow_with_declarer(self, placed: np.ndarray) -> None:
        """A widow card type whose every unseen copy came from the widow is the declarer's (in hand
        or buried), never the other opponent's."""
        view = self.view
        widow = np.bincount(np.array(view.widow, dtype=np.int64), minlength=NUM_TYPES)
        unseen = COPIES - placed
        other = next(p for p in range(self.seats) if p not in (view.seat, view.declarer))
        for c in range(NUM_TYPES):
            from_widow = widow[c] - min(widow[c], self.played_by[view.declarer, c])
            if unseen[c] > 0 and from_widow >= unseen[c]:
                self.forbidden[other] |= 1 << c

    # ------------------------------------------------------------------ drawing

    def draw(self, count: int, seed: int) -> Deals:
        """Up to ``count`` deals (fewer only if the play constraints leave none), from ``seed``."""
        compile_kernel()
        holders = len(self.holder_seat)
        out = np.zeros((count, holders, NUM_TYPES), dtype=np.int64)
        modes = np.zeros(count, dtype=np.int64)
        holdings = D.Holdings(
            self.known, self.need, self.forbidden, self.meld_forbidden, self.pool, self.holder_seat, self.played_by,
            self.target_points, self.target_shown, self.check, self.trump,
            CHOICES["run_extras"].index(self.rules.run_extras),
        )  # fmt: skip
        drawn = D.draw_deals(holdings, np.uint64(seed), out, modes)
        out, modes = out[:drawn], modes[:drawn]
        seats = self.seats
        hands = out[:, :seats].astype(np.int8)
        bonus = np.zeros(drawn, dtype=np.int64)
        if holders > seats:  # the cutthroat buried pile, seen by an opponent
            values = card_values(self.rules)
            bonus = (out[:, seats] * values).sum(axis=1)
        elif self.rules.variant == "cutthroat" and not self.dealt:
            bonus[:] = int(sum(int(card_values(self.rules)[c]) for c in self.view.buried))
        gifts = self._gifts(hands, seed ^ 0x5DEECE66D)
        return Deals(hands, gifts, bonus, modes, self.dealt)

    def _gifts(self, hands: np.ndarray, seed: int) -> np.ndarray:
        """Each deal's pass knowledge: the view's own where it shows both passes, else a guess
        (:func:`~pinochle_env.kernel.compiled.deals.guess_gifts`)."""
        view, rules = self.view, self.rules
        count = len(hands)
        gifts = np.zeros((count, self.seats, NUM_TYPES), dtype=np.int64)
        if self.dealt or rules.variant != "partnership" or not rules.pass_count:
            return gifts
        if self._passes is not None:
            gifts[:] = view_gifts(view)
            return gifts
        sequential = rules.pass_mode == "sequential"
        D.guess_gifts(hands, self.played_by, view.declarer, rules.pass_count, sequential, np.uint64(seed), gifts)
        return gifts


def sample_deals(view: Any, count: int, seed: int = 0) -> Deals:
    """``count`` deals consistent with ``view`` (see the module docstring), reproducible for ``seed``."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    return DealConstraints(view).draw(count, seed)
