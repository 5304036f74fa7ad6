"""The compact state of trick play that the compiled kernel works on, built from an engine or a view.

:class:`PlayState` holds one position of trick play as small numpy arrays (the layout of
:mod:`pinochle_env.kernel.compiled.tricks`): the hands, the trick in progress, who leads, the tricks left,
each seat's trick points and tricks, what the heuristic play-out policy needs to know (cards played
by each seat, voids shown, meld shown, pass knowledge), the rule switches as integers, and the
*sides*: the solver maximises the points of one side (the declaring team in the partnership game,
the declarer in cutthroat, seat 0 in the two-handed game) and :class:`Scoring` turns the side's
points into hand-score margins.

It serves the partnership game and cutthroat from the start of play, and the two-handed game's
phase 2 (12 tricks with strict rules once the stock is gone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import COUNTING_VALUES, NUM_TYPES, RANK_OF, SUIT_OF, counts_from_cards
from ..rules.switches import CHOICES, Rules
from .compiled.tricks import Position

#: Tricks per hand, per variant (the two-handed game: 12 with the stock, then 12 without).
TOTAL_TRICKS = {"partnership": 12, "cutthroat": 15, "two_hand": 24}
#: Cards per hand at the start of play, per variant.
HAND_SIZES = {"partnership": 12, "cutthroat": 15, "two_hand": 12}
ALL_POINTS = 250


def card_values(rules: Rules) -> np.ndarray:
    """Trick points of each card type under ``rules.counting`` (int64, 24)."""
    table = COUNTING_VALUES[rules.counting]
    return np.array([table[RANK_OF[c]] for c in range(NUM_TYPES)], dtype=np.int64)


def rules_vector(rules: Rules, trump: int, declarer: int, simple_last: bool) -> np.ndarray:
    """The rule switches as the kernel's integer vector (indices ``R_*`` of the compiled module)."""
    seats = rules.num_seats
    sequential = rules.variant == "partnership" and rules.pass_mode == "sequential"
    return np.array(
        [
            seats,
            trump,
            CHOICES["head_rule"].index(rules.head_rule),
            int(rules.must_overtrump),
            declarer,
            int(sequential),
            int(simple_last),
            HAND_SIZES[rules.variant],
        ],
        dtype=np.int64,
    )


@dataclass
class Scoring:
    """Hand-score margins from the maximising side's final trick points (vectorised).

    ``margin(s, bonus)`` is the maximising side's margin for final side scores ``s``: the side's
    trick points of the whole hand, plus one for a sweep by it and minus one for a sweep against
    it when ``save_meld="trick"`` (so that a side keeping or losing its meld by a trick shows in
    the value); ``bonus`` is what the side has outside tricks (the cutthroat declarer's buried
    counters, which also leave that much less in play). The partnership margin is the declaring
    team's score minus the defenders'; cutthroat's is the declarer's score minus the mean of the
    opponents' (an opponent who has taken nothing yet is counted as saving its meld unless the
    declarer sweeps the rest: the solver plays the declarer against both others and does not
    follow each opponent's own points); the two-handed game's is seat 0's score minus seat 1's.
    ``factor[seat]`` turns it into a seat's own margin (-1 for the other team; -1/2 for a
    cutthroat opponent, whose mean margin that is).
    """

    variant: str
    contract: int
    meld: tuple[int, ...]  # per seat
    declarer: int
    save_meld: str
    save_meld_applies_to: str
    saved_already: tuple[bool, ...]  # per seat: it has taken a trick point (or a trick) already
    factor: tuple[float, ...]

    def margin(self, s: Any, bonus: Any = 0) -> np.ndarray:
        s = np.asarray(s, dtype=np.float64)
        if self.variant == "two_hand":
            return (self.meld[0] + s) - (self.meld[1] + ALL_POINTS - s)
        trick_total = ALL_POINTS - np.asarray(bonus, dtype=np.float64)
        points = np.clip(s, 0, trick_total)
        own_points = points + bonus
        by_tricks = self.save_meld == "trick"
        side_has = s != -1 if by_tricks else own_points >= 1
        other_has = s != trick_total + 1 if by_tricks else own_points <= ALL_POINTS - 1
        keeps_all = self.save_meld == "none"
        own_kept = keeps_all | (self.save_meld_applies_to == "defenders") | side_has
        if self.variant == "partnership":
            team = self.declarer % 2
            side_meld = self.meld[team] + self.meld[team + 2]
            other_meld = self.meld[1 - team] + self.meld[3 - team]
            saved_other = np.where(keeps_all | other_has, other_meld, 0)
            other_count = 1
        else:
            side_meld = self.meld[self.declarer]
            others = [p for p in range(3) if p != self.declarer]
            saved_other = np.sum(
                [np.where(keeps_all | self.saved_already[p] | other_has, self.meld[p], 0) for p in others], axis=0
            )
            other_count = 2
        own = np.where(own_kept, side_meld, 0) + own_points
        score = np.where(own >= self.contract, own, -self.contract)
        return score - (saved_other + ALL_POINTS - own_points) / other_count


