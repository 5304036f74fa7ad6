"""Where rollouts run: the backends behind :class:`RolloutBackend`.

:class:`InProcessBackend` (``workers=0``, deterministic single-process mode), :class:`ProcessBackend`
(worker processes) and, with ``backend="ray"``, :class:`~.ray_backend.RayBackend` (Ray actors on a
cluster); a backend only has to implement ``collect`` and ``close``. Every backend runs
:class:`~.rollout.RolloutWorker` s, so the same seed gives the same samples wherever they ran.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import traceback
from typing import Any, Protocol, TextIO

import torch

from .config import TrainConfig
from .rollout import RolloutWorker, Samples, Weights, shares


class RolloutBackend(Protocol):
    """Where rollouts run: ``collect`` returns one :class:`Samples` per worker, in worker order."""

    def collect(self, update: int, weights: Weights, target: int) -> list[Samples]: ...

    def close(self) -> None: ...


class InProcessBackend:
    """One worker in this process: the deterministic single-process mode (``workers=0``).

    The worker's networks (and a pool opponent's, made as the pool grows) take their initial
    weights, replaced by the trainer's at once, from a fork of PyTorch's global generator: from the
    generator itself, they drew from the trainer's random state, which the checkpoints save, and a
    resumed run, which makes its worker again, saved another state than an uninterrupted one."""

    def __init__(self, config: TrainConfig) -> None:
        with torch.random.fork_rng(devices=[]):
            self.worker = RolloutWorker(config, 0)

    def collect(self, update: int, weights: Weights, target: int) -> list[Samples]:
        with torch.random.fork_rng(devices=[]):
            return [self.worker.collect(update, weights, target)]

    def close(self) -> None:
        pass


def _worker_main(config: TrainConfig, index: int, connection: Any) -> None:
    """A worker process: answer ``("collect", update, weights, target)`` until ``None`` arrives.

    When the trainer is gone (killed: its end of the pipe closed), the worker ends quietly at its
    next receive or send instead of printing a ``BrokenPipeError`` traceback.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the trainer handles Ctrl-C and closes the workers
    torch.set_num_threads(1)
    worker = RolloutWorker(config, index)
    try:
        while (message := connection.recv()) is not None:
            _, update, weights, target = message
            reply: tuple[str, Any]
            try:
                reply = ("ok", worker.collect(update, weights, target))
            except Exception:  # reported to the trainer, which raises it
                reply = ("error", traceback.format_exc())
            connection.send(reply)
    except (EOFError, OSError):  # BrokenPipeError, ConnectionResetError: no trainer to answer
        return


class ProcessBackend:
    """``workers`` processes (spawned: no forked OpenMP state), one :class:`RolloutWorker` each."""

    def __init__(self, config: TrainConfig) -> None:
        context = multiprocessing.get_context("spawn")
        self.connections = []
        self.processes = []
        #: Whether a collection is in progress (then :meth:`close`, on an interruption, stops the workers at once).
        self.busy = False
        for index in range(config.workers):
            parent, child = context.Pipe()
            process = context.Process(target=_worker_main, args=(config, index, child), daemon=True)
            process.start()
            self.connections.append(parent)
            self.processes.append(process)

    def collect(self, update: int, weights: Weights, target: int) -> list[Samples]:
        self.busy = True
        for connection, share in zip(self.connections, shares(target, len(self.connections)), strict=True):
            connection.send(("collect", update, weights, share))
        results = []
        for index, connection in enumerate(self.connections):
            try:
                status, payload = connection.recv()
            except EOFError:
                raise RuntimeError(
                    f"rollout worker {index} died (exit code {self.processes[index].exitcode})"
                ) from None
            if status == "error":
                raise RuntimeError(f"rollout worker {index} failed:\n{payload}")
            results.append(payload)
        self.busy = False
        return results

    def close(self) -> None:
        """Stop the workers: idle ones end when told, busy ones (an interrupted collection) are terminated."""
        if self.busy:
            for process in self.processes:
                process.terminate()
        for connection in self.connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(None)
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        for connection in self.connections:
            connection.close()


def make_backend(config: TrainConfig, log: TextIO | None = None) -> RolloutBackend:
    """The backend ``config`` asks for; ``log`` receives what it has to report (a restarted Ray actor)."""
    if config.backend == "ray":
        from .ray_backend import RayBackend  # imported only here: Ray is an optional extra

        return RayBackend(config, log)
    return InProcessBackend(config) if config.workers == 0 else ProcessBackend(config)
