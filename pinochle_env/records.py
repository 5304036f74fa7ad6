"""Hand records: JSONL files, exact replay, and arrays for imitation learning and offline RL.

A hand record is the dict a game's ``record()`` returns at the end of a hand, in the format of
``docs/rules.md`` ("Hand record") for the partnership game, ``docs/cutthroat.md`` and
``docs/two_hand.md`` for the others; every record names its variant and rule switches, and each
game's own ``replay`` module reads it. Records replay on their own: the record holds every rule
switch, the deal, the dealer and every decision, so :func:`replay` rebuilds exactly the same final
state, and :func:`replay` with ``upto=k`` stops just before decision ``k`` (the state at any
decision).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .episode import check_reward_scale
from .games.kit import VariantKit, margins, variant_kit
from .rules.switches import Rules

#: Keys every hand record of every variant has (extra keys are allowed).
COMMON_KEYS = ("variant", "options", "dealer", "deal", "tricks", "score", "totals")


def write_jsonl(path: str | os.PathLike[str], records: Iterable[dict[str, Any]], append: bool = False) -> int:
    """Write records one JSON object per line (appending if asked); returns how many were written.

    Appending after a last line with no newline: a complete record there gets its newline; a line
    cut short (a kill while a record was written: never a record) is removed, so that the file
    stays one record per line rather than the next record joining the broken one. ``ValueError``,
    before anything is written, for a record that is not a dict (one record passed alone, not in a
    list, would otherwise be written as its keys)."""
    if isinstance(records, dict):
        raise ValueError("records must be a list of hand records, not one record: write_jsonl(path, [record])")
    records = list(records)
    for number, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"record {number} is not a hand record (a {type(record).__name__})")
    if append:
        _end_last_line(Path(path))
    count = 0
    with open(path, "a" if append else "w", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
    return count


def _end_last_line(path: Path) -> None:
    """End the file's last line before an append (see :func:`write_jsonl`)."""
    if not path.is_file():
        return
    with open(path, "r+b") as stream:
        data = stream.read()
        if not data or data.endswith(b"\n"):
            return
        start = data.rfind(b"\n") + 1
        try:
            json.loads(data[start:])
        except (ValueError, RecursionError):  # cut short (or nested past reading): not a record
            stream.truncate(start)
        else:
            stream.write(b"\n")


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Records of a JSONL file, one per non-empty line; a malformed line (not UTF-8, not JSON, nested
    past reading) raises ``ValueError`` naming its number."""
    with open(path, "rb") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise ValueError(f"{Path(path)}:{number}: not a JSON hand record (not UTF-8 text)") from None
            except json.JSONDecodeError as error:
                raise ValueError(f"{Path(path)}:{number}: not a JSON hand record ({error.msg})") from None
            except RecursionError:
                raise ValueError(f"{Path(path)}:{number}: not a JSON hand record (nested too deeply)") from None
            yield checked_record(record, f"{Path(path)}:{number}")


def checked_record(record: Any, where: str) -> dict[str, Any]:
    """``record`` (decoded JSON) if it is a hand record with every common key, else ``ValueError``
    naming ``where`` (a file and line) and what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: not a JSON hand record (a {type(record).__name__})")
    missing = [key for key in COMMON_KEYS if key not in record]
    if missing:
        raise ValueError(f"{where}: hand record lacks {', '.join(missing)}")
    return record


def dealer_stuck(record: dict[str, Any]) -> bool:
    """Whether the hand's dealer was stuck: declarer at the minimum bid after every other seat passed
    (``all_pass = "dealer_stuck"``), seen in the record as a declarer with no bid in the auction.
    False for a game without an auction (two-handed)."""
    declarer = record.get("declarer")
    if declarer is None or declarer < 0:
        return False
    return not any(isinstance(call, int) for _, call in record["auction"])


def decisions(record: dict[str, Any]) -> Iterator[tuple[Any, int, int]]:
    """Each decision of a recorded hand (any variant) as ``(game, seat, action)``, the game as it
    stands *before* the action (the same object, advanced after each yield: clone it to keep it)."""
    return _kit(record).decisions(record)


