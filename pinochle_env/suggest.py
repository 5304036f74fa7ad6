"""The nearest known name to a mistyped one, for the messages that refuse it (``heuristc``: did you
mean ``heuristic``?)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'NAME'?)`` with the known name nearest ``name``, or empty when none is near."""
    nearest = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f" (did you mean {nearest[0]!r}?)" if nearest else ""