@dataclass
class PlayState:
    """One position of trick play in the kernel's layout (see the module docstring).

    ``hands`` holds every seat's cards for a perfect-information position (:meth:`from_game`),
    or only the acting seat's when built from a view (:meth:`from_view`; the other hands come
    from sampled deals). ``gifts[p]`` counts the cards ``p`` knows its partner holds from passing.
    """

    rules: Rules
    trump: int
    declarer: int
    hands: np.ndarray  # int8 (S, 24)
    trick: np.ndarray  # int64 (4,): the first n are the trick in progress
    n: int
    leader: int
    left: int  # tricks still to finish, the one in progress included
    pts: np.ndarray  # int64 (S,): trick points taken so far
    tks: np.ndarray  # int64 (S,): tricks taken so far
    played: np.ndarray  # int64 (24,)
    played_by: np.ndarray  # int64 (S, 24)
    void: np.ndarray  # int64 (S,): bit s when the seat showed it lacks suit s (the heuristic's reading)
    shown: np.ndarray  # int64 (S, 24): meld cards shown
    gifts: np.ndarray  # int64 (S, 24)
    side: np.ndarray  # int64 (S,): 1 for the maximising side
    rules_vector: np.ndarray
    values: np.ndarray
    scoring: Scoring
    #: Points the maximising side has outside tricks, where the view shows them: the cutthroat
    #: declarer's buried counters (an opponent does not see them; its sampled deals place them).
    bonus: int = 0

    @property
    def seats(self) -> int:
        return self.rules.num_seats

    @property
    def to_act(self) -> int:
        return (self.leader + self.n) % self.seats

    @property
    def mode(self) -> int:
        """The solver's mode: 1 when the tricks taken count beyond their points (``save_meld="trick"``)."""
        return int(self.rules.variant != "two_hand" and self.rules.save_meld == "trick")

    def side_points(self) -> int:
        """Trick points the maximising side has taken so far."""
        return int(self.pts[self.side == 1].sum())

    def position(self) -> Position:
        """The public part of the position as the compiled play-outs take it (the trick copied)."""
        return Position(self.trick.copy(), self.n, self.leader, self.left, self.pts, self.tks, self.played,
                        self.played_by, self.void, self.shown)  # fmt: skip

    @classmethod
    def of(cls, position: Any) -> PlayState:
        """The state of ``position``: an engine during trick play, or a PlayState as it is."""
        return position if isinstance(position, PlayState) else cls.from_game(position)

    @classmethod
    def from_game(cls, game: Any) -> PlayState:
        """The perfect-information position of an engine during trick play (every hand known)."""
        state = cls.from_view(game.view(game.to_act), _private_gifts(game))
        state.hands = np.array(_current_hands(game), dtype=np.int8)
        values = state.values
        state.bonus = int(sum(int(values[c]) for c in getattr(game, "buried", [])))
        return state

    @classmethod
    def from_view(cls, view: Any, gifts: np.ndarray | None = None) -> PlayState:
        """The position a seat's view shows, its own hand only (``ValueError`` outside trick play;
        a view of the throw-in decision gives the position before the declarer's first lead).

        ``gifts`` defaults to the pass knowledge of the seat and its partner that the view shows
        (a defender knows none; sampled deals supply guesses for the other seats).
        """
        rules = view.rules
        variant = rules.variant
        phase = view.phase.name
        if variant == "two_hand" and phase != "PLAY2":
            raise ValueError("the kernel plays the two-handed game's phase 2 only (once the stock is gone)")
        if phase not in ("PLAY", "PLAY2", "THROW_IN"):
            raise ValueError(f"the kernel needs a position of trick play (or the throw-in), not phase {phase.lower()}")
        seats = rules.num_seats
        values = card_values(rules)
        trump = view.trump
        declarer = getattr(view, "declarer", 0)
        total = TOTAL_TRICKS[variant]
        pts = np.zeros(seats, dtype=np.int64)
        tks = np.zeros(seats, dtype=np.int64)
        played_by = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        void = np.zeros(seats, dtype=np.int64)
        for index, (leader, cards, winner) in enumerate(view.tricks):
            pts[winner] += sum(int(values[c]) for c in cards) + (10 if index == total - 1 else 0)
            tks[winner] += 1
            _note_plays(leader, cards, trump, seats, played_by, void)
        _note_plays(view.trick_leader, view.trick, trump, seats, played_by, void)
        trick = np.zeros(4, dtype=np.int64)
        trick[: len(view.trick)] = view.trick
        hands = np.zeros((seats, NUM_TYPES), dtype=np.int8)
        hands[view.seat] = view.concealed if variant == "two_hand" else view.hand
        shown = np.zeros((seats, NUM_TYPES), dtype=np.int64)
        meld_points = [0] * seats
        if variant == "two_hand":
            meld_points = list(view.meld_points)
        else:
            for p, meld in enumerate(view.meld):
                shown[p] = meld.shown
                meld_points[p] = meld.points
        if gifts is None:
            gifts = view_gifts(view)
        if variant == "partnership":
            side = np.array([int(p % 2 == declarer % 2) for p in range(seats)], dtype=np.int64)
        elif variant == "cutthroat":
            side = np.array([int(p == declarer) for p in range(seats)], dtype=np.int64)
        else:
            side = np.array([1, 0], dtype=np.int64)
        scoring = _scoring(view, meld_points, declarer, pts, tks)
        buried = getattr(view, "buried", [])
        return cls(
            rules=rules,
            trump=trump,
            declarer=declarer,
            hands=hands,
            trick=trick,
            n=len(view.trick),
            leader=view.trick_leader if view.trick_leader >= 0 else declarer,  # the throw-in: before the lead
            left=total - len(view.tricks),
            pts=pts,
            tks=tks,
            played=played_by.sum(axis=0),
            played_by=played_by,
            void=void,
            shown=shown,
            gifts=gifts,
            side=side,
            rules_vector=rules_vector(rules, trump, declarer, simple_last=variant == "two_hand"),
            values=values,
            scoring=scoring,
            bonus=int(sum(int(values[c]) for c in buried)),
        )


