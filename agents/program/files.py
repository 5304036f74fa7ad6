"""Which files a bot program's command runs, for the arena's record of what played (their hashes).

The arguments after the program that name existing files are the bot (``python3 bots/mine.py``:
``bots/mine.py``; an interpreter is not the bot, even when given by its path); where none does,
the program itself is, when it is given as a path (``./mine``; a name looked up on ``PATH`` is not
hashed). A module run with ``-m``, or files the program reads by itself, are not seen: the docs
say so.
"""

from __future__ import annotations

import os
from pathlib import Path

from .agent import parse_command


def program_files(command: str) -> list[Path]:
    """The files a command names (see the module docstring), in order, each once."""
    program, *arguments = parse_command(command)
    found = [Path(text) for text in arguments if Path(text).is_file()]
    if not found and os.sep in program and Path(program).is_file():
        found = [Path(program)]
    return list(dict.fromkeys(found))
