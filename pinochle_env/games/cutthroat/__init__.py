"""Three-handed cutthroat auction Pinochle: each player for itself, a widow, burying.

- :mod:`.game`: the engine (:class:`~.game.CutthroatGame`), its phases and the seat's view;
- :mod:`.encoding`: the observation, encoded afresh from the seat's view at each decision;
- :mod:`.replay`: replaying hand records;
- :mod:`.render`: the table as text.

The rules as implemented are in ``docs/cutthroat.md``.
"""

from __future__ import annotations

import functools

from ...kit import VariantKit, ViewEncoder, no_turn_stamp
from ...switches import Rules
from . import replay
from .encoding import SEAT_NAMES, CutthroatSpec
from .game import NUM_SEATS, CutthroatGame, CutthroatView, Phase

__all__ = ["SEAT_NAMES", "CutthroatGame", "CutthroatView", "Phase", "kit"]


def kit(rules: Rules) -> VariantKit:
    """The cutthroat game's declarations for the generic layers, for one rule set."""
    spec = CutthroatSpec(rules)
    return VariantKit(
        rules=rules,
        game_class=CutthroatGame,
        spec=spec,
        state_size=spec.state_size,
        make_encoder=functools.partial(ViewEncoder, spec, NUM_SEATS),
        stamp_turn=no_turn_stamp,
        encode_state=spec.encode_state,
        replay=replay.replay,
        decisions=replay.decisions,
        phase_type=Phase,
        seat_names=SEAT_NAMES,
    )
