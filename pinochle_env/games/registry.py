"""The registry of games: :data:`GAMES`, one entry per variant name, and what the rule switches need
to know of a game before it is loaded (its teams, target score and the switches that mean something
in it). Adding a game is a new folder under ``pinochle_env/games/`` and one entry here
(``docs/adding_a_variant.md``); :func:`pinochle_env.games.kit.variant_kit` finds its kit.

This module imports nothing from the project, so the rule switches can read the registry without
loading any game.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameEntry:
    """What the rule switches need to know of a game before it is loaded."""

    #: The game's package; ``kit(rules)`` in it builds the game's kit.
    package: str
    #: The team of each seat (partners share one; without partners every seat is its own team).
    teams: tuple[int, ...]
    #: The score a game is played to when ``target_score`` is not given.
    target_score: int
    #: The rule switches that mean something in this game (besides ``variant``); None: all of them.
    switches: tuple[str, ...] | None = None


#: variant name -> its game. The first is the default variant.
GAMES: dict[str, GameEntry] = {
    "partnership": GameEntry("pinochle_env.games.partnership", teams=(0, 1, 0, 1), target_score=1500),
    "cutthroat": GameEntry(
        "pinochle_env.games.cutthroat",
        teams=(0, 1, 2),
        target_score=1500,
        # No partners: no help and no passing; the rest of the auction, meld and play rules apply.
        switches=(
            "bid_raises",
            "all_pass",
            "throw_in",
            "run_extras",
            "head_rule",
            "must_overtrump",
            "counting",
            "save_meld",
            "save_meld_applies_to",
            "max_bid",
            "target_score",
        ),
    ),
    # No auction and no throw-in; phase 2 has its own fixed play rules, melds are chosen one by one.
    "two_hand": GameEntry(
        "pinochle_env.games.two_hand", teams=(0, 1), target_score=1000, switches=("counting", "target_score")
    ),
}

#: The variant of a rule set that names none, and of hand records made before there were variants.
DEFAULT_VARIANT = next(iter(GAMES))
