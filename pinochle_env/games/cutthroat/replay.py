"""Replaying cutthroat hand records (the format of ``docs/cutthroat.md``, "Hand record").

The loop is the shared one of :mod:`pinochle_env.replay`; this module says how a hand starts and
which action the record holds at each decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ...cards import card_from_str, parse_cards
from ...replay import auction_action, recorded_decisions, replay_record, take
from ...rules.switches import Rules
from .game import CutthroatGame, Phase

#: Keys every cutthroat hand record has.
RECORD_KEYS = (
    "variant",
    "options",
    "dealer",
    "deal",
    "widow",
    "auction",
    "declarer",
    "bid",
    "trump",
    "buried",
    "meld",
    "melds",
    "thrown_in",
    "tricks",
    "points",
    "buried_points",
    "score",
    "totals",
    "made",
    "hand_number",
    "game_winner",
)


def _start(record: dict[str, Any]) -> CutthroatGame:
    """The game as the record's hand was dealt (running totals as they stood before it)."""
    if record.get("variant") != "cutthroat":
        raise ValueError(f"not a cutthroat hand record (variant={record.get('variant')!r})")
    rules = Rules.from_mapping(record["options"])
    before = [total - change for total, change in zip(record["totals"], record["score"], strict=True)]
    game = CutthroatGame(rules, np.random.default_rng(0), dealer=record["dealer"], deal=record["deal"], totals=before)
    if sorted(parse_cards(record["widow"])) != game.widow:
        raise ValueError(f"the record's widow {record['widow']} is not the 3 cards its deal leaves out")
    game.hand_number = record.get("hand_number", 0)
    return game


def _recorded_action(game: CutthroatGame, record: dict[str, Any], cursor: dict[str, int]) -> int:
    """The record's action at the game's current decision (see :mod:`pinochle_env.replay`)."""
    if game.phase == Phase.BURY:
        return game.layout.card_action(card_from_str(record["buried"][take(cursor, "buried")]))
    return auction_action(game, record, cursor)


def decisions(record: dict[str, Any]) -> Iterator[tuple[CutthroatGame, int, int]]:
    """Each decision of a recorded hand as ``(game, seat, action)``, the game as it stands *before*
    the action (the same object, advanced after each yield: clone it to keep it)."""
    return recorded_decisions(record, _start, _recorded_action)


def replay(record: dict[str, Any], upto: int | None = None) -> CutthroatGame:
    """The game after replaying a record: the whole hand, or only its first ``upto`` decisions.

    Raises ``ValueError`` for a record of another variant or one that is not a legal hand, and,
    after a whole hand, when the replay's record differs from the given one (an edited record).
    """
    keys = tuple(key for key in RECORD_KEYS if key not in ("deal", "widow"))
    return replay_record(record, _start, _recorded_action, keys, upto)
