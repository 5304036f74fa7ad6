"""Two-handed Pinochle: a turned-up trump, a stock to draw from, melding during play, the dix.

- :mod:`.game`: the engine (:class:`~.game.TwoHandGame`), its phases and the seat's view;
- :mod:`.melds` and :mod:`.actions`: the meld kinds and the game's own action ids;
- :mod:`.encoding`: the observation, encoded afresh from the seat's view at each decision;
- :mod:`.replay`: replaying hand records;
- :mod:`.render`: the table as text;
- :mod:`.search`: what the search kernel needs to know of the game (imported by the kernel only).

The rules as implemented are in ``docs/two_hand.md``.
"""

from __future__ import annotations

from ...rules.switches import Rules
from ..kit import VariantKit, view_encoded_kit
from . import replay
from .actions import LAYOUT, TwoHandLayout
from .encoding import SEAT_NAMES, TwoHandSpec
from .game import Phase, TwoHandGame, TwoHandView

__all__ = ["LAYOUT", "SEAT_NAMES", "Phase", "TwoHandGame", "TwoHandLayout", "TwoHandView", "kit"]


def kit(rules: Rules) -> VariantKit:
    """The two-handed game's declarations for the generic layers, for one rule set."""
    return view_encoded_kit(
        rules,
        TwoHandGame,
        LAYOUT,
        TwoHandSpec(rules),
        replay,
        Phase,
        SEAT_NAMES,
        description="two players, turn-up trump and a stock",
        heuristic="agents.heuristic.two_hand",
        terminal_table="agents.terminal.two_hand:TwoHandTable",
        web_table="pinochle_web.present:two_hand_parts",
        search="pinochle_env.games.two_hand.search:TwoHandSearch",
    )
