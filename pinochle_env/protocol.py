"""The typed interface every game implements, and what the generic layers may rely on.

The environment, the batched API, the records, the agents and the trainer are written against
these protocols, never against one game's classes: a game is anything that provides an
:class:`Engine` (the state machine), its :class:`View` (one seat's information set) and an
:class:`Encoder` (observations), plus the declarations of its kit
(:class:`pinochle_env.games.kit.VariantKit`); its observation layout is a subclass of
:class:`pinochle_env.encoding.ObservationSpec`. Each game lives in its own folder under
:mod:`pinochle_env.games`; ``docs/adding_a_variant.md`` says how to add one.

Phases: every game has its own phase enum, derived from :class:`GamePhase`, whose members declare
the kind of decision taken in them (``decision``, one of :data:`DECISIONS`, or None where nobody
decides). Generic code asks a phase for its decision kind and never names a game's phases.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any, ClassVar, Protocol

import numpy as np

from .rules.switches import Rules

#: The kinds of decision, as named in ``mix:`` specs, per-phase statistics and TensorBoard tags.
#: Passing includes the cutthroat declarer's burying; meld is the two-handed game's meld turn.
DECISIONS = ("auction", "trump", "passing", "throw_in", "play", "meld")


class GamePhase(IntEnum):
    """Base of each game's phase enum: members are ``NAME = value, decision`` (``decision`` one of
    :data:`DECISIONS`, or None for a phase without a decision, such as the end of a hand)."""

    decision: str | None

    def __new__(cls, value: int, decision: str | None = None) -> GamePhase:
        if decision is not None and decision not in DECISIONS:
            raise ValueError(f"phase decision {decision!r} is not one of {', '.join(DECISIONS)}")
        member = int.__new__(cls, value)
        member._value_ = value
        member.decision = decision
        return member


class Layout(Protocol):
    """A game's flat action space: ids ``0 .. size - 1`` with names."""

    @property
    def size(self) -> int: ...

    @property
    def card0(self) -> int:
        """The id of card type 0 (card ``c`` is ``card0 + c`` wherever a card is chosen)."""
        ...

    def to_string(self, action: int) -> str: ...

    def from_string(self, text: str) -> int: ...

    def table(self) -> list[tuple[int, str]]: ...


