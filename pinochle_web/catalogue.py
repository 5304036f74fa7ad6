"""What the server may read: the files and folders named on its command line, and nothing else.

``--open`` names hand-record files (JSONL: the play CLI's, the web table's, any ``write_jsonl``
output), arena results (an arena output folder, or its ``results.jsonl``), checkpoints (``.pt``)
and folders holding any of these (searched a few levels deep); the records folder of the web
tables is searched too. Each file found gets an id (a hash of its resolved path), and the API
takes only ids: a request can name no path, so no request reaches outside what was named.
Symbolic links inside a named folder are not followed, nor an arena folder's ``results.jsonl``
or ``config.json`` that is one (:func:`plain_file`). A file whose first line is not JSON, or is
nested too deeply (:func:`.limits.parse_json`), is left out.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .limits import parse_json

#: How deep a named folder is searched, and how many files are looked at in all.
MAX_DEPTH = 4
MAX_FILES = 5000
RESULTS, CONFIG = "results.jsonl", "config.json"


@dataclass(frozen=True)
class Entry:
    """One thing the server may read: its ``kind`` (``records``, a file of hand records or arena
    results; ``arena``, an arena output folder; ``checkpoint``), its file or folder, and for
    records whether they are arena results (lines of deal pairs) rather than hand records."""

    id: str
    kind: str
    path: Path
    name: str
    arena_results: bool = False

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "kind": self.kind, "name": self.name, "path": str(self.path)}


def entry_id(path: Path) -> str:
    """The id of a file or folder: stable across scans and restarts, and not a path."""
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]


def first_line(path: Path) -> dict | None:
    """The first non-empty line of a JSONL file as a JSON object, or None if it is not one."""
    try:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                if line.strip():
                    value = parse_json(line)
                    return value if isinstance(value, dict) else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None


def plain_file(path: Path) -> bool:
    """Whether ``path`` is a file and not a symbolic link (to one)."""
    return path.is_file() and not path.is_symlink()


def is_arena_line(line: dict) -> bool:
    """Whether a results line is an arena unit (a deal or game pair holding its plays)."""
    return "plays" in line and "kind" in line


class Catalogue:
    """The entries under ``roots`` (files or folders named on the command line) and ``records``
    (the web tables' records folder, searched again on each listing: tables add files to it)."""

    def __init__(self, roots: Iterable[Path], records: Path | None = None) -> None:
        self.roots = [Path(root) for root in roots]
        self.records = records
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()
        self.scan()

    def scan(self) -> None:
        """Look at every named file and folder again."""
        entries: dict[str, Entry] = {}
        roots = [*self.roots, *([self.records] if self.records is not None else [])]
        for entry in self._find(roots):
            entries.setdefault(entry.id, entry)
        with self._lock:
            self._entries = entries

    def entries(self, kind: str) -> list[Entry]:
        with self._lock:
            return sorted((e for e in self._entries.values() if e.kind == kind), key=lambda e: str(e.path))

    def get(self, entry_id: str, kind: str) -> Entry:
        """The entry of an id and kind (the folders scanned again once if it is not known yet);
        ``KeyError`` if there is none."""
        for attempt in range(2):
            with self._lock:
                entry = self._entries.get(entry_id)
            if entry is not None and entry.kind == kind:
                return entry
            if attempt == 0:
                self.scan()
        raise KeyError(entry_id)

    def _find(self, roots: list[Path]) -> Iterator[Entry]:
        budget = [MAX_FILES]
        for root in roots:
            if root.is_dir():
                yield from self._folder(root, root, 0, budget)
            elif root.is_file():
                yield from self._file(root, root.name)

    def _folder(self, folder: Path, root: Path, depth: int, budget: list[int]) -> Iterator[Entry]:
        """The entries in ``folder`` (``depth`` levels below the named ``root``), while ``budget``
        (files still to look at) lasts; names are paths from the root's parent."""
        if plain_file(folder / RESULTS):
            yield Entry(entry_id(folder), "arena", folder.resolve(), str(folder.relative_to(root.parent)))
        try:
            children = sorted(os.scandir(folder), key=lambda child: child.name)
        except OSError:
            return
        for child in children:
            if budget[0] <= 0 or child.name.startswith(".") or child.is_symlink():
                continue
            budget[0] -= 1
            path = Path(child.path)
            if child.is_dir() and depth < MAX_DEPTH:
                yield from self._folder(path, root, depth + 1, budget)
            elif child.is_file():
                yield from self._file(path, str(path.relative_to(root.parent)))

    def _file(self, path: Path, name: str) -> Iterator[Entry]:
        """The entry of a file, if it is a checkpoint or JSON lines (hand records or arena results)."""
        if path.suffix == ".pt":
            yield Entry(entry_id(path), "checkpoint", path.resolve(), name)
        elif path.suffix == ".jsonl":
            line = first_line(path)
            if line is None and path.stat().st_size:
                return  # not JSON lines: nothing to show
            arena = line is not None and is_arena_line(line)
            yield Entry(entry_id(path), "records", path.resolve(), name, arena_results=arena)
