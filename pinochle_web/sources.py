"""Reading what the catalogue lists: the hands of a records file, and an arena run's report.

A hand-record file holds one record per line (:func:`read_records`: the records of
``pinochle_env.records``, each line's nesting bounded by :func:`.limits.parse_json`, and a last
line cut short, as a kill during an append leaves it, left out rather than failing the file); an
arena's ``results.jsonl`` holds one deal or game pair per line, each with its plays and their hands
(``agents.arena.play``), read without repairing a line still being written
(``agents.arena.read_results(repair=False)``: a run in progress is left untouched). Both become one
list of :class:`Hand` in file order, so a hand has the same index in a replay link and in the
replay; an arena report lists the pairs by pairing, kind and id, whatever order they finished in.
An arena folder's ``config.json`` that is a symbolic link is not followed. Parsed files are cached
while they are unchanged (same size and modification time).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena import read_results
from agents.arena.report import deal_pair_margin, json_ready, summarise
from pinochle_env.games.registry import DEFAULT_VARIANT
from pinochle_env.records import checked_record
from pinochle_env.rules.switches import Rules

from .catalogue import CONFIG, RESULTS, Entry, plain_file
from .limits import parse_json


@dataclass(frozen=True)
class Hand:
    """One recorded hand: its record, a label, each seat's agent spec where known, and for arena
    results the index of its line (deal or game pair) in the results file."""

    record: dict[str, Any]
    label: str
    agents: tuple[str, ...] | None = None
    unit: int | None = None

    def summary(self, index: int) -> dict[str, Any]:
        return {
            "index": index,
            "label": self.label,
            "variant": self.record.get("variant", DEFAULT_VARIANT),
            "agents": list(self.agents) if self.agents else None,
            "unit": self.unit,
        }


def describe(record: dict[str, Any]) -> str:
    """A hand in a few words: the contract and how it went (auction games), and the score."""
    score = " / ".join(f"{points:+d}" for points in record["score"])
    if record.get("bid") is None or record.get("declarer") is None:
        return f"score {score}"
    made = record.get("made")
    outcome = "thrown in" if record.get("thrown_in") else "played" if made is None else "made" if made else "set"
    return f"player {record['declarer']} bid {record['bid']}, {outcome}; score {score}"


def read_records(path: Path) -> list[dict[str, Any]]:
    """The hand records of a JSONL file, one per non-empty line (``ValueError`` naming a line that
    is not one); a last line without its newline that does not read is left out: the hand being
    appended when its writer was killed."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    torn = lines.pop()  # after the last newline: empty, or a line cut short
    records = [_record(path, number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if torn.strip():
        with contextlib.suppress(ValueError):
            records.append(_record(path, len(lines) + 1, torn))
    return records


def _record(path: Path, number: int, line: bytes) -> dict[str, Any]:
    """Line ``number`` of a records file as a hand record (``ValueError`` naming the line)."""
    try:
        record = parse_json(line)
    except ValueError as error:
        raise ValueError(f"{path}:{number}: not a JSON hand record ({error})") from None
    return checked_record(record, f"{path}:{number}")


def load_hands(entry: Entry) -> list[Hand]:
    """Every hand of a records entry, in file order (``ValueError`` naming a bad line)."""
    stat = entry.path.stat()
    return list(_hands(entry.path, entry.arena_results, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=8)
def _hands(path: Path, arena_results: bool, mtime: int, size: int) -> tuple[Hand, ...]:
    if not arena_results:
        hands = []
        for number, record in enumerate(read_records(path), start=1):
            agents = record.get("agents")
            spelled = tuple(str(spec) for spec in agents) if isinstance(agents, list) else None
            hands.append(Hand(record, f"hand {number}: {describe(record)}", spelled))
        return tuple(hands)
    return tuple(_arena_hands(_results(path, mtime, size)))


@functools.lru_cache(maxsize=8)
def _results(path: Path, mtime: int, size: int) -> tuple[dict[str, Any], ...]:
    try:
        return tuple(read_results(path, repair=False))
    except RecursionError:
        raise ValueError(f"{path}: a line nested too deeply to read") from None


def _arena_hands(lines: tuple[dict[str, Any], ...]) -> list[Hand]:
    """The hands of arena results: per line (a pair), per play (A on each team), per hand."""
    hands = []
    for unit, line in enumerate(lines):
        for play in line["plays"]:
            for number, record in enumerate(play["hands"], start=1):
                teams = Rules.from_mapping(record["options"]).teams
                agents = tuple(line["a"] if team == play["a_team"] else line["b"] for team in teams)
                a_seats = "/".join(str(seat) for seat, team in enumerate(teams) if team == play["a_team"])
                hand = f", hand {number}" if len(play["hands"]) > 1 else ""
                label = f"{line['kind']} pair {line['id']}: A={line['a']} in seat {a_seats}{hand}; {describe(record)}"
                hands.append(Hand(record, label, agents, unit))
    return hands


def arena_report(entry: Entry) -> dict[str, Any]:
    """An arena folder's report: its config, the summary ``pinochle-arena`` writes (margins and
    intervals, games, contract statistics per side, ratings and cross table with 3+ agents), and
    each pair with its margin and the index of its first hand in the results file's replay."""
    folder = entry.path
    config = parse_json((folder / CONFIG).read_bytes()) if plain_file(folder / CONFIG) else None
    results = folder / RESULTS
    if not plain_file(results):
        raise ValueError(f"{results} is not a plain file (a symbolic link is not followed)")
    stat = results.stat()
    lines = _results(results, stat.st_mtime_ns, stat.st_size)
    hands = _hands(results, True, stat.st_mtime_ns, stat.st_size)
    if config is not None:
        agents = config.get("agents") if isinstance(config, dict) else None
        if not (isinstance(agents, list) and agents and all(isinstance(spec, str) for spec in agents)):
            raise ValueError(f"{folder / CONFIG}: its agents are not a list of agent specs ({agents!r:.60})")
    else:  # results without their config: the agents in order of appearance
        agents = list(dict.fromkeys(spec for line in lines for spec in (line["a"], line["b"])))
    first_hand: dict[int, int] = {}
    for index, hand in enumerate(hands):
        first_hand.setdefault(hand.unit if hand.unit is not None else -1, index)
    pairs = [
        {
            "kind": line["kind"],
            "id": line["id"],
            "a": line["a"],
            "b": line["b"],
            "margin": deal_pair_margin(line),
            "hands": sum(len(play["hands"]) for play in line["plays"]),
            "first_hand": first_hand.get(unit),
        }
        for unit, line in enumerate(lines)
    ]
    summary = summarise(list(lines), agents)
    order = {(pairing["a"], pairing["b"]): index for index, pairing in enumerate(summary["pairings"])}
    pairs.sort(key=lambda pair: (order.get((pair["a"], pair["b"]), len(order)), pair["kind"], pair["id"]))
    return json_ready({"name": entry.name, "config": config, "summary": summary, "pairs": pairs})