class View(Protocol):
    """What one seat may know at one moment (an information set); seats are absolute here. Each game's
    view has more (:class:`AuctionView` says what the auction games share). The members are read-only
    here, so that a game's view matches with its own narrower types (its phase enum)."""

    @property
    def seat(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def phase(self) -> GamePhase: ...
    @property
    def to_act(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def hand(self) -> list[int]: ...
    @property
    def trump(self) -> int:
        """-1 until known."""
        ...

    @property
    def trick_leader(self) -> int:
        """-1 before the first lead."""
        ...

    @property
    def trick(self) -> list[int]: ...
    @property
    def tricks(self) -> list[tuple[int, list[int], int]]: ...
    @property
    def trick_points(self) -> list[int]:
        """Per team, this hand."""
        ...

    @property
    def totals(self) -> list[int]:
        """Running score per team."""
        ...

    @property
    def legal_actions(self) -> list[int]: ...


class AuctionView(View, Protocol):
    """The view of a game with an auction, a declarer and meld shown by every seat (the partnership
    game and cutthroat)."""

    @property
    def auction(self) -> list[tuple[int, int | str]]:
        """(seat, bid / "pass" / "help")."""
        ...

    @property
    def high_bid(self) -> int:
        """0 before any bid."""
        ...

    @property
    def high_bidder(self) -> int:
        """-1 before any bid."""
        ...

    @property
    def declarer(self) -> int:
        """-1 until the auction ends."""
        ...

    @property
    def contract(self) -> int:
        """0 until the auction ends."""
        ...

    @property
    def meld(self) -> list[Any]:
        """Per seat, its meld once melded (a pinochle_env.rules.meld), else none."""
        ...

    @property
    def tricks_won(self) -> list[int]: ...
    @property
    def thrown_in(self) -> bool | None:
        """None until decided."""
        ...

    def meld_of(self, seat: int) -> Any: ...


class Engine(Protocol):
    """A game's rules engine: one game (hands until one side reaches the target) as a state machine."""

    NUM_SEATS: ClassVar[int]
    VARIANT: ClassVar[str]
    #: Per phase, the legal actions as a bit mask, and applying an action already known to be legal:
    #: the fast path the batched API calls directly (``legal_bits`` and ``apply`` go through them).
    LEGAL_BITS: ClassVar[dict[Any, Callable[..., int]]]  # phase -> (engine) -> bit mask
    APPLY: ClassVar[dict[Any, Callable[..., None]]]  # phase -> (engine, action) -> None

    rules: Rules
    rng: np.random.Generator
    layout: Any
    phase: Any
    to_act: int
    dealer: int
    hand_number: int
    winner: int | None
    totals: list[int]
    deal: Any
    score: Any

    @property
    def hand_over(self) -> bool: ...

    @property
    def game_over(self) -> bool: ...

    @property
    def hands(self) -> Any:
        """Per seat, the cards it holds now as a count vector over the 24 card types."""
        ...

    @classmethod
    def deal_from_deck(cls, cards: list[int]) -> Any:
        """The deal (as ``deal=`` takes it) that the 48 card types in the order ``cards`` give."""
        ...

    def legal_bits(self) -> int: ...

    def legal_actions(self) -> list[int]: ...

    def apply(self, action: int) -> None: ...

    def illegal_message(self, action: Any) -> str: ...

    def view(self, seat: int) -> Any: ...

    def record(self) -> dict[str, Any]: ...

    def next_hand(self) -> None: ...

    def clone(self) -> Any: ...


class Encoder(Protocol):
    """Keeps the observation rows of one game's seats (``rows``: seats x size float32)."""

    rows: np.ndarray

    def update(self, game: Any) -> np.ndarray:
        """Bring the rows up to date with ``game`` (at least the acting seat's) and return them."""
        ...

    def observation(self, game: Any, seat: int) -> np.ndarray:
        """A fresh copy of ``seat``'s observation of ``game`` now."""
        ...

    def attach(self, rows: np.ndarray) -> None:
        """Keep the rows in ``rows`` from now on; ``rows`` holds them already. The batched API keeps
        every game's rows in one buffer and calls it after a copy (a pickle or ``deepcopy`` copies
        the buffer and the views of it apart). An encoder must pickle, and its copy must continue
        as the original would."""
        ...


class HandArrays(Protocol):
    """A game's optional fast path for the batched API: whole hands of many games as arrays, one row
    per game (the partnership game's ``LockstepHands``), tested decision for decision against the
    engine. A game enters at the start of each hand's auction and leaves when its hand ends."""

    #: (N,) bool: the game's hand is in the arrays.
    active: np.ndarray
    #: (N * seats * 24,) each seat's cards as counts, for the games in the arrays.
    hands: np.ndarray
    #: Set by each :meth:`step`: the games whose hand ended, and those passed out and to be dealt again.
    ended: list[int]
    redealt: list[int]

    def load(self, rows: list[int], games: list[Any]) -> None:
        """Take over games ``rows`` whose engines ``games`` have just dealt a hand."""
        ...

    def draw(self, rng: np.random.Generator) -> tuple[int, list[list[int]]]:
        """The first dealer and hands of a new game, drawn from ``rng`` as the engine would draw them."""
        ...

    def deal(self, rows: np.ndarray, dealers: list[int], hands: list[list[list[int]]]) -> None:
        """Start new games in ``rows`` without engines: ``dealers[k]`` dealt ``hands[k]``."""
        ...

    def step(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """Apply ``actions[rows]`` (legal) to games ``rows``."""
        ...

    def decisions(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The seat to act, the phase and the int8 mask of games ``rows``."""
        ...

    def sync(self, i: int, game: Any) -> None:
        """Bring game ``i``'s engine up to date with the arrays."""
        ...

    def score(self, i: int) -> tuple[list[int], int | None]:
        """Game ``i``'s hand score per team, its hand having ended, and the game's winner after it."""
        ...

    def attach(self, observations: np.ndarray) -> None:
        """Write into ``observations`` (the batch's buffer, holding the encoders' rows) from now on:
        the batched API calls it after a copy, as :meth:`Encoder.attach`."""
        ...
