"""What the search kernel needs to know of a game: its :class:`SearchAdapter`, and its hand :class:`Scoring`.

The kernel's code (:class:`~pinochle_env.kernel.state.PlayState`, the deal drawing of
:mod:`pinochle_env.kernel.sampling`, the solver's inputs) is the same for every game; what differs
(which cards a seat holds in its view, who plays on which side, how a side's trick points become a
hand score, what the passes or a widow say about the hidden cards) each game declares in a module of
its own package, ``pinochle_env/games/<game>/search.py``, named by its kit
(:attr:`pinochle_env.games.kit.VariantKit.search`) and imported the first time the kernel meets the
game (:func:`adapter_for`). The defaults here fit a game whose declarer plays alone against the
others, without passing and without hidden piles.
"""

from __future__ import annotations

import functools
import pkgutil
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..cards import NUM_TYPES
from ..games.kit import variant_kit
from ..rules.switches import Rules

#: The trick points of a whole hand (the last trick's 10 included).
ALL_POINTS = 250


@functools.lru_cache(maxsize=64)
def adapter_for(rules: Rules) -> SearchAdapter:
    """The search adapter of ``rules.variant`` for this rule set (``ValueError`` for a game whose kit
    declares none: the kernel does not play it)."""
    reference = variant_kit(rules).search
    if reference is None:
        raise ValueError(f"the search kernel does not play variant={rules.variant!r}")
    adapter: SearchAdapter = pkgutil.resolve_name(reference)(rules)
    return adapter


@dataclass(frozen=True)
class Rebuilt:
    """A whole hand rebuilt from a view (:meth:`SearchAdapter.rebuild`): the deck in dealing order
    (the engine's ``deal_from_deck`` deals it) and the decisions from the deal on, as action ids."""

    deck: list[int]
    actions: list[int]


@dataclass
class Scoring:
    """Hand-score margins from the maximising side's final trick points (vectorised), for one hand.

    ``margin(s, bonus)`` is the maximising side's margin for final side scores ``s``: the side's
    trick points of the whole hand, plus one for a sweep by it and minus one for a sweep against
    it when ``save_meld="trick"`` (so that a side keeping or losing its meld by a trick shows in
    the value); ``bonus`` is what the side has outside tricks (the cutthroat declarer's buried
    counters, which also leave that much less in play). ``factor[seat]`` turns it into a seat's own
    margin (-1 for the other team). Each game's adapter makes its own (:meth:`SearchAdapter.scoring`).
    """

    contract: int
    meld: tuple[int, ...]  # per seat
    declarer: int
    save_meld: str
    save_meld_applies_to: str
    saved_already: tuple[bool, ...]  # per seat: it has taken a trick point (or a trick) already
    factor: tuple[float, ...]

    def margin(self, s: Any, bonus: Any = 0) -> np.ndarray:
        raise NotImplementedError

    def thrown_in(self) -> float:
        """The maximising side's margin when the declarer throws the hand in (games with a throw-in)."""
        raise NotImplementedError


class AuctionScoring(Scoring):
    """The scoring of the auction games: the declaring side makes its contract with meld (saved by a
    trick point, or a trick, unless ``save_meld`` says otherwise) plus trick points, or loses the
    contract; the others score what they saved. :meth:`others` says who the others are."""

    def others(self, keeps_all: Any, other_has: Any) -> tuple[int, Any, int]:
        """(the declaring side's meld, what the others saved, how many others the margin averages)."""
        raise NotImplementedError

    def margin(self, s: Any, bonus: Any = 0) -> np.ndarray:
        s = np.asarray(s, dtype=np.float64)
        trick_total = ALL_POINTS - np.asarray(bonus, dtype=np.float64)
        points = np.clip(s, 0, trick_total)
        own_points = points + bonus
        by_tricks = self.save_meld == "trick"
        side_has = s != -1 if by_tricks else own_points >= 1
        other_has = s != trick_total + 1 if by_tricks else own_points <= ALL_POINTS - 1
        keeps_all = self.save_meld == "none"
        own_kept = keeps_all | (self.save_meld_applies_to == "defenders") | side_has
        side_meld, saved_other, other_count = self.others(keeps_all, other_has)
        own = np.where(own_kept, side_meld, 0) + own_points
        score = np.where(own >= self.contract, own, -self.contract)
        return score - (saved_other + ALL_POINTS - own_points) / other_count

    def thrown_in(self) -> float:
        _, saved_other, other_count = self.others(True, True)
        return float(-self.contract - saved_other / other_count)


