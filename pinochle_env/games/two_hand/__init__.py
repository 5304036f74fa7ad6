"""Two-handed Pinochle: a turned-up trump, a stock to draw from, melding during play, the dix.

- :mod:`.game`: the engine (:class:`~.game.TwoHandGame`), its phases and the seat's view;
- :mod:`.melds` and :mod:`.actions`: the meld kinds and the game's own action ids;
- :mod:`.encoding`: the observation, encoded afresh from the seat's view at each decision;
- :mod:`.replay`: replaying hand records;
- :mod:`.render`: the table as text.

The rules as implemented are in ``docs/two_hand.md``.
"""

from __future__ import annotations

import functools

from ...kit import VariantKit, ViewEncoder, no_turn_stamp
from ...switches import Rules
from . import replay
from .actions import LAYOUT, TwoHandLayout
from .encoding import SEAT_NAMES, TwoHandSpec
from .game import NUM_SEATS, Phase, TwoHandGame, TwoHandView

__all__ = ["LAYOUT", "SEAT_NAMES", "Phase", "TwoHandGame", "TwoHandLayout", "TwoHandView", "kit"]


def kit(rules: Rules) -> VariantKit:
    """The two-handed game's declarations for the generic layers, for one rule set."""
    spec = TwoHandSpec(rules)
    return VariantKit(
        rules=rules,
        game_class=TwoHandGame,
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
