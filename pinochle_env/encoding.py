"""Observation pieces every game's encoder is built from.

An observation is a float32 vector made of named pieces (:class:`Piece`), always from the observing
seat's point of view: seat-indexed pieces are ordered from the observer ("me") round the table.
Card pieces of width 48 are thermometers over the 24 card types: entry ``t`` says "at least one
copy of type ``t``", entry ``24 + t`` says "both copies". :class:`ObservationSpec` lays the pieces
out and explains any index (``describe``); each game's ``encoding`` module
(``pinochle_env/games/<game>/encoding.py``) names its pieces and fills them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .cards import NUM_TYPES, card_to_str
from .engine import is_integer
from .rules.meld import whole_deck_meld
from .rules.scoring import deck_points
from .rules.switches import BID_STEP, MIN_BID, Rules

#: Bump when the layout or meaning of the observation changes (checkpoints record it).
ENCODER_VERSION = 2

THERMO = 2 * NUM_TYPES
#: Divisors of meld and running-score points, and of a hand's trick points, in observations.
POINT_SCALE = 1000.0
HAND_POINTS = 250.0


@dataclass(frozen=True)
class Piece:
    """A named slice of the observation vector."""

    name: str
    size: int
    offset: int
    description: str

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


def hand_points(rules: Rules) -> int:
    """The trick points of a whole hand under ``rules.counting``: every card and the last trick."""
    return deck_points(rules.counting)


def bid_labels(rules: Rules) -> list[str]:
    """Labels of the bid values of a rule set: ``250``, ``260``, ... ``max_bid``."""
    return [str(MIN_BID + BID_STEP * i) for i in range((rules.max_bid - MIN_BID) // BID_STEP + 1)]


def card_labels() -> list[str]:
    """Labels of the 24 card types, in id order."""
    return [card_to_str(c) for c in range(NUM_TYPES)]


def thermo_labels() -> list[str]:
    """Labels of a card thermometer of 48: "holds at least one" of each type, then "holds both"."""
    return [f"{c} x>=1" for c in card_labels()] + [f"{c} x2" for c in card_labels()]


def per_seat(labels: list[str], seats: tuple[str, ...]) -> list[str]:
    """``labels`` repeated for each relative seat, prefixed with the seat's name."""
    return [f"{seat}: {label}" for seat in seats for label in labels]


