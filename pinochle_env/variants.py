"""The three games behind one interface: what the env, the batched API, the records, the arena and
the trainer need to know about a variant.

``variant_kit(rules)`` returns a :class:`VariantKit` for ``rules.variant``:

- ``partnership`` (4 seats, teams 0-2 and 1-3): :class:`~pinochle_env.game.Game` with the fast
  incremental :class:`~pinochle_env.encoding.GameEncoder`;
- ``cutthroat`` (3 seats, each for itself): :mod:`pinochle_env.cutthroat`;
- ``two_hand`` (2 seats): :mod:`pinochle_env.two_hand`.

The two smaller games encode an observation straight from the seat's information-set view
(``spec.encode_view(game.view(seat))``), so nothing hidden can reach it; that costs more per
decision than the partnership game's incremental encoder, which is why the partnership game keeps
its own.

Teams make one reward rule serve all three games: ``teams[seat]`` is the seat's team (its partner
shares it in the partnership game; otherwise every seat is its own team), ``game.score`` and
``game.winner`` are indexed by team, and a seat's reward is its team's value minus the mean of
the other teams' (:func:`margins`): team minus team in the partnership and two-handed games, own
minus the mean of the other two in cutthroat.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import encoding
from .options import Rules


class ViewEncoder:
    """The encoder interface of :class:`~pinochle_env.encoding.GameEncoder` for the variants that
    encode from views: ``rows`` (seats x size); ``update(game)`` refreshes the acting seat's row
    (the only one the batched API reads), ``observation(game, seat)`` any seat's, fresh."""

    def __init__(self, spec: Any, num_seats: int, rows: np.ndarray | None = None) -> None:
        self.spec = spec
        self.rows = rows if rows is not None else np.zeros((num_seats, spec.size), dtype=np.float32)

    def update(self, game: Any) -> np.ndarray:
        if game.to_act >= 0:
            self.rows[game.to_act] = self.spec.encode_view(game.view(game.to_act))
        return self.rows

    def observation(self, game: Any, seat: int) -> np.ndarray:
        return self.spec.encode_view(game.view(seat))


@dataclass(frozen=True)
class VariantKit:
    """Everything variant-specific that the generic layers use, for one rule set."""

    rules: Rules
    game_class: type
    spec: encoding.ObservationSpec
    state_size: int
    make_encoder: Callable[..., Any]  # (rows=None) -> an encoder with update / observation
    stamp_turn: Callable[[np.ndarray, Any, Any], None]  # (observations, phases, acting)
    encode_state: Callable[..., np.ndarray]  # (game, seat, observation, out=None)
    observation_from_view: Callable[[Any], np.ndarray]
    replay: Callable[..., Any]  # (record, upto=None) -> game
    decisions: Callable[[dict[str, Any]], Iterator[tuple[Any, int, int]]]
    phase_type: type  # the game's phase enum (``BatchStep.phases`` holds its values)
    #: ``encode_state`` for a stack, from the hands as counts ((observations, hands, seats) -> states),
    #: where the variant's state is an observation plus hands; None: game by game.
    stack_states: Callable[..., np.ndarray] | None = None
    #: The batched API's array-based hands, (num_games, observation buffer) -> a
    #: :class:`~pinochle_env.lockstep_hands.LockstepHands`; None: every decision goes through the engine.
    lockstep_hands: Callable[..., Any] | None = None

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

    def new_game(self, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
        """A new game of this rule set (``dealer=``, ``deal=``, ``totals=`` as the engine takes them)."""
        return self.game_class(self.rules, rng, **kwargs)


def margins(values: Sequence[float], teams: Sequence[int]) -> list[float]:
    """Each seat's reward from per-team ``values``: its team's value minus the mean of the others'."""
    num_teams = len(values)
    total = sum(values)
    return [values[t] - (total - values[t]) / (num_teams - 1) for t in teams]


def _partnership(rules: Rules) -> VariantKit:
    from . import records
    from .game import Game, Phase
    from .lockstep_hands import LockstepHands

    spec = encoding.ObservationSpec(rules)
    return VariantKit(
        rules=rules,
        game_class=Game,
        spec=spec,
        state_size=encoding.state_size(spec),
        make_encoder=functools.partial(encoding.GameEncoder, spec),
        stamp_turn=functools.partial(encoding.stamp_turn, spec),
        encode_state=encoding.encode_state,
        observation_from_view=functools.partial(encoding.observation_from_view, spec),
        replay=records.replay_partnership,
        decisions=records.partnership_decisions,
        phase_type=Phase,
        stack_states=encoding.stack_states,
        lockstep_hands=lambda num_games, observations: LockstepHands(num_games, spec, observations),
    )


def _from_views(rules: Rules, engine: Any, game_class: type, spec: Any) -> VariantKit:
    """The kit of a variant whose observations are encoded from views (cutthroat, two_hand)."""
    seats = game_class.NUM_SEATS

    def encode_state(game: Any, seat: int, observation: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        state = spec.encode_state(game, seat, observation)
        if out is None:
            return state
        out[:] = state
        return out

    return VariantKit(
        rules=rules,
        game_class=game_class,
        spec=spec,
        state_size=spec.state_size,
        make_encoder=functools.partial(ViewEncoder, spec, seats),
        stamp_turn=lambda observations, phases, acting: None,  # encode_view writes the turn itself
        encode_state=encode_state,
        observation_from_view=spec.encode_view,
        replay=engine.replay,
        decisions=engine.decisions,
        phase_type=engine.Phase,
    )


def _cutthroat(rules: Rules) -> VariantKit:
    from . import cutthroat
    from .cutthroat_encoding import CutthroatSpec

    return _from_views(rules, cutthroat, cutthroat.CutthroatGame, CutthroatSpec(rules))


def _two_hand(rules: Rules) -> VariantKit:
    from . import two_hand
    from .two_hand_encoding import TwoHandSpec

    return _from_views(rules, two_hand, two_hand.TwoHandGame, TwoHandSpec(rules))


_BUILDERS = {"partnership": _partnership, "cutthroat": _cutthroat, "two_hand": _two_hand}


@functools.lru_cache(maxsize=64)
def variant_kit(rules: Rules) -> VariantKit:
    """The kit of ``rules.variant`` for this rule set (built once per rule set)."""
    return _BUILDERS[rules.variant](rules)


def new_game(rules: Rules | None = None, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
    """A new game of any variant: ``Game``, ``CutthroatGame`` or ``TwoHandGame`` by ``rules.variant``."""
    return variant_kit(rules if rules is not None else Rules()).new_game(rng, **kwargs)
