"""The registry of games: which package plays each ``variant`` of the rule switches.

``variant_kit(rules)`` returns the :class:`~pinochle_env.kit.VariantKit` of ``rules.variant``,
built by the game's own package (``pinochle_env/games/<game>/``), which is imported the first time
a rule set of that game is used. Adding a game is a new folder under ``pinochle_env/games/`` and
one line in :data:`GAMES` (``docs/adding_a_variant.md``).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np

from .kit import VariantKit, margins
from .switches import Rules

__all__ = ["GAMES", "VariantKit", "margins", "new_game", "variant_kit"]

#: variant name -> the package of its game, whose ``kit(rules)`` builds the game's kit.
GAMES: dict[str, str] = {
    "partnership": "pinochle_env.games.partnership",
    "cutthroat": "pinochle_env.games.cutthroat",
    "two_hand": "pinochle_env.games.two_hand",
}


@functools.lru_cache(maxsize=64)
def variant_kit(rules: Rules) -> VariantKit:
    """The kit of ``rules.variant`` for this rule set (built once per rule set)."""
    package = importlib.import_module(GAMES[rules.variant])
    kit: VariantKit = package.kit(rules)
    return kit


def new_game(rules: Rules | None = None, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
    """A new game of any variant (the engine of ``rules.variant``; the partnership game by default)."""
    return variant_kit(rules if rules is not None else Rules()).new_game(rng, **kwargs)
