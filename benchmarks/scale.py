"""Scaling of the rollout backends: decisions/s of local processes and of Ray actors, and the overhead per update.

For each backend (``local``, ``ray``) and worker count (``--workers``, default 1 and 2), the default
preset's networks and games per worker collect ``--decisions`` trained decisions per update, with
the same weights every update, for ``--updates`` updates after a warm-up one (which also starts the
workers). Reported per configuration (medians over the updates):

- decisions/s: every engine decision of the counted hands (forced and pool opponents' included, as
  in ``train_speed.py``) divided by the collection's wall time; and per worker;
- overhead per update: the collection's wall time minus the slowest worker's own rollout time,
  measured by redoing each worker's rollout (same seed, update and share, so the same work) in
  this process on one thread: sending weights, starting the work, returning and unpickling samples.

Beside them, what a cluster estimate needs (docs/ray.md): the bytes that travel per update
(weights out, samples back) and the learner's PPO time for one update on this machine. Ray runs a
fresh local instance unless ``--ray-address`` names a cluster. The machine's load average is printed:
other jobs on the machine slow every figure.

Usage: ``python benchmarks/scale.py [--decisions 4096] [--updates 3] [--workers 1 2] [--ray-address auto]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import torch

from agents.arena.runtime import import_ray, usable_cpus
from pinochle_train.backends import make_backend
from pinochle_train.config import TrainConfig, build_config, load_preset
from pinochle_train.ppo import ppo_update
from pinochle_train.rollout import RolloutWorker, Weights, shares
from pinochle_train.trainer import Trainer, minibatch_rng


def nbytes(value: object) -> int:
    """Bytes of the numpy arrays in weights or samples (what is pickled and sent)."""
    if isinstance(value, dict):
        return sum(nbytes(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(item) for item in value)
    return getattr(value, "nbytes", 0)


def rollout_seconds(config: TrainConfig, index: int, update: int, weights: Weights, target: int) -> float:
    """One worker's rollout, redone in this process on one thread (what a worker process runs)."""
    worker = RolloutWorker(config, index)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    began = time.perf_counter()
    worker.collect(update, weights, target)
    seconds = time.perf_counter() - began
    torch.set_num_threads(threads)
    return seconds


def measure(config: TrainConfig, weights: Weights, updates: int) -> dict[str, float]:
    """Median decisions/s and overhead per update of one backend and worker count."""
    backend = make_backend(config)
    rates, overheads = [], []
    try:
        backend.collect(0, weights, config.decisions_per_update)  # warm-up: the workers start
        for update in range(1, updates + 1):
            began = time.perf_counter()
            parts = backend.collect(update, weights, config.decisions_per_update)
            wall = time.perf_counter() - began
            targets = shares(config.decisions_per_update, config.workers)
            work = max(rollout_seconds(config, k, update, weights, target) for k, target in enumerate(targets))
            rates.append(sum(part.decisions for part in parts) / wall)
            overheads.append(wall - work)
    finally:
        backend.close()
    return {"rate": statistics.median(rates), "overhead": statistics.median(overheads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=4096, help="trained decisions per update")
    parser.add_argument("--updates", type=int, default=3, help="updates measured after the warm-up one")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--ray-address", default="", help="Ray cluster to measure on (default: a new local instance)")
    args = parser.parse_args()
    config = build_config({**load_preset("default"), "decisions_per_update": args.decisions, "rules": {}})
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(config, Path(out))
    weights = trainer.weights()
    learner_samples = RolloutWorker(config, 0).collect(0, weights, args.decisions)  # one update's samples
    began = time.perf_counter()
    ppo_update(
        trainer.policy,
        trainer.critic,
        trainer.optimizer,
        learner_samples,
        config,
        minibatch_rng(0, 0),
        trainer.device,
    )
    learner = time.perf_counter() - began
    print(
        f"machine: {platform.machine()}, {usable_cpus()} CPUs, load average {os.getloadavg()[0]:.1f}, "
        f"python {platform.python_version()}, torch {torch.__version__}, ray {import_ray().__version__}"
    )
    print(
        f"update: {args.decisions} trained decisions ({learner_samples.decisions:,} engine decisions), "
        f"{config.games_per_worker} games per worker, policy {config.hidden}, critic {config.critic_hidden}"
    )
    print(
        f"per update: weights {nbytes(weights) / 1e6:.1f} MB out (+ the opponent pool), samples "
        f"{nbytes(vars(learner_samples)) / 1e6:.1f} MB back ({len(learner_samples):,} trained decisions: every "
        f"hand started before the target is reached counts); learner (PPO, {config.epochs} "
        f"epochs, {trainer.device}) {learner:.2f} s"
    )
    print(f"\n{'backend':8} {'workers':>7} {'decisions/s':>12} {'per worker':>11} {'overhead/update':>16}")
    for backend in ("local", "ray"):
        for workers in args.workers:
            address = args.ray_address if backend == "ray" else ""
            variant = dataclasses.replace(config, backend=backend, workers=workers, ray_address=address)
            result = measure(variant, weights, args.updates)
            print(
                f"{backend:8} {workers:>7} {result['rate']:>12,.0f} {result['rate'] / workers:>11,.0f} "
                f"{result['overhead']:>14.3f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
