"""The rules of the game, in one place: the rule switches and the pure rule functions of docs/rules.md.

- :mod:`.switches`: :class:`~.switches.Rules`, the frozen set of rule switches every game and agent
  takes (validated once, with named ``PRESETS`` and ``random_rules``);
- :mod:`.meld`, :mod:`.tricks`, :mod:`.scoring`: meld, trick legality and winner, hand scoring and
  game end, as functions of counts, cards and switches (nothing here holds state, so the tables of
  the rules can be checked one function at a time). They are re-exported here:
  ``from pinochle_env import rules as R; R.meld(counts, trump)``.

The games themselves (engines, encoders, the registry and each game's kit) are :mod:`pinochle_env.games`.
"""

from __future__ import annotations

from .meld import AROUND_NAMES, AROUND_POINTS, RUN_RANKS, Meld, meld, shown_meld
from .scoring import HandScore, game_winner, meld_kept, score_hand, trick_points
from .switches import PRESETS, Rules
from .tricks import (
    ABOVE_BITS,
    BEATEN_BY,
    CARD_BITS,
    HEAD_WORDS,
    SUIT_BITS,
    SUIT_CARDS,
    beats,
    bits_to_cards,
    held_bits,
    legal_card_bits,
    legal_cards,
    play_refusal,
    trick_winner,
)

__all__ = [
    "ABOVE_BITS",
    "AROUND_NAMES",
    "AROUND_POINTS",
    "BEATEN_BY",
    "CARD_BITS",
    "HEAD_WORDS",
    "PRESETS",
    "RUN_RANKS",
    "SUIT_BITS",
    "SUIT_CARDS",
    "HandScore",
    "Meld",
    "Rules",
    "beats",
    "bits_to_cards",
    "game_winner",
    "held_bits",
    "legal_card_bits",
    "legal_cards",
    "meld",
    "meld_kept",
    "play_refusal",
    "score_hand",
    "shown_meld",
    "trick_points",
    "trick_winner",
]
