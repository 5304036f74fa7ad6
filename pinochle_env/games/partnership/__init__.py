"""Partnership auction Pinochle: four players in two teams of partners (the default variant).

- :mod:`.game`: the engine (:class:`~.game.Game`), its phases and the seat's view;
- :mod:`.encoding`: the observation, kept up to date incrementally from the engine's events;
- :mod:`.replay`: replaying hand records;
- :mod:`.render`: the table as text;
- :mod:`.search`: what the search kernel needs to know of the game (imported by the kernel only);
- :mod:`.lockstep` and :mod:`.lockstep_hands`: the batched API's fast path, whole hands of many
  games as arrays (a second implementation of the rules, tested decision for decision against
  the engine).
"""

from __future__ import annotations

import functools

import numpy as np

from ...actions import layout_for
from ...rules.switches import Rules
from ..kit import VariantKit
from . import encoding, replay
from .game import Game, Phase, PlayerView
from .lockstep_hands import LockstepHands

__all__ = ["SEAT_NAMES", "Game", "Phase", "PlayerView", "kit"]

SEAT_NAMES = encoding.SEAT_NAMES


def kit(rules: Rules) -> VariantKit:
    """The partnership game's declarations for the generic layers, for one rule set."""
    spec = encoding.PartnershipSpec(rules)
    return VariantKit(
        rules=rules,
        game_class=Game,
        layout=layout_for(rules.max_bid),
        spec=spec,
        state_size=encoding.state_size(spec),
        make_encoder=functools.partial(encoding.GameEncoder, spec),
        stamp_turn=functools.partial(encoding.stamp_turn, spec),
        encode_state=encoding.encode_state,
        replay=replay.replay,
        decisions=replay.decisions,
        phase_type=Phase,
        seat_names=SEAT_NAMES,
        description="four players, partners sitting opposite",
        heuristic="agents.heuristic.partnership",
        terminal_table="agents.terminal.partnership:PartnershipTable",
        web_table="pinochle_web.present:partnership_parts",
        stack_states=encoding.stack_states,
        lockstep_hands=functools.partial(_lockstep_hands, spec),
        search="pinochle_env.games.partnership.search:PartnershipSearch",
    )


def _lockstep_hands(spec: encoding.PartnershipSpec, num_games: int, observations: np.ndarray) -> LockstepHands:
    """Whole hands of ``num_games`` games as arrays, writing into the batch's ``observations``."""
    return LockstepHands(num_games, spec, observations)
