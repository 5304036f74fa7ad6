"""Three-handed cutthroat auction Pinochle: each player for itself, a widow, burying.

- :mod:`.game`: the engine (:class:`~.game.CutthroatGame`), its phases and the seat's view;
- :mod:`.encoding`: the observation, encoded afresh from the seat's view at each decision;
- :mod:`.replay`: replaying hand records;
- :mod:`.render`: the table as text;
- :mod:`.search`: what the search kernel needs to know of the game (imported by the kernel only).

The rules as implemented are in ``docs/cutthroat.md``.
"""

from __future__ import annotations

from ...actions import layout_for
from ...rules.switches import Rules
from ..kit import VariantKit, view_encoded_kit
from . import replay
from .encoding import SEAT_NAMES, CutthroatSpec
from .game import CutthroatGame, CutthroatView, Phase

__all__ = ["SEAT_NAMES", "CutthroatGame", "CutthroatView", "Phase", "kit"]


def kit(rules: Rules) -> VariantKit:
    """The cutthroat game's declarations for the generic layers, for one rule set."""
    return view_encoded_kit(
        rules,
        CutthroatGame,
        layout_for(rules.max_bid),
        CutthroatSpec(rules),
        replay,
        Phase,
        SEAT_NAMES,
        description="three players, each for itself, with a widow",
        heuristic="agents.heuristic.cutthroat",
        terminal_table="agents.terminal.cutthroat:CutthroatTable",
        web_table="pinochle_web.present:cutthroat_parts",
        search="pinochle_env.games.cutthroat.search:CutthroatSearch",
    )
