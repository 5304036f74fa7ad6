"""Where the arena's jobs run: in this process, in a pool of worker processes, or as Ray tasks.

A job that raises or a worker that dies ends the run with a :class:`WorkerFailure`, after the
results of the jobs already finished. An agent's own failure (:class:`~agents.base.AgentError`: an
illegal answer, a bot program that crashed or hung) says all in its message, so it comes without
the job's traceback.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..base import AgentError
from .play import Job, play_job

#: Times Ray runs a job again whose worker process or node died (a failure in the job itself is not retried).
RAY_TASK_RETRIES = 5


#: Seconds between checks, while no job finishes, that every worker process of a pool is alive;
#: and between a worker's checks that the process that started it is.
WATCH_SECONDS = 1.0


def _worker_init(parent: int) -> None:
    """Workers leave Ctrl-C to the main process, which stops them (and dies on terminate()), and
    end themselves when it, ``parent``, is gone (:func:`_watch_parent`; from its own pid, not the
    worker's parent when it starts: a main process killed while the worker imports is gone by then).

    Each worker keeps PyTorch (imported later, by a checkpoint agent) to one thread: the pool
    already uses the cores. With PyTorch's default of one thread per core in every worker, four
    workers on a 16-core machine ran a checkpoint agent at 44 decisions/s (about 2,000 on 2 cores).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ["OMP_NUM_THREADS"] = "1"
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """End this worker once the process that started it, ``parent``, is gone: a main process killed
    by SIGKILL (or the out-of-memory killer) cannot stop its workers, which would otherwise wait
    for jobs for ever (the worker is then a child of another process)."""
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


class WorkerFailure(RuntimeError):
    """A job raised, or a worker process died: the run stops, with the pairs finished so far kept.

    ``details`` holds the job's traceback where there is one.
    """

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def _describe(job: Any) -> str:
    """A job as an error message names it."""
    if isinstance(job, Job):
        ids = f"{job.ids[0]}" if len(job.ids) == 1 else f"{job.ids[0]}-{job.ids[-1]}"
        return f"{job.kind} pair(s) {ids} of {job.a} vs {job.b}"
    return f"job {job!r}"


def execute(jobs: list[Any], workers: int, play: Callable[[Any], Any] = play_job) -> Generator[Any, None, None]:
    """Each job's lines (``play(job)``) as it finishes: in this process for one worker, else in a
    pool of worker processes.

    A job that raises, or a worker process that dies (killed, out of memory), ends the iteration
    with a :class:`WorkerFailure` after the lines of the jobs already finished: the pool is a
    :class:`concurrent.futures.ProcessPoolExecutor`, which reports a dead worker
    (``BrokenProcessPool``) where ``multiprocessing.Pool`` waits for its lost job for ever, and
    while no job finishes the workers are checked every :data:`WATCH_SECONDS` for the one death
    the pool misses (:func:`_lost_a_worker`).

    The workers are spawned, not forked: a child forked from a process whose PyTorch has already
    run multi-threaded work (the trainer's evaluations, a checkpoint loaded for validation) can
    hang in OpenMP at its own first parallel operation. Leaving the iteration early (an
    interruption, a failure) terminates the workers.
    """
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            try:
                lines = play(job)
            except Exception as error:
                message = f"{_describe(job)} failed: {type(error).__name__}: {error}"
                raise WorkerFailure(message, _traceback(error, traceback.format_exc())) from error
            yield lines
        return
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(
        min(workers, len(jobs)), mp_context=context, initializer=_worker_init, initargs=(os.getpid(),)
    )
    finished = False
    try:
        pending = {executor.submit(play, job): job for job in jobs}
        failure: WorkerFailure | None = None
        while pending and failure is None:
            done, _ = wait(pending, timeout=WATCH_SECONDS, return_when=FIRST_COMPLETED)
            if not done and _lost_a_worker(executor):
                _release_results(executor)  # the pool then fails the pending jobs: BrokenProcessPool
            for future in done:
                job = pending.pop(future)
                raised = future.exception()
                if raised is None:
                    yield future.result()
                elif failure is None:
                    failure = _failure(job, raised)
        if failure is not None:
            for future in [future for future in pending if future.done() and not future.cancelled()]:
                if future.exception() is None:  # finished before the failure was seen: keep it
                    yield future.result()
            raise failure
        finished = True
    finally:
        _stop(executor, now=not finished)


def _pool_processes(executor: ProcessPoolExecutor) -> list[Any]:
    """The pool's worker processes (``ProcessPoolExecutor`` keeps them in ``_processes``)."""
    return list((getattr(executor, "_processes", None) or {}).values())


def _lost_a_worker(executor: ProcessPoolExecutor) -> bool:
    """Whether a worker process of the pool has died. The pool notices a death itself, except when
    the worker was killed in the middle of sending a result: its reader then waits for the rest of
    that message for ever, and no job ever finishes."""
    return any(not process.is_alive() for process in _pool_processes(executor))


def _release_results(executor: ProcessPoolExecutor) -> None:
    """Stop every worker and close this process's copy of the workers' end of the pool's result
    pipe, so that a reader waiting for the rest of a message that a stopped or dead worker left half
    sent reads end-of-file instead: the pool then treats it as the broken pool it is and fails the
    pending jobs. Used when a worker is lost and when a run is interrupted (:func:`_stop`)."""
    processes = _pool_processes(executor)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=10)
    writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()


def _failure(job: Any, error: BaseException) -> WorkerFailure:
    if isinstance(error, BrokenProcessPool):
        return WorkerFailure("a worker process died while playing (killed by a signal, or out of memory?)")
    remote = error.__cause__  # the worker's traceback, as concurrent.futures passes it on
    details = str(remote).strip().strip('"').strip() if remote is not None else ""
    message = f"{_describe(job)} failed in a worker: {type(error).__name__}: {error}"
    return WorkerFailure(message, _traceback(error, details))


def _traceback(error: BaseException, details: str) -> str:
    """The traceback worth showing with a failure: none for an agent's own failure."""
    return "" if isinstance(error, AgentError) else details


def _stop(executor: ProcessPoolExecutor, now: bool) -> None:
    """Shut the pool down; ``now``: cancel what is queued and stop the workers at once, as for a
    lost worker (:func:`_release_results`): a worker terminated in the middle of sending a result
    (Ctrl-C while a large result is in the pipe) otherwise leaves the pool's reader waiting for the
    rest of it, and the shutdown with it, for ever."""
    if now:
        _release_results(executor)
    executor.shutdown(wait=True, cancel_futures=True)


def _play_in(directory: str, job: Job) -> list[dict[str, Any]]:
    """:func:`play_job` as a Ray task, in the driver's working directory where the node has it (Ray
    workers start where ``ray start`` ran), so that relative paths in agent specs name the files
    the driver means (``checkpoint:runs/x/policy.pt``)."""
    if os.path.isdir(directory):
        os.chdir(directory)
    return play_job(job)


def execute_on_ray(jobs: list[Job], ray: Any) -> Generator[list[dict[str, Any]], None, None]:
    """Each job's lines as it finishes, every job a Ray task; leaving cancels the tasks not finished.

    A task whose worker dies is retried (``RAY_TASK_RETRIES``), so no unit is lost to a dead worker.
    """
    task = ray.remote(max_retries=RAY_TASK_RETRIES)(_play_in)
    pending = [task.remote(os.getcwd(), job) for job in jobs]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