def replay(record: dict[str, Any], upto: int | None = None) -> Any:
    """The game after replaying a record (any variant): the whole hand, or only its first ``upto``
    decisions. Raises ``ValueError`` if the record is not a legal hand (an illegal action names itself)."""
    return _kit(record).replay(record, upto)


def _kit(record: dict[str, Any]) -> VariantKit:
    """The variant kit of a record's rule set (``ValueError`` for a record that names none)."""
    if not isinstance(record, dict) or "options" not in record:
        raise ValueError("not a hand record: it has no 'options'")
    return variant_kit(Rules.from_mapping(checked_record(record, "the hand record")["options"]))


def to_arrays(
    records: Iterable[dict[str, Any]], reward_scale: float = 1000.0, states: bool = False
) -> dict[str, np.ndarray]:
    """Per-decision training arrays from records, for imitation learning and offline RL.

    Returns ``observation`` (T, obs) float32 and ``action_mask`` (T, actions) int8 exactly as the
    environment shows them to the acting seat, ``action`` (T,), ``seat`` (T,), ``hand`` (T,)
    (index of the record), ``reward`` (T,) float32 and ``done`` (T,) bool: each seat's last
    decision of a hand carries its team's margin reward (own hand score minus the other's, over
    ``reward_scale``) and ``done``; all other rewards are 0. All records must share the rule set's
    ``max_bid`` (the observation layout depends on it). With ``states=True`` a ``state`` column
    (T, state) holds the perfect-information state of each decision (as ``env.state()`` encodes it
    for the acting seat), for critics that see all hands. The rewards are the replay's score; a
    record whose score differs from it (an edited record) is a ``ValueError``.
    """
    check_reward_scale(reward_scale)
    columns: dict[str, list[Any]] = {
        k: [] for k in ("observation", "state", "action_mask", "action", "seat", "hand", "reward", "done")
    }
    kit: VariantKit | None = None
    for hand, record in enumerate(records):
        record_kit = _kit(record)
        if kit is None:
            kit = record_kit
        elif (record_kit.rules.variant, record_kit.spec.size) != (kit.rules.variant, kit.spec.size):
            raise ValueError(
                f"record {hand} ({record_kit.rules.variant}, max_bid {record_kit.rules.max_bid}) does not share "
                f"the observation layout of record 0 ({kit.rules.variant}, max_bid {kit.rules.max_bid})"
            )
        encoder = record_kit.make_encoder()
        last_of_seat: dict[int, int] = {}
        game = None
        for game, seat, action in record_kit.decisions(record):
            last_of_seat[seat] = len(columns["action"])
            observation = encoder.observation(game, seat)
            columns["observation"].append(observation)
            if states:
                columns["state"].append(record_kit.encode_state(game, seat, observation))
            mask = np.zeros(game.layout.size, np.int8)
            mask[game.legal_actions()] = 1
            columns["action_mask"].append(mask)
            columns["action"].append(action)
            columns["seat"].append(seat)
            columns["hand"].append(hand)
            columns["reward"].append(0.0)
            columns["done"].append(False)
        # The generator applies each action after yielding it: ``game`` is now the finished hand.
        if game is None:
            raise ValueError(f"record {hand} holds no decision")
        score = game.record()["score"]
        if score != record.get("score"):
            raise ValueError(f"record {hand}: its score {record.get('score')} differs from its replay's {score}")
        paid = margins(score, record_kit.teams)
        for seat, index in last_of_seat.items():
            columns["reward"][index] = paid[seat] / reward_scale
            columns["done"][index] = True
    if kit is None:
        raise ValueError("no records given")
    extra = {"state": np.asarray(columns["state"], np.float32).reshape(-1, kit.state_size)} if states else {}
    return {
        **extra,
        "observation": np.asarray(columns["observation"], np.float32).reshape(-1, kit.spec.size),
        "action_mask": np.asarray(columns["action_mask"], np.int8),
        "action": np.asarray(columns["action"], np.int64),
        "seat": np.asarray(columns["seat"], np.int8),
        "hand": np.asarray(columns["hand"], np.int64),
        "reward": np.asarray(columns["reward"], np.float32),
        "done": np.asarray(columns["done"], bool),
    }