class SearchAdapter:
    """What the kernel asks of one game under one rule set (see the module docstring); each game's
    ``search`` module subclasses it. A game that plays its tricks with the kernel sets the class
    attributes; the methods' defaults fit a declarer playing alone."""

    #: Tricks in a hand, and cards in a hand when trick play starts.
    total_tricks: ClassVar[int]
    hand_size: ClassVar[int]
    #: Tricks left (the one in progress included) from which the search bot solves every card decision
    #: exactly by default: where the solver's time per deal stays near a millisecond
    #: (benchmarks/solver_speed.py).
    solve_from: ClassVar[int]
    #: Phases (by name) of the views the kernel takes a position from.
    play_phases: ClassVar[tuple[str, ...]] = ("PLAY", "THROW_IN")
    #: Phases whose views get deals as dealt (before meld); the others get deals of the hands now.
    dealt_phases: ClassVar[tuple[str, ...]] = ()
    #: Whether the simple play-out policy treats every trick as the last (the rules vector's
    #: ``R_SIMPLE_LAST``): where a follower must win a trick it can win, whatever it holds.
    simple_last: ClassVar[bool] = False
    #: Whether :meth:`rebuild` rebuilds a whole hand from a view in this game.
    rebuilds: ClassVar[bool] = False
    #: The game's :class:`~pinochle_env.kernel.sampling.DealConstraints`, as ``module:Class``
    #: (None: its hidden cards are never drawn).
    deals: ClassVar[str | None] = None

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    # ------------------------------------------------------------------ positions

    def check_view(self, view: Any) -> None:
        """``ValueError`` unless the kernel can take a position from ``view``."""
        phase = view.phase.name
        if phase not in self.play_phases:
            raise ValueError(f"the kernel needs a position of trick play (or the throw-in), not phase {phase.lower()}")

    def own_cards(self, view: Any) -> Any:
        """The cards (counts) the viewing seat holds for trick play."""
        return view.hand

    def current_hands(self, game: Any) -> list[list[int]]:
        """Every seat's cards (counts) now, in an engine during trick play."""
        return [list(hand) for hand in game.hands]

    def shown_meld(self, view: Any) -> tuple[np.ndarray, list[int]]:
        """Per seat: the meld cards it showed (S, 24) and its meld points."""
        shown = np.zeros((self.rules.num_seats, NUM_TYPES), dtype=np.int64)
        points = [0] * self.rules.num_seats
        for p, meld in enumerate(view.meld):
            shown[p] = meld.shown
            points[p] = meld.points
        return shown, points

    def side(self, declarer: int) -> np.ndarray:
        """1 for each seat on the maximising side, else 0: the declarer alone."""
        return np.array([int(p == declarer) for p in range(self.rules.num_seats)], dtype=np.int64)

    def scoring(self, view: Any, meld_points: list[int], declarer: int, saved: tuple[bool, ...]) -> Scoring:
        """The :class:`Scoring` of ``view``'s hand (``saved``: per seat, it has taken a trick point, or a
        trick under ``save_meld="trick"``, already)."""
        raise NotImplementedError

    @property
    def mode(self) -> int:
        """The solver's mode: 1 when the tricks taken count beyond their points (``save_meld="trick"``)."""
        return int(self.rules.save_meld == "trick")

    @property
    def sequential_passing(self) -> bool:
        """Whether the partner's cards reach the declarer before it passes back (the rules vector)."""
        return False

    def view_gifts(self, view: Any) -> np.ndarray:
        """Per seat (S, 24), the cards the view shows it knows its partner holds from passing."""
        return np.zeros((self.rules.num_seats, NUM_TYPES), dtype=np.int64)

    def private_gifts(self, game: Any) -> np.ndarray:
        """Per seat (S, 24), the cards each seat knows its partner holds from passing, in an engine."""
        return np.zeros((self.rules.num_seats, NUM_TYPES), dtype=np.int64)

    def known_deal(self, view: Any, state: Any) -> np.ndarray | None:
        """Every hand (S, 24) where ``view`` leaves no card hidden (``state``: the view's
        :class:`~pinochle_env.kernel.state.PlayState`), else None: the search draws deals."""
        return None

    # ------------------------------------------------------------------ deals

    def rebuild(self, view: Any, hands: np.ndarray, dealt: bool, rng: np.random.Generator) -> Rebuilt | None:
        """A whole hand that leads to ``view``'s position with drawn ``hands`` (seats x 24 counts: as
        dealt where ``dealt``, else as they are now; :class:`~pinochle_env.kernel.sampling.Deals`):
        the deck order that deals it and every decision since, the choices ``view`` does not show
        (another seat's passes) drawn from ``rng``; None where the hands imply no such hand.
        Outside drivers that need whole states consistent with a seat's information (OpenSpiel's
        ``resample_from_infostate``) rebuild them so and check the view. ``ValueError`` in a game
        that does not declare how."""
        raise ValueError(f"the search kernel cannot rebuild a hand of variant={self.rules.variant!r} from a view")

    def deal_constraints(self, view: Any) -> Any:
        """The :class:`~pinochle_env.kernel.sampling.DealConstraints` of ``view``: of the class
        :attr:`deals` names (``ValueError`` where the game's hidden cards are never drawn)."""
        if self.deals is None:
            raise ValueError(f"the search kernel draws no deals in variant={self.rules.variant!r}")
        return pkgutil.resolve_name(self.deals)(view)
