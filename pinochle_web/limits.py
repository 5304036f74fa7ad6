"""What one request or one file may cost the server: the limits docs/web.md ("Limits") documents.

A request body is read up to :data:`MAX_BODY_BYTES`; JSON nested deeper than
:data:`MAX_JSON_DEPTH` (a request body, a line of a records file named with ``--open``) is
refused by :func:`parse_json` before anything walks it, so that no input reaches the
interpreter's recursion limit; the server keeps at most :data:`MAX_TABLES` tables and closes one
unused for :data:`TABLE_IDLE_SECONDS`; the command line bounds the agents' threads and the pace.
"""

from __future__ import annotations

import json
from typing import Any

#: The largest request body read (bytes): a table request is well under a kilobyte.
MAX_BODY_BYTES = 1_000_000
#: The deepest JSON nesting read: a hand record nests about 4 levels, an arena result line about 8.
MAX_JSON_DEPTH = 32
#: The most tables kept at once: opening one more closes the least recently used.
MAX_TABLES = 300
#: A table nobody asked about for this long (seconds) is closed; its finished hands stay saved.
TABLE_IDLE_SECONDS = 3600.0
#: How many closed tables are remembered, so that each answers "closed" (410) rather than "unknown".
CLOSED_TABLES_REMEMBERED = 10 * MAX_TABLES
#: The most threads ``--workers`` may ask for, and the longest ``--pace`` (seconds).
MAX_WORKERS = 32
MAX_PACE = 60.0


class TooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_JSON_DEPTH`."""


def parse_json(text: str | bytes) -> Any:
    """``json.loads(text)`` (``ValueError`` for what is not JSON), refusing JSON nested deeper than
    :data:`MAX_JSON_DEPTH` (:class:`TooDeep`, also for nesting too deep for the parser itself)."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
    else:
        if nesting_depth(value, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH:
            return value
    raise TooDeep(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")


def nesting_depth(value: Any, stop: int) -> int:
    """How deeply lists and dicts nest in ``value`` (a scalar: 0), counted level by level without
    recursion, and no further than ``stop + 1``."""
    depth = 0
    level = [value]
    while depth <= stop:
        containers = [item for item in level if isinstance(item, (list, dict))]
        if not containers:
            break
        depth += 1
        level = [child for item in containers for child in (item.values() if isinstance(item, dict) else item)]
    return depth
