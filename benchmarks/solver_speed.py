"""Solver speed: how long the exact end-game solver takes by tricks left (partnership, default rules).

Positions come from heuristic self-play hands (every hand known): the start of the trick with 3,
6 and 9 tricks left, and the first lead. Each is solved twice: its value alone (what a search
leaf needs) and the value of every legal card of the seat to lead (what a card decision needs),
each from an empty transposition table and each under its own cap. A solve that runs past
``--cap`` seconds (default 10) is stopped (it runs in a worker process that is then replaced) and
counted as not solved; per kind of solve, the share solved within the cap is shown and the times
of the solved ones give the median and 95th percentile.

Usage::

    python benchmarks/solver_speed.py                       # 40 positions per row (20 first leads)
    python benchmarks/solver_speed.py --positions 10 --cap 2  # a quick look
    python benchmarks/solver_speed.py --left 4 5 6 --positions 100   # to choose pimc's solve=N
    python benchmarks/solver_speed.py --left 12 --positions 2000 --workers 2 --figures solver_speed_first_leads

The figures go to ``benchmarks/results/solver_speed.json`` (or ``NAME.json`` with ``--figures
NAME``; :mod:`figures`), from which the tables of ``docs/benchmarks.md`` are made; ``--dry-run``
writes nothing. With ``--workers N`` positions are solved N at a time, one worker process each
(give each a core of its own: the times are wall-clock).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from figures import command_line, record

from agents.base import decide
from agents.heuristic import HeuristicAgent
from pinochle_env import Game, Rules


def positions(left: int, count: int, seed: int) -> list[Game]:
    """``count`` positions at the start of a trick with ``left`` tricks to go, from heuristic hands."""
    found: list[Game] = []
    rng = np.random.default_rng(seed)
    while len(found) < count:
        game = Game(Rules(), np.random.default_rng(int(rng.integers(2**31))))
        agents = [HeuristicAgent(int(rng.integers(2**31))) for _ in range(4)]
        while not game.hand_over:
            if game.phase.decision == "play" and not game.trick and 12 - len(game.tricks) == left:
                found.append(game)
                break
            game.apply(decide(agents[game.to_act], game))
    return found


def solve_time(game: Game, every_card: bool) -> tuple[float, int]:
    """(seconds, nodes) of the position's value, or with ``every_card`` of every legal card's value,
    from an empty table."""
    from pinochle_env.kernel import solver
    from pinochle_env.kernel.state import PlayState

    state = PlayState.from_game(game)
    solver.clear_table()
    start = time.perf_counter()
    if every_card:
        solver.solve_side_values(state)
    else:
        solver.solve_value(state)
    return time.perf_counter() - start, solver.take_nodes()


#: The kinds of solve, in the order of a position's results: its value, every legal card's value.
KINDS = ("value", "cards")
Times = tuple[float, int]


def _start_worker() -> multiprocessing.pool.Pool:
    pool = multiprocessing.get_context("spawn").Pool(1)
    pool.apply(solve_time, (positions(1, 1, 0)[0], False))  # load the kernel in the worker
    return pool


def measure(games: list[Game], cap: float, workers: int = 1) -> list[list[Times | None]]:
    """Each position's (seconds, nodes) per kind of solve (:data:`KINDS`), None where it ran past
    ``cap`` seconds; ``workers`` positions at a time, each in a worker process of its own (replaced
    when a solve overruns)."""
    from pinochle_env.kernel import compile_kernel

    compile_kernel()  # here first, so that the workers only load the cached code
    results: list[list[Times | None]] = [[None] * len(KINDS) for _ in games]
    done = 0
    lock = threading.Lock()

    def solve_share(share: range) -> None:
        nonlocal done
        pool = _start_worker()
        for index in share:
            for kind, name in enumerate(KINDS):
                try:
                    times = pool.apply_async(solve_time, (games[index], name == "cards")).get(timeout=cap + 1)
                    results[index][kind] = times if times[0] <= cap else None
                except multiprocessing.TimeoutError:
                    pool.terminate()
                    pool = _start_worker()
            with lock:
                done += 1
                if len(games) >= 100 and done % 50 == 0:
                    print(f"  {done} of {len(games)} positions", file=sys.stderr, flush=True)
        pool.terminate()

    with ThreadPoolExecutor(workers) as threads:
        list(threads.map(solve_share, [range(w, len(games), workers) for w in range(workers)]))
    return results


def summarise(left: int, results: list[list[Times | None]]) -> dict[str, Any]:
    """A row of figures: positions, and per kind of solve (:data:`KINDS`) how many were solved within
    the cap and, of those, the median and 95th percentile time (ms) and the median nodes."""
    row: dict[str, Any] = {"left": left, "positions": len(results)}
    for index, key in enumerate(KINDS):
        solved = [r[index] for r in results if r[index] is not None]
        row[key] = {"solved": len(solved)}
        if solved:
            times = np.array([t for t, _ in solved]) * 1e3
            row[key] |= {
                "median_ms": float(np.median(times)),
                "p95_ms": float(np.percentile(times, 95)),
                "median_nodes": float(np.median([n for _, n in solved])),
            }
    return row


def format_row(row: dict[str, Any]) -> str:
    label = "first lead" if row["left"] == 12 else str(row["left"])
    cells = []
    for key in KINDS:
        figures = row[key]
        cells.append(f"{figures['solved'] / row['positions']:>7.0%}")
        if "median_ms" in figures:
            cells.append(f"{figures['median_ms']:>10.2f} {figures['p95_ms']:>10.2f} {figures['median_nodes']:>12,.0f}")
        else:
            cells.append(f"{'':>34}")
    return f"{label:>12} {row['positions']:>9} " + " ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--left", type=int, nargs="+", default=[3, 6, 9, 12], help="tricks left (12: first lead)")
    parser.add_argument("--positions", type=int, default=40, help="positions per row (first leads: half)")
    parser.add_argument("--cap", type=float, default=10.0, help="seconds a solve may take")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="positions solved at a time (a process and core each)")
    parser.add_argument("--figures", metavar="NAME", default="solver_speed", help="write benchmarks/results/NAME.json")
    parser.add_argument("--dry-run", action="store_true", help="print only: write no benchmarks/results/ file")
    args = parser.parse_args(argv)
    bad_cap = not (math.isfinite(args.cap) and args.cap > 0)  # nan would pass a plain cap <= 0
    if args.positions < 1 or bad_cap or args.workers < 1 or any(not 1 <= left <= 12 for left in args.left):
        parser.error("need --positions >= 1, a finite --cap > 0, --workers >= 1 and --left between 1 and 12")
    print(f"Solver speed (default rules, seed {args.seed}, cap {args.cap:g} s; times in ms, from an empty table)")
    print(f"{'tricks left':>12} {'positions':>9} " + " ".join(
        f"{'solved':>7} {'median':>10} {'p95':>10} {'nodes':>12}" for _ in KINDS))  # fmt: skip
    print(f"{'':>12} {'':>9} {'position value':^42} {'every legal card':^42}")
    rows = []
    for left in args.left:
        count = args.positions if left < 12 else max(1, args.positions // 2)
        rows.append(summarise(left, measure(positions(left, count, args.seed + left), args.cap, args.workers)))
        print(format_row(rows[-1]), flush=True)
    if not args.dry_run:
        figures = {"seed": args.seed, "cap_seconds": args.cap, "workers": args.workers, "rows": rows}
        record(args.figures, figures, command_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
