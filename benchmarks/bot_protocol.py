"""The bot protocol's cost: the Python reference bot through the protocol against the same logic in
this process, with one arena worker.

``examples/random_bot.py`` picks a legal action with ``random.Random``, seeded by its match; the
in-process agent here (:class:`ReferenceLogic`) does exactly that, without the protocol. Two
measurements, both against ``random`` in the partnership game:

- the arena, one worker in this process, ``--deals`` deal pairs: each side's decisions/s by the
  arena's own timing (view and mask building included). The worker's jobs hold up to 32 deal
  pairs of a pairing with a bot program (200 make six jobs of 32 and one of 8), and the bot is one
  process per play and seat of a job, a new match each deal (the protocol's duplicate fairness):
  with 200 deal pairs, 28 processes for about 10,000 decisions;
- one long match of ``--hands`` hands, the bot in seat 0: decisions/s after the first decision
  (the protocol's cost per decision, the process already running) and the first decision's time
  (the process start and handshake), each side timed the same way.

Usage::

    python benchmarks/bot_protocol.py                  # 200 deal pairs, a match of 200 hands
    python benchmarks/bot_protocol.py --record         # the table of docs/bot_protocol.md
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from figures import ROOT, command_line, record

from agents.arena import ArenaConfig, read_results, run_arena
from agents.base import RandomAgent, close, decide, tell_hand_over
from agents.program import ProgramAgent
from agents.registry import register
from pinochle_env.games.kit import new_game
from pinochle_env.rules.switches import Rules

#: The in-process twin of the reference bot, registered under this name for the arena.
IN_PROCESS = "reference_logic"


class ReferenceLogic:
    """``examples/random_bot.py``'s choice, in this process: ``random.Random`` seeded per match."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = IN_PROCESS
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random((seed or 0) % 2**31)

    def act(self, view: Any, mask: np.ndarray) -> int:
        return int(self._rng.choice(np.flatnonzero(mask)))


def arena_rate(spec: str, deals: int, folder: Path) -> dict[str, float]:
    """Side A's decisions, seconds and decisions/s over ``deals`` deal pairs against random."""
    out = folder / spec.split(":")[0]
    run_arena(ArenaConfig(agents=(spec, "random"), deals=deals), out, workers=1)
    lines = read_results(out / "results.jsonl", repair=False)
    decisions = sum(line["timing"]["a"][0] for line in lines)
    seconds = sum(line["timing"]["a"][1] for line in lines)
    return {"decisions": decisions, "seconds": seconds, "per_second": decisions / seconds}


def match_rate(agent: Any, hands: int) -> dict[str, float]:
    """One match of ``hands`` hands with ``agent`` in seat 0 and random in the others: its decisions/s
    after the first decision, and the first decision's seconds."""
    agents = {0: agent, **{seat: RandomAgent(seat) for seat in (1, 2, 3)}}
    first, decisions, seconds = None, 0, 0.0
    for hand in range(hands):
        game = new_game(Rules(), np.random.default_rng(hand))
        while not game.hand_over:
            seat = game.to_act
            start = time.perf_counter()
            action = decide(agents[seat], game)
            took = time.perf_counter() - start
            if seat == 0 and first is None:
                first = took
            elif seat == 0:
                decisions, seconds = decisions + 1, seconds + took
            game.apply(action)
        tell_hand_over(agents, game)
    close(agent)
    assert first is not None
    return {"decisions": decisions, "seconds": seconds, "per_second": decisions / seconds, "first_ms": 1e3 * first}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="deal pairs in the arena (default 200)")
    parser.add_argument("--hands", type=int, default=200, help="hands of the long match (default 200)")
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/bot_protocol.json")
    args = parser.parse_args()
    register(IN_PROCESS, ReferenceLogic)
    command = f"{shlex.quote(sys.executable)} {ROOT / 'examples' / 'random_bot.py'}"
    with tempfile.TemporaryDirectory() as folder:
        arena = {
            "in_process": arena_rate(IN_PROCESS, args.deals, Path(folder)),
            "protocol": arena_rate(f"program:cmd={command}", args.deals, Path(folder)),
        }
    match = {
        "in_process": match_rate(ReferenceLogic(0), args.hands),
        "protocol": match_rate(ProgramAgent(0, command), args.hands),
    }
    overhead = 1 / match["protocol"]["per_second"] - 1 / match["in_process"]["per_second"]
    figures = {"deals": args.deals, "hands": args.hands, "arena": arena, "match": match, "overhead_us": 1e6 * overhead}
    for name, rates in (("arena, deal pairs", arena), ("one long match", match)):
        print(
            f"{name}: in process {rates['in_process']['per_second']:,.0f} decisions/s, "
            f"through the protocol {rates['protocol']['per_second']:,.0f} decisions/s"
        )
    print(
        f"overhead {1e6 * overhead:,.0f} us per decision; the first decision of a process (its start and "
        f"handshake) {match['protocol']['first_ms']:,.0f} ms"
    )
    if args.record:
        record("bot_protocol", figures, command_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