def _note_plays(leader: int, cards: list[int], trump: int, seats: int, played_by: np.ndarray, void: np.ndarray) -> None:
    """Count a trick's cards per seat and the voids they show (not following; not trumping either)."""
    if not cards:
        return
    led = SUIT_OF[cards[0]]
    for position, c in enumerate(cards):
        seat = (leader + position) % seats
        played_by[seat, c] += 1
        if SUIT_OF[c] != led:
            void[seat] |= 1 << led
            if SUIT_OF[c] != trump:
                void[seat] |= 1 << trump


def pass_gifts(rules: Rules, declarer: int, to_declarer: list[int], back: list[int]) -> np.ndarray:
    """Per seat, the cards it knows its partner holds from the passing: the declarer knows what it
    passed back, its partner what it passed (less, when passing is sequential, what came back)."""
    gifts = np.zeros((rules.num_seats, NUM_TYPES), dtype=np.int64)
    if rules.variant != "partnership" or not rules.pass_count or declarer < 0:
        return gifts
    given, returned = np.array(counts_from_cards(to_declarer)), np.array(counts_from_cards(back))
    gifts[declarer] = returned
    kept = np.maximum(0, given - returned) if rules.pass_mode == "sequential" else given
    gifts[(declarer + 2) % 4] = kept
    return gifts


