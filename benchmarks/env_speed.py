"""Environment speed: random legal play on one core, observation and mask built at every decision.

Measures decisions/s (every engine decision, forced ones included) and hands/s through
  1. ``pinochle_env.env()``: the PettingZoo AEC protocol with its wrappers (``agent_iter``/``last``/``step``);
  2. ``pinochle_env.BatchedGames``: N games in lockstep with stacked observations and masks;
for each game (``--variants``, default all three: partnership, cutthroat, two_hand).

Each measurement runs for ``--seconds`` in windows of ``--window`` seconds and reports the median
and the best window: on a shared or virtual machine other work only ever slows a window down, so the
best one is the closest to the code's own speed (the reasoning of ``timeit``'s best-of-repeats),
and the median says what to expect while the machine is busy.

``--runs N`` repeats the whole measurement; the results of every run go to
``benchmarks/results/env_speed.json`` (with the commit, date and machine: :mod:`figures`), from
which the table of ``docs/benchmarks.md`` (and the README's headline) is made.

Usage: ``python benchmarks/env_speed.py [--seconds 5] [--window 1] [--runs 3] [--batch 64 256 1024]
[--variants partnership] [--dry-run]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from functools import partial

import numpy as np
from figures import command_line, record

VARIANTS = ("partnership", "cutthroat", "two_hand")


class Windows:
    """Counts decisions in consecutive windows of ``window`` seconds, ``seconds`` in all, and the
    decisions per finished hand over the whole measurement (in lockstep play hands end in bursts,
    too unevenly for one window's count), which turn a decision rate into a hand rate."""

    def __init__(self, seconds: float, window: float) -> None:
        self.seconds, self.window = seconds, window
        self.rates: list[float] = []  # decisions/s of each finished window
        self.hands = self.hand_decisions = 0  # finished hands, and the decisions they took
        self._in_window = 0
        self._start = self._window_start = -1.0  # set by the first call of running(), after set-up

    def running(self) -> bool:
        """Close the window if its time is up; False once the whole measurement is over."""
        now = time.perf_counter()
        if self._start < 0:
            self._start = self._window_start = now
        elif now - self._window_start >= self.window:
            self.rates.append(self._in_window / (now - self._window_start))
            self._in_window = 0
            self._window_start = now
        return now - self._start < self.seconds or not self.rates

    def count(self, decisions: int, hands: int = 0, hand_decisions: int = 0) -> None:
        """``decisions`` made, and ``hands`` finished that took ``hand_decisions`` decisions in all."""
        self._in_window += decisions
        self.hands += hands
        self.hand_decisions += hand_decisions

    def summary(self) -> tuple[float, float, float]:
        """(median, best) decisions/s over the windows, and decisions per hand over all of them."""
        ordered = sorted(self.rates)
        if not self.hands:
            raise RuntimeError("no hand finished: measure for longer (--seconds)")
        return ordered[(len(ordered) - 1) // 2], ordered[-1], self.hand_decisions / self.hands


def batched_speed(batch, windows: Windows, *, seed: int = 0) -> Windows:
    """Random legal play through a ``BatchedGames``, counted in ``windows``."""
    num_games = batch.num_games
    rng = np.random.default_rng(seed)
    step = batch.reset()
    noise = np.empty(step.action_masks.shape, dtype=np.float32)  # reused: the policy should cost little
    in_hand = np.zeros(num_games, dtype=np.int64)  # decisions of each game's current hand
    while windows.running():
        rng.random(dtype=np.float32, out=noise)
        np.add(noise, step.action_masks, out=noise)  # legal actions score in [1, 2), illegal ones below 1
        step = batch.step(noise.argmax(axis=1))
        in_hand += 1
        if step.hand_over.any():
            windows.count(num_games, int(np.count_nonzero(step.hand_over)), int(in_hand[step.hand_over].sum()))
            in_hand[step.hand_over] = 0
        else:
            windows.count(num_games)
    return windows


def aec_speed(windows: Windows, *, seed: int = 0, variant: str = "partnership") -> Windows:
    """Random legal play through ``env()`` and the AEC protocol, counted in ``windows`` (one hand at a time)."""
    from pinochle_env import env as make_env

    environment = make_env(variant=variant)
    choice = random.Random(seed).choice  # a quarter of the time of numpy's flatnonzero and integers
    environment.reset(seed=seed)
    while windows.running():
        decisions = 0
        for _ in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(int(choice(observation["action_mask"].nonzero()[0])))
            decisions += 1
        windows.count(decisions, 1, decisions)
        environment.reset()
    return windows


def measure_all(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """One run: every path of every game, printed as it goes; {"<variant> <path>": figures}."""
    from pinochle_env import BatchedGames

    row = "{:<13}{:<27}{:>20}{:>9}{:>18}{:>9}"
    print(row.format("variant", "path", "median decisions/s", "hands/s", "best decisions/s", "hands/s"))
    results = {}
    for variant in args.variants:
        paths = [("`env()`", partial(aec_speed, variant=variant))]
        for n in args.batch:
            batch = BatchedGames(n, rules={"variant": variant}, seed=0)  # arrays or engines: by its default
            mode = "arrays" if batch.arrays else "engines"
            paths.append((f"`BatchedGames({n})`, {mode}", partial(batched_speed, batch)))
        for name, measure in paths:
            median, best, per_hand = measure(Windows(args.seconds, args.window)).summary()
            figures = (median, median / per_hand, best, best / per_hand)
            print(row.format(variant, name, *(f"{value:,.0f}" for value in figures)), flush=True)
            results[f"{variant} {name}"] = {"median": median, "best": best, "decisions_per_hand": per_hand}
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--window", type=float, default=1.0, help="seconds per window (default 1)")
    parser.add_argument("--runs", type=int, default=1, help="repetitions of the whole measurement (default 1)")
    sizes = [64, 256, 1024]
    parser.add_argument("--batch", type=int, nargs="+", default=sizes, help=f"batch sizes (default {sizes})")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS), help="games (default all)")
    parser.add_argument("--dry-run", action="store_true", help="print only: write no benchmarks/results/ file")
    args = parser.parse_args(argv)
    if not 0 < args.window <= args.seconds:
        parser.error(f"--window must be above 0 and at most --seconds ({args.seconds}), got {args.window}")
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if min(args.batch) < 1:
        parser.error(f"--batch sizes must be at least 1, got {min(args.batch)}")
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    print(f"{args.seconds:g} s per measurement in {args.window:g} s windows, {args.runs} run(s)")
    runs = []
    for run in range(args.runs):
        print(f"run {run + 1}/{args.runs}")
        runs.append(measure_all(args))
    if not args.dry_run:
        record("env_speed", {"seconds": args.seconds, "window": args.window, "runs": runs}, command_line())


if __name__ == "__main__":
    main()
