"""The terminal UI: ``pinochle-play``, a person playing at a table in the terminal (:mod:`.cli`: the
command line; :mod:`.session`: the seat at the table; :mod:`.tables`: how each game is told).
"""

from .cli import main, parse_options
from .session import PlayOptions, PlaySession

__all__ = ["PlayOptions", "PlaySession", "main", "parse_options"]
