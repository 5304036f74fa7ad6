"""Example material for the web app, and a server in the background: what the web tests and the
screenshot script (``docs/web_screenshots.py``) use. It lives with the tests, outside the installed
package: it starts servers and browsers, which no user of ``pinochle_web`` needs.

- :func:`bot_hands` writes hand records of bots playing each game (with their specs as the web
  table writes them), :func:`small_arena` runs a short duplicate arena into an output folder;
- :func:`background_server` runs the real ``pinochle-web`` command in a subprocess on a free
  port of 127.0.0.1 and yields its URL once it answers, stopping it afterwards;
- :func:`chromium_path` and :data:`CHROMIUM_ARGS` say how to start the system's Chromium
  (Debian's ``chromium`` package) headless, as the browser tests and the screenshots do with
  Playwright's ``executable_path`` (never ``playwright install``, which downloads a browser).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from agents.arena import ArenaConfig, run_arena
from agents.base import decide
from agents.registry import load_agent
from pinochle_env.games.kit import new_game
from pinochle_env.games.registry import GAMES
from pinochle_env.records import write_jsonl
from pinochle_env.rules.switches import Rules

ALL_VARIANTS = tuple(GAMES)
ROUND_ROBIN = ("random", "heuristic", "heuristic:aggression=1.3")
#: Chromium's switches here: as root it needs --no-sandbox; the others keep it off the network.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
CHROMIUM_INSTALL = "apt-get install chromium"


def chromium_path() -> str:
    """The system's Chromium: ``$PINOCHLE_CHROMIUM``, else ``chromium`` on the PATH, else Debian's
    ``/usr/bin/chromium`` (which may be missing: the caller checks)."""
    return os.environ.get("PINOCHLE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def bot_hands(path: Path, variants: Sequence[str] = ALL_VARIANTS, seed: int = 0, agent: str = "heuristic") -> Path:
    """One hand of each variant played by ``agent`` in every seat, written as hand records to
    ``path`` (with an ``agents`` key, as the web tables write it); returns ``path``."""
    records = []
    for index, variant in enumerate(variants):
        rules = Rules(variant=variant)
        game = new_game(rules, np.random.default_rng([seed, index]))
        agents = [load_agent(agent, seed=seat) for seat in range(rules.num_seats)]
        while not game.hand_over:
            game.apply(decide(agents[game.to_act], game))
        records.append({**game.record(), "agents": [agent] * rules.num_seats})
    write_jsonl(path, records)
    return path


def small_arena(out: Path, agents: Sequence[str] = ROUND_ROBIN, deals: int = 4, seed: int = 0) -> Path:
    """A short round robin (or match, with two agents) played into the arena folder ``out``."""
    run_arena(ArenaConfig(agents=tuple(agents), deals=deals, seed=seed), out)
    return out


@contextlib.contextmanager
def background_server(arguments: Sequence[str] = (), timeout: float = 60.0) -> Iterator[str]:
    """``pinochle-web --port 0 ARGUMENTS`` in a subprocess: yields its URL once ``/`` answers."""
    command = [sys.executable, "-m", "pinochle_web.cli", "--port", "0", *arguments]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        if "serving on " not in first:
            raise RuntimeError(f"pinochle-web did not start: {first}{process.stdout.read()}")
        url = first.split("serving on ", 1)[1].strip()
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"pinochle-web at {url} did not answer within {timeout:.0f} s") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
