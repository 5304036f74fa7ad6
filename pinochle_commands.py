"""The console scripts' entry points (``pinochle-arena`` and the rest, and ``train.py``): each imports
its command's module and runs its ``main``, with a Ctrl-C during that import ending in one line.

A console script's wrapper imports the module it names before anything in it runs, and a command's
module takes a while to import (0.2 to 0.35 s each: numpy, PettingZoo, the engine; PyTorch comes
later, inside ``main``). Pointed straight at the command's ``main``, a Ctrl-C in that time
printed a Python traceback, where a user's action deserves one line (``pinochle-arena``,
``pinochle-iterate`` and ``pinochle-train`` say one of an interrupted run). The scripts point here
instead: this module imports only the standard library, so it loads at once, and it imports the
command's module where an interruption can be caught; a Ctrl-C that ``main`` lets through ends in
one line as well.

It is a top-level module, not part of a package: each package may import only the layers below it,
and some command lives in a layer that is not (the agents may import neither the trainer nor the
web app, and those two not each other); ``pinochle_env``'s ``__init__`` imports the engine besides.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from functools import partial

#: The exit status of a command stopped by Ctrl-C (or SIGTERM), as its ``main`` returns it (128 + SIGINT).
INTERRUPTED = 130

#: Each command by its name (its console script's, less ``pinochle-``): the module whose ``main`` runs it.
COMMANDS = {
    "demo": "pinochle_env.demo",
    "arena": "agents.arena.cli",
    "bot-check": "agents.program.check",
    "play": "agents.terminal.cli",
    "iterate": "pinochle_train.iteration",
    "train": "pinochle_train.cli",
    "web": "pinochle_web.cli",
}


def run(command: str, argv: Sequence[str] | None = None) -> int | None:
    """Run ``command``'s ``main`` on ``argv`` (``None``: the process's arguments) and return what it
    returns (the exit status). A Ctrl-C while its module is being imported returns
    :data:`INTERRUPTED` after one line on stderr, in the form of the commands' own
    (``arena: interrupted; ...``), instead of a traceback: nothing was started, so nothing is to be
    continued. The commands whose runs can be continued (arena, train, iterate) catch a Ctrl-C in
    their ``main`` and say how; one that reaches here from ``main`` (``pinochle-demo``,
    ``pinochle-bot-check``, ``pinochle-play`` while its agents load) ends the same way, in one line."""
    try:
        module = importlib.import_module(COMMANDS[command])
    except KeyboardInterrupt:
        print(f"{command}: interrupted while loading; nothing was done", file=sys.stderr, flush=True)
        return INTERRUPTED
    try:
        status: int | None = module.main(argv)
    except KeyboardInterrupt:  # a command that keeps nothing to continue (demo, bot-check) lets it through
        print(f"{command}: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED
    return status


# The console scripts of pyproject.toml ([project.scripts]); tests/project/test_packaging.py checks
# that each script names the one of its command.
demo = partial(run, "demo")
arena = partial(run, "arena")
bot_check = partial(run, "bot-check")
play = partial(run, "play")
iterate = partial(run, "iterate")
train = partial(run, "train")
web = partial(run, "web")
