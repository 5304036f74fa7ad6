"""The games, one package each, with the same module names in every package.

Each ``pinochle_env/games/<game>/`` holds ``game.py`` (the engine, its phases and its view),
``encoding.py`` (its observation), ``replay.py`` (its hand records), ``render.py`` (its table as
text) and an ``__init__`` with ``kit(rules)``, the declarations the generic layers read
(:class:`pinochle_env.kit.VariantKit`). :data:`GAMES` is the registry: adding a game is a new
folder and one entry here (``docs/adding_a_variant.md``).

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
