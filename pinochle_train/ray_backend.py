"""Rollouts on a Ray cluster: one actor per worker, each a :class:`~.rollout.RolloutWorker`.

The learner stays in the driver (``train.py``); each update its weights go into Ray's object store
once (``ray.put``) and every actor reads them from there; the actors return their
:class:`~.rollout.Samples` as numpy arrays. A rollout depends only on ``(seed, update, worker
index)`` and the weights, never on where it ran or on the actor's past, so the training is bitwise
the same as with the local backend and the same worker count, and an actor that dies (its process
or its node) is replaced by a fresh one that redoes its share of the update.

Each actor takes one CPU of the cluster (``--workers`` must not exceed the cluster's CPUs;
``--workers 0`` starts one per CPU, which ties the run's results to the cluster's size) and runs
PyTorch on one thread (Ray sets ``OMP_NUM_THREADS`` to the actor's CPUs). Ray is imported only
when this backend is made: the local backend never needs it.
"""

from __future__ import annotations

from typing import Any, TextIO

from agents.arena.runtime import connect_ray

from .config import TrainConfig
from .rollout import RolloutWorker, Samples, Weights, shares

#: Deaths of one worker's actor within one update before the update gives up (a worker that
#: keeps dying, e.g. out of memory, is an error, not bad luck).
MAX_RESTARTS = 3


class RayBackend:
    """``config.workers`` Ray actors (one per CPU when 0) on the cluster at ``config.ray_address``
    (a new local one if empty)."""

    def __init__(self, config: TrainConfig, log: TextIO | None = None) -> None:
        self.ray = connect_ray(config.ray_address)
        cpus = int(self.ray.cluster_resources().get("CPU", 0))
        if cpus < max(config.workers, 1):
            raise ValueError(f"workers={config.workers} needs that many CPUs in the Ray cluster, which has {cpus}")
        self.config = config
        self.log = log
        self.actor_class = self.ray.remote(num_cpus=1)(RolloutWorker)
        self.actors = [self._start(index) for index in range(config.workers or cpus)]
        if not config.workers:
            self._say(f"train: workers=0 with Ray: one actor per cluster CPU, {cpus} actors")

    def _start(self, index: int) -> Any:
        return self.actor_class.remote(self.config, index)

    def collect(self, update: int, weights: Weights, target: int) -> list[Samples]:
        """Every actor's share of ``target``; a dead actor is replaced and its share redone."""
        from ray.exceptions import RayActorError

        weights_ref = self.ray.put(weights)
        targets = shares(target, len(self.actors))
        pending = {
            actor.collect.remote(update, weights_ref, share): index
            for index, (actor, share) in enumerate(zip(self.actors, targets, strict=True))
        }
        results: dict[int, Samples] = {}
        deaths = [0] * len(self.actors)
        while pending:
            (done,), _ = self.ray.wait(list(pending), num_returns=1)
            index = pending.pop(done)
            try:
                results[index] = self.ray.get(done)
            except RayActorError as error:  # ActorDiedError, and ActorUnavailableError (unreachable)
                deaths[index] += 1
                if deaths[index] > MAX_RESTARTS:
                    message = f"rollout worker {index} died {deaths[index]} times in update {update + 1}"
                    raise RuntimeError(message) from error
                self._say(f"train: rollout worker {index} died in update {update + 1}; restarted, redoing its share")
                self.ray.kill(self.actors[index])  # frees its CPU if it was only unreachable
                self.actors[index] = self._start(index)
                pending[self.actors[index].collect.remote(update, weights_ref, targets[index])] = index
        return [results[index] for index in range(len(self.actors))]

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)

    def _say(self, message: str) -> None:
        if self.log is not None:
            print(message, file=self.log, flush=True)
