"""Finding a game's kit: ``variant_kit(rules)`` and ``new_game(rules)`` for any variant.

``variant_kit(rules)`` returns the :class:`~pinochle_env.kit.VariantKit` of ``rules.variant``,
built by the game's own package (``pinochle_env/games/<game>/``), which is imported the first time
a rule set of that game is used. The registry itself is :data:`pinochle_env.games.GAMES`: adding
a game is a new folder under ``pinochle_env/games/`` and one entry there
(``docs/adding_a_variant.md``).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np

from .games import GAMES
from .kit import VariantKit, margins
from .switches import Rules

__all__ = ["VariantKit", "margins", "new_game", "variant_kit"]


@functools.lru_cache(maxsize=64)
def variant_kit(rules: Rules) -> VariantKit:
    """The kit of ``rules.variant`` for this rule set (built once per rule set)."""
    package = importlib.import_module(GAMES[rules.variant].package)
    kit: VariantKit = package.kit(rules)
    return kit


def new_game(rules: Rules | None = None, rng: np.random.Generator | None = None, **kwargs: Any) -> Any:
    """A new game of any variant (the engine of ``rules.variant``; the partnership game by default)."""
    return variant_kit(rules if rules is not None else Rules()).new_game(rng, **kwargs)
