"""The compact state of trick play that the compiled kernel works on, built from an engine or a view.

:class:`PlayState` holds one position of trick play as small numpy arrays (the layout of
:mod:`pinochle_env.kernel.compiled.tricks`): the hands, the trick in progress, who leads, the tricks left,
each seat's trick points and tricks, what the heuristic play-out policy needs to know (cards played
by each seat, voids shown, meld shown, pass knowledge), the rule switches as integers, and the
*sides*: the solver maximises the points of one side (the declaring team in the partnership game,
the declarer in cutthroat, seat 0 in the two-handed game) and a
:class:`~pinochle_env.kernel.adapter.Scoring` turns the side's points into hand-score margins.

What differs between the games each declares in its search adapter
(:mod:`pinochle_env.kernel.adapter`): it serves the partnership game and cutthroat from the start
of play, and the two-handed game's phase 2 (12 tricks with strict rules once the stock is gone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import COUNTING_VALUES, NUM_TYPES, RANK_OF, SUIT_OF
from ..engine import is_engine
from ..rules.switches import CHOICES, Rules
from .adapter import Scoring, adapter_for
from .compiled.tricks import Position


def card_values(rules: Rules) -> np.ndarray:
    """Trick points of each card type under ``rules.counting`` (int64, 24)."""
    table = COUNTING_VALUES[rules.counting]
    return np.array([table[RANK_OF[c]] for c in range(NUM_TYPES)], dtype=np.int64)


def rules_vector(rules: Rules, trump: int, declarer: int, simple_last: bool) -> np.ndarray:
    """The rule switches as the kernel's integer vector (indices ``R_*`` of the compiled module)."""
    seats = rules.num_seats
    adapter = adapter_for(rules)
    return np.array(
        [
            seats,
            trump,
            CHOICES["head_rule"].index(rules.head_rule),
            int(rules.must_overtrump),
            declarer,
            int(adapter.sequential_passing),
            int(simple_last),
            adapter.hand_size,
        ],
        dtype=np.int64,
    )


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
        return adapter_for(self.rules).mode

    def side_points(self) -> int:
        """Trick points the maximising side has taken so far."""
        return int(self.pts[self.side == 1].sum())

    def position(self) -> Position:
        """The public part of the position as the compiled play-outs take it (the trick copied)."""
        return Position(self.trick.copy(), self.n, self.leader, self.left, self.pts, self.tks, self.played,
                        self.played_by, self.void, self.shown)  # fmt: skip

    @classmethod
    def of(cls, position: Any) -> PlayState:
        """The state of ``position``: an engine during trick play, or a PlayState as it is (a seat's
        view, which shows one hand, is refused: :meth:`from_view` takes it)."""
        if isinstance(position, PlayState):
            return position
        if not is_engine(position):
            raise TypeError(
                f"the kernel takes an engine (every hand known) or a PlayState, not a {type(position).__name__}; "
                "a seat's view shows one hand: PlayState.from_view(view) takes it"
            )
        return cls.from_game(position)

    @classmethod
    def from_game(cls, game: Any) -> PlayState:
        """The perfect-information position of an engine during trick play (every hand known)."""
        if game.hand_over:
            raise ValueError("the hand is over: the kernel needs a position of trick play (or the throw-in)")
        adapter = adapter_for(game.rules)
        state = cls.from_view(game.view(game.to_act), adapter.private_gifts(game))
        state.hands = np.array(adapter.current_hands(game), dtype=np.int8)
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
        adapter = adapter_for(rules)
        adapter.check_view(view)
        seats = rules.num_seats
        values = card_values(rules)
        trump = view.trump
        declarer = getattr(view, "declarer", 0)
        total = adapter.total_tricks
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
        hands[view.seat] = adapter.own_cards(view)
        shown, meld_points = adapter.shown_meld(view)
        if gifts is None:
            gifts = adapter.view_gifts(view)
        by_tricks = rules.save_meld == "trick"
        saved = tuple(bool(tks[p] if by_tricks else pts[p]) for p in range(seats))
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
            side=adapter.side(declarer),
            rules_vector=rules_vector(rules, trump, declarer, simple_last=adapter.simple_last),
            values=values,
            scoring=adapter.scoring(view, meld_points, declarer, saved),
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
