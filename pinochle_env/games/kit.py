"""What a game declares for the generic layers, its :class:`VariantKit`, and finding it: :func:`variant_kit`.

Each game's package (``pinochle_env/games/<game>/__init__.py``) builds its kit for a rule set with
``kit(rules)``; :func:`variant_kit` finds the game in the registry (:mod:`.registry`) by
``rules.variant``, and :func:`new_game` makes any game's engine.
The environment, the batched API, the records, the agents and the trainer read everything
variant-specific from the kit: the engine class, the observation layout and encoder, the state
for centralised critics, hand-record replay, seat names, the phase enum.

Teams make one reward rule serve all games: ``teams[seat]`` is the seat's team (its partner shares
it in the partnership game; otherwise every seat is its own team), ``game.score`` and
``game.winner`` are indexed by team, and a seat's reward is its team's value minus the mean of the
other teams' (:func:`margins`): team minus team with two teams, own minus the mean of the other
two in cutthroat.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..encoding import ObservationSpec
from ..engine import checked_rules
from ..protocol import Encoder, Engine, GamePhase, HandArrays
from ..rules.switches import Rules
from .registry import GAMES


class ViewEncoder:
    """An :class:`~pinochle_env.protocol.Encoder` that encodes each observation afresh from the
    seat's information-set view (``spec.encode_view``), for games without an incremental encoder:
    ``update(game)`` refreshes the acting seat's row (the only one the batched API reads),
    ``observation(game, seat)`` gives any seat's, fresh."""

    def __init__(self, spec: ObservationSpec, num_seats: int, rows: np.ndarray | None = None) -> None:
        self.spec = spec
        self.rows = rows if rows is not None else np.zeros((num_seats, spec.size), dtype=np.float32)

    def attach(self, rows: np.ndarray) -> None:
        """Keep the rows in ``rows`` from now on (see :meth:`~pinochle_env.protocol.Encoder.attach`)."""
        self.rows = rows

    def update(self, game: Any) -> np.ndarray:
        if game.to_act >= 0:
            self.rows[game.to_act] = self.spec.encode_view(game.view(game.to_act))
        return self.rows

    def observation(self, game: Any, seat: int) -> np.ndarray:
        return self.spec.encode_view(game.view(seat))


def no_turn_stamp(observations: np.ndarray, phases: Any, acting: Any) -> None:
    """``stamp_turn`` of a game whose encoder writes the phase and the acting seat itself."""