class ObservationSpec:
    """The pieces of a game's observation for a rule set: sizes, offsets and ``describe()``.

    ``pieces`` holds (name, per-index labels, description) per piece, in vector order. Each game
    subclasses it with its pieces and :meth:`encode_view`.
    """

    def __init__(self, rules: Rules, pieces: list[tuple[str, list[str], str]]) -> None:
        self.rules = rules
        self.pieces: list[Piece] = []
        self._labels: list[str] = []
        offset = 0
        for name, labels, description in pieces:
            self.pieces.append(Piece(name, len(labels), offset, description))
            self._labels += [f"{name}[{label}]" for label in labels]
            offset += len(labels)
        self.size = offset
        self.offsets = {p.name: p.offset for p in self.pieces}
        self.num_bids = (rules.max_bid - MIN_BID) // BID_STEP + 1

    def bounds(self, hands: int | None = 1) -> tuple[np.ndarray, np.ndarray]:
        """Box bounds of the observations of an episode of at most ``hands`` hands (None: a whole
        game, however many hands it takes), derived from the rules: [0, 1] except the pieces of
        :meth:`ranges`. They bound every value the encoder can write; they change none."""
        low = np.zeros(self.size, np.float32)
        high = np.ones(self.size, np.float32)
        for name, (lowest, highest) in self.ranges(hands).items():
            low[self.piece(name).slice] = lowest
            high[self.piece(name).slice] = highest
        return low, high

    def ranges(self, hands: int | None = 1) -> dict[str, tuple[float, float]]:
        """The pieces whose values leave [0, 1], with their (low, high) over ``hands`` hands.

        ``meld_points``: 0 up to :meth:`max_meld_points` (/ ``POINT_SCALE``). ``scores``: a running
        total is below the target before the game's last hand, which adds at most
        :meth:`max_hand_score`; each hand takes away at most :meth:`max_hand_loss`, so a game
        without a hand limit (``hands=None``) has no lower bound where a hand can lose points.
        """
        target = self.rules.target
        loss = self.max_hand_loss()
        lowest = 0.0 if loss == 0 else -(np.inf if hands is None else hands) * loss / target
        highest = (target + self.max_hand_score()) / target
        return {"meld_points": (0.0, self.max_meld_points() / POINT_SCALE), "scores": (lowest, highest)}

    def max_meld_points(self) -> int:
        """The most meld points one seat can show in a hand: by default the meld of the whole deck
        with the best trump (:func:`~pinochle_env.rules.meld.whole_deck_meld`)."""
        return whole_deck_meld(self.rules.run_extras)

    def max_hand_score(self) -> int:
        """The most one side (a team, or a player without partners) can score in a hand: its meld
        and every trick point. A team's two hands together never meld more than their union
        (doubles are worth more than twice the singles), so the bound of one seat serves a team."""
        return self.max_meld_points() + hand_points(self.rules)

    def max_hand_loss(self) -> int:
        """The most one side can lose in a hand: a contract of ``max_bid``, set or thrown in."""
        return self.rules.max_bid

    def describe(self, index: int | None = None) -> str:
        """What observation entry ``index`` means, or a table of every piece when ``index`` is None."""
        if index is None:
            lines = [f"{'piece':<16}{'indices':>12}  description"]
            lines += [f"{p.name:<16}{f'{p.offset}..{p.offset + p.size - 1}':>12}  {p.description}" for p in self.pieces]
            return "\n".join(lines)
        if not is_integer(index):  # a float or a string would fail in a comparison; True would read entry 1
            raise TypeError(f"observation index must be an integer or None, got {type(index).__name__}: {index!r:.60}")
        if not 0 <= index < self.size:
            raise IndexError(f"observation index {index} out of range 0..{self.size - 1}")
        return self._labels[index]

    def encode_view(self, view: Any) -> np.ndarray:
        """The observation of ``view.seat`` from its information-set view alone (each game's own)."""
        raise NotImplementedError

    def piece(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise KeyError(f"no observation piece {name!r}; pieces: {', '.join(p.name for p in self.pieces)}")


#: A card type's thermometer entries ("holds at least one", "holds both") by its count (0, 1, 2).
_AT_LEAST_ONE = np.array([0, 1, 1], dtype=np.float32)
_BOTH = np.array([0, 0, 1], dtype=np.float32)


class Thermometers:
    """Writes several count vectors (24 card types each) as thermometers at fixed offsets of an
    observation, all in two numpy calls: per-call overhead, not arithmetic, is the cost here."""

    def __init__(self, offsets: list[int]) -> None:
        starts = np.asarray(offsets)[:, None] + np.arange(NUM_TYPES)
        self._at_least_one = starts.ravel()
        self._both = (starts + NUM_TYPES).ravel()

    def write(self, out: np.ndarray, counts: list) -> None:
        """Write ``counts`` (one count vector per offset, in order) into ``out``."""
        index = np.frombuffer(b"".join(map(bytes, counts)), np.uint8)
        out[self._at_least_one] = _AT_LEAST_ONE[index]
        out[self._both] = _BOTH[index]


def hidden_hands(hands: np.ndarray) -> np.ndarray:
    """The state's extra part: count vectors of left, partner and right ((..., 3, 24)) as thermometers
    (holds >= 1, holds 2), flattened to (..., 3 * THERMO) float32; rows may be stacked in front."""
    return np.stack([hands >= 1, hands >= 2], axis=-2).reshape(*hands.shape[:-2], -1).astype(np.float32)


def observation_from_view(spec: Any, view: Any) -> np.ndarray:
    """The observation of ``view.seat`` built from its information-set view alone (any game):
    equal to the environment's observation of that seat at that moment (a test checks every
    decision of many games), so an agent that acts on views can feed a network trained on the
    environment's observations. ``spec`` is the game's observation layout (``kit.spec``)."""
    return spec.encode_view(view)
