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

What a game adds (the passes of the partnership game; cutthroat's widow, and the declarer's buried
cards, a pile of their own for an opponent) it adds in a subclass of :class:`DealConstraints` that
its search adapter names (:mod:`pinochle_env.kernel.adapter`); :func:`deal_constraints` makes the
right one for a view. The two-handed game's phase 2 needs no drawing: every card is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import COPIES, NUM_TYPES
from ..engine import is_engine, is_integer
from ..rules.switches import CHOICES
from .adapter import adapter_for
from .compiled import deals as D
from .state import card_values
from .warm import compile_kernel


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
    """What one view says about where the hidden cards are, as the kernel's arrays; :meth:`draw`.

    The hooks (the methods below the drawing) add what a game's passes, widow or hidden piles say;
    their defaults fit a game without them. Make one with :func:`deal_constraints`.
    """

    def __init__(self, view: Any) -> None:
        rules = view.rules
        self.view = view
        self.rules = rules
        self.seats = rules.num_seats
        self.adapter = adapter_for(rules)
        phase = view.phase.name
        self.dealt = phase in self.adapter.dealt_phases
        if not self.dealt and phase not in self.adapter.play_phases:
            drawn_for = ", ".join(name.lower() for name in (*self.adapter.dealt_phases, *self.adapter.play_phases))
            raise ValueError(f"deals are drawn for the phases {drawn_for} of this game, not {phase.lower()}")
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
        piles = self.piles_before_meld()
        known = np.zeros((seats + len(piles), NUM_TYPES), dtype=np.int64)
        self.known_before_meld(known)
        known[view.seat] = self.dealt_hand()
        sizes = np.array([self.adapter.hand_size] * seats + piles, dtype=np.int64)
        self.known = known
        self.need = sizes - known.sum(axis=1)
        self.holder_seat = np.array(list(range(seats)) + [-1] * len(piles), dtype=np.int64)
        self.forbidden = np.zeros(seats + len(piles), dtype=np.int64)
        self.meld_forbidden = self.forbidden
        self.played_by = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        self.target_points = np.zeros(seats, dtype=np.int64)
        self.target_shown = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        self.check = np.zeros(seats, dtype=np.int64)
        self.trump = 0
        self._placed = known.sum(axis=0)
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
        shown = np.array([meld.shown for meld in view.meld], dtype=np.int64)
        floors = shown.copy()
        self.add_known_cards(floors)
        known = np.maximum(0, floors - played_by)
        known[view.seat] = view.hand
        sizes_now = self.adapter.hand_size - played_by.sum(axis=1)
        holder_seat = list(range(seats))
        for seat, size in self.piles_from_meld():  # a pile of a seat's: a holder of its own, at meld with it
            holder_seat.append(seat)
            known = np.vstack([known, np.zeros((1, NUM_TYPES), dtype=np.int64)])
            sizes_now = np.append(sizes_now, size)
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
        placed = known.sum(axis=0) + played_by.sum(axis=0) + self.own_hidden_cards()
        self._placed = placed
        self.forbidden = forbidden
        self.forbid_more(placed)
        pool_bits = sum(1 << c for c in range(NUM_TYPES) if placed[c] < COPIES)
        surely = known[:seats] + played_by
        breakers = np.zeros(len(self.holder_seat), dtype=np.int64)
        extras = CHOICES["run_extras"].index(rules.run_extras)
        D.meld_breakers(
            surely, self.holder_seat, pool_bits, self.target_points, self.check, view.trump, extras, breakers
        )
        self.meld_forbidden = self.forbidden | breakers

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
        if holders > seats:  # the points of the first pile: the maximising side's outside tricks
            bonus = (out[:, seats] * card_values(self.rules)).sum(axis=1)
        elif not self.dealt:
            bonus[:] = self.known_bonus()
        gifts = self.gifts(hands, seed ^ 0x5DEECE66D)
        return Deals(hands, gifts, bonus, modes, self.dealt)

    # ------------------------------------------------------------------ what a game adds

    def dealt_hand(self) -> np.ndarray:
        """The cards (counts) the viewing seat was dealt, as a view before meld shows them."""
        return np.array(self.view.hand, dtype=np.int64)

    def known_before_meld(self, known: np.ndarray) -> None:
        """Add to ``known`` (holders, 24) the other holders' dealt cards that the view shows."""

    def piles_before_meld(self) -> list[int]:
        """The sizes of the piles dealt besides the hands (a widow), each a holder of its own."""
        return []

    def add_known_cards(self, floors: np.ndarray) -> None:
        """Raise ``floors`` (seats, 24: what each seat surely held at meld, from the meld shown) by
        what else the view shows a seat held (cards passed to it)."""

    def piles_from_meld(self) -> list[tuple[int, int]]:
        """(seat, size) of each hidden pile of a seat's, besides its hand, that counts with its hand at
        meld (the cutthroat declarer's buried cards, seen by an opponent)."""
        return []

    def own_hidden_cards(self) -> np.ndarray:
        """The cards (counts) out of play that the viewing seat alone knows (its own buried cards)."""
        return np.zeros(NUM_TYPES, dtype=np.int64)

    def forbid_more(self, placed: np.ndarray) -> None:
        """Bar more cards from holders in ``self.forbidden`` (``placed``: the cards whose place is known)."""

    def known_bonus(self) -> int:
        """The maximising side's points outside tricks that the view shows (deals of the hands now)."""
        return 0

    def gifts(self, hands: np.ndarray, seed: int) -> np.ndarray:
        """Each deal's pass knowledge (N, seats, 24): none in a game without passing."""
        return np.zeros((len(hands), self.seats, NUM_TYPES), dtype=np.int64)


def deal_constraints(view: Any) -> DealConstraints:
    """The :class:`DealConstraints` of ``view``, of the class its game's search adapter names."""
    return adapter_for(view.rules).deal_constraints(view)


def sample_deals(view: Any, count: int, seed: int = 0) -> Deals:
    """``count`` deals consistent with ``view`` (see the module docstring), reproducible for ``seed``."""
    if is_engine(view):
        raise TypeError("sample_deals takes a seat's view (game.view(seat)), not a game: it draws the hands not seen")
    if not is_integer(count) or count < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    return deal_constraints(view).draw(count, checked_stream_seed(seed))


def checked_stream_seed(seed: Any, count: int = 1) -> int:
    """``seed`` as the kernel's random streams take it: ``count`` streams ``seed``, ``seed + 1``, ...
    each an unsigned 64-bit integer (``ValueError`` naming the range otherwise)."""
    if not is_integer(seed) or not 0 <= seed <= 2**64 - count:
        raise ValueError(f"seed must be an integer 0..{2**64 - count}, got {seed!r}")
    return int(seed)