@dataclass(frozen=True)
class VariantKit:
    """Everything game-specific that the generic layers use, for one rule set."""

    rules: Rules
    game_class: type[Engine]
    #: The game's flat action space under these rules: a :class:`~pinochle_env.protocol.Layout` (ids
    #: and names; ``card0`` is card type 0), with the ids of the game's own decisions besides.
    layout: Any
    spec: ObservationSpec
    state_size: int
    #: (rows=None) -> the game's encoder, keeping its rows in ``rows`` if given.
    make_encoder: Callable[..., Encoder]
    #: (observations, phases, acting): stamp the read-time pieces (phase, acting seat) on copies of
    #: encoder rows; :func:`no_turn_stamp` where the encoder writes them itself.
    stamp_turn: Callable[[np.ndarray, Any, Any], None]
    #: (game, seat, observation, out=None) -> the perfect-information state from ``seat``'s side.
    encode_state: Callable[..., np.ndarray]
    #: (record, upto=None) -> the game after replaying a hand record (or its first ``upto`` decisions).
    replay: Callable[..., Engine]
    #: record -> each decision of a recorded hand as (game before it, seat, action).
    decisions: Callable[[dict[str, Any]], Iterator[tuple[Any, int, int]]]
    #: The game's phase enum (``BatchStep.phases`` holds its values; each member names its decision).
    phase_type: type[GamePhase]
    #: The seats' names relative to the observer, "me" first (``("me", "left", "partner", "right")``).
    seat_names: tuple[str, ...]
    #: The game in a few words, for people ("four players, partners sitting opposite").
    description: str
    #: Where the game's pieces in the layers above live, as ``module`` or ``module:attribute``
    #: references that only those layers import (so the environment imports none of them): the
    #: heuristic bot's rules for the game (a module of :mod:`agents.heuristic`), the terminal UI's
    #: table (a subclass of :class:`agents.terminal.tables.Table`, in a module of the game's own) and
    #: the web app's table parts (a function of :mod:`pinochle_web.present`).
    heuristic: str
    terminal_table: str
    web_table: str
    #: ``encode_state`` for a stack, from the hands as counts ((observations, hands, seats) -> states),
    #: where the game's state is an observation plus hands; None: game by game.
    stack_states: Callable[..., np.ndarray] | None = None
    #: The batched API's array-based hands, (num_games, observation buffer) -> an object that plays
    #: whole hands of many games as arrays (the partnership game's ``LockstepHands``); None: every
    #: decision goes through the engine.
    lockstep_hands: Callable[[int, np.ndarray], HandArrays] | None = None
    #: The game's search adapter for the compiled kernel, as ``module:Class`` (a
    #: :class:`~pinochle_env.kernel.adapter.SearchAdapter`, imported by the kernel only); None: the
    #: kernel does not play the game.
    search: str | None = None

    @property
    def num_seats(self) -> int:
        return self.rules.num_seats

    @property
    def teams(self) -> tuple[int, ...]:
        """The team index of each seat."""
        return self.rules.teams

    @property
    def num_teams(self) -> int:
        return max(self.teams) + 1

    @property
    def decisions_taken(self) -> tuple[str, ...]:
        """The kinds of decision this game has (:data:`~pinochle_env.protocol.DECISIONS`), in phase order."""
        kinds = [phase.decision for phase in self.phase_type if phase.decision is not None]
        return tuple(dict.fromkeys(kinds))

    def observation_from_view(self, view: Any) -> np.ndarray:
        """The observation the environment gives ``view.seat`` at that moment, from the view alone."""
        return self.spec.encode_view(view)

    def new_game(self, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
        """A new game of this rule set (``dealer=``, ``deal=``, ``totals=`` as the engine takes them)."""
        return self.game_class(self.rules, rng, **kwargs)  # type: ignore[call-arg]


def view_encoded_kit(
    rules: Rules,
    game_class: type[Engine],
    layout: Any,
    spec: Any,
    replay: Any,
    phase_type: type[GamePhase],
    seat_names: tuple[str, ...],
    **declarations: Any,
) -> VariantKit:
    """The kit of a game whose observations are encoded afresh from each view (:class:`ViewEncoder`):
    ``spec`` has ``encode_view``, ``encode_state`` and ``state_size``; ``replay`` is the game's
    replay module (``replay`` and ``decisions``); ``declarations`` are the kit's other fields
    (``search``, ...)."""
    return VariantKit(
        rules=rules,
        game_class=game_class,
        layout=layout,
        spec=spec,
        state_size=spec.state_size,
        make_encoder=functools.partial(ViewEncoder, spec, game_class.NUM_SEATS),
        stamp_turn=no_turn_stamp,
        encode_state=spec.encode_state,
        replay=replay.replay,
        decisions=replay.decisions,
        phase_type=phase_type,
        seat_names=seat_names,
        **declarations,
    )


def margins(values: Sequence[float], teams: Sequence[int]) -> list[float]:
    """Each seat's reward from per-team ``values``: its team's value minus the mean of the others'."""
    num_teams = len(values)
    total = sum(values)
    return [values[t] - (total - values[t]) / (num_teams - 1) for t in teams]


@functools.lru_cache(maxsize=64)
def variant_kit(rules: Rules) -> VariantKit:
    """The kit of ``rules.variant`` for this rule set (built once per rule set, by the game's package,
    which is imported the first time a rule set of that game is used)."""
    package = importlib.import_module(GAMES[rules.variant].package)
    kit: VariantKit = package.kit(rules)
    return kit


def new_game(rules: Rules | None = None, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
    """A new game of any variant (the engine of ``rules.variant``; the partnership game by default)."""
    return variant_kit(checked_rules(rules) or Rules()).new_game(rng, **kwargs)
