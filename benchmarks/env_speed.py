"""Environment speed: random legal play on one core, observation and mask built at every decision.

Measures decisions/s (every engine decision, forced ones included) and hands/s through
  1. ``pinochle_env.env()``: the PettingZoo AEC protocol with its wrappers (``agent_iter``/``last``/``step``);
  2. ``pinochle_env.BatchedGames``: N games in lockstep with stacked observations and masks;
for each game (``--variants``, default all three: partnership, cutthroat, two_hand).

Usage: ``python benchmarks/env_speed.py [--seconds 5] [--batch 64 256] [--variants partnership]``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

VARIANTS = ("partnership", "cutthroat", "two_hand")


def batched_speed(num_games: int, seconds: float, seed: int = 0, variant: str = "partnership") -> tuple[float, float]:
    """(decisions/s, hands/s) of random legal play through the batched API."""
    from pinochle_env import BatchedGames

    batch = BatchedGames(num_games, rules={"variant": variant}, seed=seed)
    rng = np.random.default_rng(seed)
    step = batch.reset()
    noise = np.empty(step.action_masks.shape, dtype=np.float32)  # reused: the policy should cost little
    decisions = hands = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        rng.random(dtype=np.float32, out=noise)
        np.add(noise, step.action_masks, out=noise)  # legal actions score in [1, 2), illegal ones below 1
        step = batch.step(noise.argmax(axis=1))
        decisions += num_games
        hands += int(np.count_nonzero(step.hand_over))
    return decisions / elapsed, hands / elapsed


def aec_speed(seconds: float, seed: int = 0, variant: str = "partnership") -> tuple[float, float]:
    """(decisions/s, hands/s) of random legal play through ``env()`` and the AEC protocol."""
    from pinochle_env import env as make_env

    environment = make_env(variant=variant)
    rng = np.random.default_rng(seed)
    decisions = hands = 0
    environment.reset(seed=seed)
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            environment.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        hands += 1
        environment.reset()
    return decisions / elapsed, hands / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--batch", type=int, nargs="+", default=[64, 256], help="batch sizes (default 64 256)")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS), help="games (default all)")
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    print(f"{'variant':<13}{'path':<28}{'decisions/s':>14}{'hands/s':>10}")
    for variant in args.variants:
        rate, hands = aec_speed(args.seconds, variant=variant)
        print(f"{variant:<13}{'env() AEC protocol':<28}{rate:>14,.0f}{hands:>10,.0f}", flush=True)
        for n in args.batch:
            rate, hands = batched_speed(n, args.seconds, variant=variant)
            print(f"{variant:<13}{f'BatchedGames({n})':<28}{rate:>14,.0f}{hands:>10,.0f}", flush=True)


if __name__ == "__main__":
    main()