def view_gifts(view: Any) -> np.ndarray:
    """The pass knowledge a view shows: both partners of the declaring team know both passes."""
    rules = view.rules
    gifts = np.zeros((rules.num_seats, NUM_TYPES), dtype=np.int64)
    if rules.variant != "partnership" or view.declarer < 0:
        return gifts
    partner = (view.declarer + 2) % 4
    if view.seat == view.declarer:
        return pass_gifts(rules, view.declarer, view.cards_received, view.cards_passed)
    if view.seat == partner:
        return pass_gifts(rules, view.declarer, view.cards_passed, view.cards_received)
    return gifts


def _private_gifts(game: Any) -> np.ndarray:
    """Every seat's pass knowledge in a partnership engine (from its passes), zeros elsewhere."""
    if game.rules.variant != "partnership":
        return np.zeros((game.rules.num_seats, NUM_TYPES), dtype=np.int64)
    return pass_gifts(game.rules, game.declarer, game.passed_to_declarer, game.passed_back)


def _current_hands(game: Any) -> list[list[int]]:
    """Every seat's cards now; in the two-handed game its concealed cards (phase 2 has no table)."""
    if game.rules.variant == "two_hand":
        return [list(hand) for hand in game.concealed]
    return [list(hand) for hand in game.hands]


def _scoring(view: Any, meld_points: list[int], declarer: int, pts: np.ndarray, tks: np.ndarray) -> Scoring:
    """The :class:`Scoring` of a view's hand."""
    rules = view.rules
    variant = rules.variant
    seats = rules.num_seats
    by_tricks = rules.save_meld == "trick"
    saved = tuple(bool(tks[p] if by_tricks else pts[p]) for p in range(seats))
    if variant == "partnership":
        factor = tuple(1.0 if p % 2 == declarer % 2 else -1.0 for p in range(seats))
    elif variant == "cutthroat":
        factor = tuple(1.0 if p == declarer else -0.5 for p in range(seats))
    else:
        return Scoring(variant, 0, tuple(meld_points), 0, "none", "defenders", saved, (1.0, -1.0))
    return Scoring(
        variant, view.contract, tuple(meld_points), declarer, rules.save_meld, rules.save_meld_applies_to, saved, factor
    )


def partnership_scores(
    rules: Rules,
    declarer: Any,
    contract: Any,
    meld: np.ndarray,
    points: np.ndarray,
    tricks: np.ndarray,
    thrown: np.ndarray,
) -> np.ndarray:
    """:func:`pinochle_env.rules.score_hand` for many partnership hands at once: each team's hand
    score (N, 2) from each seat's meld, trick points and tricks (N, 4), thrown-in flags (N,), the
    declarer and the contract (each a number, or one per hand; a declarer of -1 scores 0, 0: a
    redeal)."""
    count = len(meld)
    declarer = np.broadcast_to(np.asarray(declarer), (count,))
    contract = np.broadcast_to(np.asarray(contract), (count,))
    team = declarer % 2
    rows = np.arange(count)
    team_meld = np.stack([meld[:, 0] + meld[:, 2], meld[:, 1] + meld[:, 3]], axis=1)
    team_points = np.stack([points[:, 0] + points[:, 2], points[:, 1] + points[:, 3]], axis=1)
    team_tricks = np.stack([tricks[:, 0] + tricks[:, 2], tricks[:, 1] + tricks[:, 3]], axis=1)
    kept = team_points >= 1 if rules.save_meld == "points" else team_tricks >= 1
    if rules.save_meld == "none":
        kept = np.ones_like(kept)
    saved = np.where(kept, team_meld, 0)
    declaring_saved = team_meld[rows, team] if rules.save_meld_applies_to == "defenders" else saved[rows, team]
    total = declaring_saved + team_points[rows, team]
    scores = np.zeros((count, 2), dtype=np.int64)
    scores[rows, team] = np.where(thrown | (total < contract), -contract, total)
    scores[rows, 1 - team] = np.where(
        thrown, team_meld[rows, 1 - team], saved[rows, 1 - team] + team_points[rows, 1 - team]
    )
    scores[declarer < 0] = 0
    return scores
