"""Replaying two-handed hand records (the format of ``docs/two_hand.md``).

The loop is the shared one of :mod:`pinochle_env.replay`; this module says how a hand starts and
which action the record holds at each decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ...cards import card_from_str
from ...replay import recorded_decisions, replay_record, take
from ...rules.switches import Rules
from .actions import LAYOUT
from .game import NUM_SEATS, Phase, TwoHandGame

#: The keys of a two-handed hand record (docs/two_hand.md).
RECORD_KEYS = (
    "variant", "options", "dealer", "deal", "turn_up", "stock", "trump", "turn_up_dix", "tricks", "melds",
    "draws", "meld", "points", "score", "totals", "game_winner", "hand_number",
)  # fmt: skip


def _start(record: dict[str, Any]) -> TwoHandGame:
    """The game as the record's hand was dealt (running totals as they stood before it)."""
    if record.get("variant") != "two_hand":
        raise ValueError(f"not a two_hand record: variant {record.get('variant')!r}")
    rules = Rules.from_mapping(record["options"])
    before = [total - score for total, score in zip(record["totals"], record["score"], strict=True)]
    deal = {"hands": record["deal"], "turn_up": record["turn_up"], "stock": record["stock"]}
    game = TwoHandGame(rules, np.random.default_rng(0), dealer=record["dealer"], deal=deal, totals=before)
    game.hand_number = record.get("hand_number", 0)
    return game


def _recorded_action(game: TwoHandGame, record: dict[str, Any], cursor: dict[str, int]) -> int:
    """The record's action at the game's current decision (see :mod:`pinochle_env.replay`): a card
    of ``tricks``, or the next entry of the meld turn's list in ``melds`` ("no meld" after the last)."""
    if game.phase == Phase.MELD:
        turn = len(game.tricks) - 1
        entries = record["melds"][turn]
        made = cursor.get(f"meld {turn}", 0)
        if made == len(entries):
            return LAYOUT.no_meld
        entry = entries[take(cursor, f"meld {turn}")]
        if entry["seat"] != game.to_act:
            raise ValueError(f"record has player {entry['seat']} melding where player {game.to_act} is to act")
        return LAYOUT.from_string(entry["meld"])
    index = take(cursor, "card")
    return LAYOUT.card_action(card_from_str(record["tricks"][index // NUM_SEATS]["cards"][index % NUM_SEATS]))


def decisions(record: dict[str, Any]) -> Iterator[tuple[TwoHandGame, int, int]]:
    """Each decision of a recorded hand as ``(game, seat, action)``, the game as it stands *before*
    the action (the same object, advanced after each yield: clone it to keep it)."""
    return recorded_decisions(record, _start, _recorded_action)


def replay(record: dict[str, Any], upto: int | None = None) -> TwoHandGame:
    """The game after replaying a record: the whole hand, or only its first ``upto`` decisions.

    Raises ``ValueError`` for a record of another variant, an illegal decision, or a record whose
    results differ from its replay (an edited record).
    """
    return replay_record(record, _start, _recorded_action, tuple(k for k in RECORD_KEYS if k != "deal"), upto)
