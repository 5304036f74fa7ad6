"""Replaying partnership hand records (the format of ``docs/rules.md``, "Hand record").

The loop is the shared one of :mod:`pinochle_env.replay`; this module says how a hand starts and
which action the record holds at each decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ...cards import card_from_str
from ...replay import auction_action, recorded_decisions, replay_record, take
from ...rules.switches import Rules
from .game import Game, Phase

#: Keys every partnership hand record has (extra keys are allowed).
RECORD_KEYS = (
    "variant",
    "options",
    "dealer",
    "deal",
    "auction",
    "declarer",
    "bid",
    "trump",
    "passed_to_declarer",
    "passed_back",
    "meld",
    "thrown_in",
    "tricks",
    "points",
    "score",
    "totals",
)


def _start(record: dict[str, Any]) -> Game:
    """The game as the record's hand was dealt (running totals as they stood before it)."""
    if record.get("variant") != "partnership":
        raise ValueError(f"not a partnership hand record (variant={record.get('variant')!r})")
    rules = Rules.from_mapping(record["options"])
    if len(record["totals"]) != 2 or len(record["score"]) != 2:
        raise ValueError(f"the record's totals {record['totals']} and score {record['score']} are not one per team")
    before = (record["totals"][0] - record["score"][0], record["totals"][1] - record["score"][1])
    game = Game(rules, np.random.default_rng(0), dealer=record["dealer"], deal=record["deal"], totals=before)
    game.hand_number = record.get("hand_number", 0)
    return game


def _recorded_action(game: Game, record: dict[str, Any], cursor: dict[str, int]) -> int:
    """The record's action at the game's current decision (see :mod:`pinochle_env.replay`)."""
    if game.phase == Phase.PASS_TO_DECLARER:
        return game.layout.card_action(card_from_str(record["passed_to_declarer"][take(cursor, "to_declarer")]))
    if game.phase == Phase.PASS_BACK:
        return game.layout.card_action(card_from_str(record["passed_back"][take(cursor, "back")]))
    return auction_action(game, record, cursor)


def decisions(record: dict[str, Any]) -> Iterator[tuple[Game, int, int]]:
    """Each decision of a recorded hand as ``(game, seat, action)``, the game as it stands *before*
    the action (the same object, advanced after each yield: clone it to keep it)."""
    return recorded_decisions(record, _start, _recorded_action)


def replay(record: dict[str, Any], upto: int | None = None) -> Game:
    """The game after replaying a record: the whole hand, or only its first ``upto`` decisions.

    Raises ``ValueError`` if the record is not a legal hand (an illegal action names itself) or,
    after a whole hand, when the replay's record differs from the given one (an edited record).
    """
    return replay_record(record, _start, _recorded_action, tuple(k for k in RECORD_KEYS if k != "deal"), upto)
