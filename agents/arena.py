"""``pinochle-arena``: duplicate matches and round robins between agent specs.

Usage::

    pinochle-arena random heuristic                          # a match: 100 deal pairs
    pinochle-arena random heuristic pimc:samples=16 --deals 500 --games 20 --rule head_rule=led_card
    pinochle-arena random heuristic --rules-preset casual --rule must_overtrump=true  # a preset, one switch changed
    pinochle-arena random heuristic --name first --deals 2000  # Ctrl-C, then:
    pinochle-arena --resume --name first                       # plays only the missing deal pairs
    pinochle-arena random heuristic --backend ray --ray-address auto  # on a Ray cluster (pip extra ray)

Two specs play a match, more play a round robin (every pair, A = the earlier spec). Every deal
is played twice with the same cards and dealer and the teams swapped (a *deal pair*; in the
variants without partners, once per seat A takes: three times in cutthroat, B in the other seats);
with ``--games N`` each pairing also plays N *game pairs* (whole games to the target score, or
``--hand-cap`` hands, on the same deal sequence, once per team of A). Deal i is the same in every
pairing and every run with the same ``--seed``, and agents are built per play from seeds derived
from the unit id, so results do not depend on ``--workers`` (see :mod:`agents.arena_play`).

With ``--backend ray`` the jobs are Ray tasks spread over a cluster (``--ray-address auto`` or
HOST:PORT joins one; without an address a local Ray instance starts): a task whose worker process
or node dies is run again (up to ``RAY_TASK_RETRIES`` times), and results stream into the same
results file as tasks finish, so the results and ``--resume`` are as with local workers.

The out directory (``--out``, default ``runs/arena/<--name or timestamp>``) receives
``config.json`` (the config, the code version: git commit or package version, and the SHA-256 of
every checkpoint file played), ``results.jsonl`` (one line per finished deal or game pair,
written as it finishes: pairing, both plays' hand records, timing), and at the end
``summary.txt`` (the printed report), ``summary.csv``, ``summary.json``, ``margins.png`` and,
for a round robin, ``ratings.png`` (see :mod:`agents.arena_report` for the statistics).
``--resume`` continues an interrupted run: it reads ``results.jsonl`` (dropping a truncated last
line), skips the pairs already there and plays the rest; ``--deals``, ``--games`` and the agents
may grow on resume, the seed, rules, hand cap and checkpoint files may not. A job that raises or
a worker process that dies ends the run (:class:`WorkerFailure`, exit status 1) with the results
file intact for ``--resume``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from pinochle_env import VERSION_LINE
from pinochle_env.switches import PRESETS, Rules, parse_switch, rules_from_command_line

from .arena_play import Job, play_job
from .arena_report import format_summary, slim_line, summarise, write_csv, write_json, write_plot, write_ratings_plot
from .base import check_plays, prepare
from .registry import checkpoint_files, load_agent
from .runtime import BACKENDS, code_version, connect_ray, file_sha256, format_duration, import_ray, usable_cpus

RESULTS, CONFIG = "results.jsonl", "config.json"
#: Settings a resumed run must share with the stored run (they decide what every pair plays).
FIXED_ON_RESUME = ("seed", "rules", "hand_cap")
#: Most deal pairs one worker call plays: bounds the work lost to an interruption.
MAX_CHUNK = 8
#: Times Ray runs a job again whose worker process or node died (a failure in the job itself is not retried).
RAY_TASK_RETRIES = 5


class ArenaError(ValueError):
    """A bad spec, rule, setting or out directory, reported before any play."""


@dataclass(frozen=True)
class ArenaConfig:
    """What a run plays: the agents, the rules, how many deal and game pairs per pairing, the seed."""

    agents: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)
    deals: int = 100
    games: int = 0
    seed: int = 0
    hand_cap: int = 50
    #: The named rule preset ``rules`` started from (a record only: ``rules`` holds every switch).
    rules_preset: str = ""

    @property
    def pairings(self) -> list[tuple[str, str]]:
        """Every pair of agents (A before B in the order given)."""
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1 :]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agents": list(self.agents),
            "rules": self.rules.to_dict(),
            "deals": self.deals,
            "games": self.games,
            "seed": self.seed,
            "hand_cap": self.hand_cap,
            "rules_preset": self.rules_preset,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArenaConfig:
        """The config of a ``config.json`` (its other keys, the code version and checkpoint hashes, ignored)."""
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        return cls(**{**known, "agents": tuple(data["agents"]), "rules": Rules.from_mapping(data["rules"])})


def provenance(config: ArenaConfig) -> dict[str, Any]:
    """What ``config.json`` records besides the config: the code version and the SHA-256 of every
    checkpoint file an agent plays (also inside a ``mix:``)."""
    files = [(spec, path) for spec in config.agents for path in checkpoint_files(spec, config.rules.variant)]
    return {
        "code_version": code_version(),
        "checkpoints": [{"spec": spec, "file": str(path), "sha256": file_sha256(path)} for spec, path in files],
    }


def changed_checkpoints(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """The checkpoint files of a stored ``config.json`` whose contents differ now (same spec and file)."""
    now = {(entry["spec"], entry["file"]): entry["sha256"] for entry in current.get("checkpoints", [])}
    return [
        f"{entry['file']} ({entry['spec']})"
        for entry in stored.get("checkpoints", [])
        if now.get((entry["spec"], entry["file"]), entry["sha256"]) != entry["sha256"]
    ]


def validate(config: ArenaConfig) -> None:
    """Refuse a config that cannot run, before any play: every spec must load, counts must make sense.

    Each agent also does its one-time set-up here (:func:`agents.base.prepare`): in the arena's own
    process, before any worker starts, so that the search kernel compiles once, not per worker.
    """
    if len(config.agents) < 2:
        raise ArenaError(f"need at least two agent specs, got {len(config.agents)}")
    repeated = sorted({spec for spec in config.agents if config.agents.count(spec) > 1})
    if repeated and len(config.agents) > 2:
        raise ArenaError(f"a round robin needs distinct agent specs; repeated: {', '.join(repeated)}")
    for spec in config.agents:
        try:
            agent = load_agent(spec, 0)
            check_plays(agent, config.rules)
        except (ValueError, OSError, ImportError) as error:
            raise ArenaError(f"bad agent spec {spec!r}: {error}") from None
        prepare(agent, config.rules)
    if config.deals < 0 or config.games < 0 or config.deals + config.games == 0:
        raise ArenaError(f"need --deals >= 0 and --games >= 0, not both 0 (got {config.deals}, {config.games})")
    if config.hand_cap < 1:
        raise ArenaError(f"--hand-cap must be at least 1, got {config.hand_cap}")
    if config.seed < 0:  # numpy's SeedSequence takes no negative seed: refused here, not in a worker
        raise ArenaError(f"--seed must be >= 0, got {config.seed}")


def parse_rules(switches: list[str], preset: str | None = None) -> Rules:
    """Rules from a named rule preset (``--rules-preset``; None: the default rules) and ``name=value``
    switches over it, as typed after ``--rule``; ``ArenaError`` naming a bad one."""
    for text in switches:
        name, equals, value = text.partition("=")
        try:
            if not equals:
                raise ValueError("expected name=value")
            parse_switch(name.strip(), value)
        except ValueError as error:
            raise ArenaError(f"bad --rule {text!r}: {error}") from None
    try:
        return rules_from_command_line(preset, switches)
    except ValueError as error:
        raise ArenaError(f"bad rules: {error}") from None


# ------------------------------------------------------------------------------ results file


def unit_key(line: dict[str, Any]) -> tuple[str, str, str, int]:
    """What identifies a finished unit in the results file: kind, pairing and id."""
    return line["kind"], line["a"], line["b"], line["id"]


def read_results(path: Path, repair: bool = True) -> list[dict[str, Any]]:
    """The finished units in a results file, each once, repairing an interrupted write.

    A last line that is incomplete (no newline) or unreadable is what a kill during a write leaves:
    it is dropped and, with ``repair`` (what a resumed run needs), cut from the file, so that
    appending resumes on a clean line; a reader that must not write (a viewer of a run still in
    progress) passes ``repair=False``. An unreadable line anywhere else is an ``ArenaError``.
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    units: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    good_end = position = 0
    number = 0
    while (end := data.find(b"\n", position)) != -1:
        number += 1
        text = data[position:end]
        if text.strip():
            try:
                line = json.loads(text)
                key = unit_key(line)
            except (ValueError, KeyError, TypeError):
                if data[end + 1 :].strip():
                    raise ArenaError(f"{path}:{number}: not an arena result line; fix or remove it") from None
                break
            units.setdefault(key, line)
        position = good_end = end + 1
    if repair and good_end < len(data):
        with open(path, "r+b") as stream:
            stream.truncate(good_end)
    return list(units.values())


def plan_jobs(config: ArenaConfig, done: set[tuple[str, str, str, int]], workers: int) -> list[Job]:
    """The units still to play, grouped into worker calls (up to ``MAX_CHUNK`` deal pairs, 1 game pair)."""
    todo = {
        (kind, a, b): [i for i in range(count) if (kind, a, b, i) not in done]
        for a, b in config.pairings
        for kind, count in (("deal", config.deals), ("game", config.games))
    }
    deal_total = sum(len(ids) for (kind, _, _), ids in todo.items() if kind == "deal")
    chunk = {"deal": max(1, min(MAX_CHUNK, deal_total // (4 * workers))), "game": 1}
    return [
        Job(kind, a, b, tuple(ids[start : start + chunk[kind]]), config.rules, config.seed, config.hand_cap)
        for (kind, a, b), ids in todo.items()
        for start in range(0, len(ids), chunk[kind])
    ]


# ------------------------------------------------------------------------------ running


class Progress:
    """A periodic line on a stream: units (deal or game pairs) done of total, units per second, time left.

    The rate, and the time left from it, is measured over the last ``window`` seconds of finished
    units, from the first one on: the workers' start-up (spawning, imports, loading checkpoints)
    and a slow start or a change of pace earlier in the run do not bend it, as a cumulative
    average does (a 35-second run's first line once said 0:10:59).
    """

    def __init__(
        self,
        total: int,
        stream: TextIO | None,
        every: float,
        unit: str = "pairs",
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.stream, self.every, self.unit, self.window, self.clock = (
            total,
            stream,
            every,
            unit,
            window,
            clock,
        )
        self.done = 0
        self.start = self.last = clock()
        #: (time, units done) at each advance within the window, and the one just before it.
        self.marks: deque[tuple[float, int]] = deque()

    def rate(self) -> float | None:
        """Units per second over the recent window; None until two advances a second apart."""
        if len(self.marks) < 2 or self.marks[-1][0] - self.marks[0][0] < 1.0:
            return None
        (then, before), (now, done) = self.marks[0], self.marks[-1]
        return (done - before) / (now - then)

    def advance(self, count: int) -> None:
        """Count ``count`` more finished pairs; print a line if ``every`` seconds passed or all are done."""
        self.done += count
        now = self.clock()
        self.marks.append((now, self.done))
        while len(self.marks) > 2 and now - self.marks[1][0] >= self.window:
            self.marks.popleft()
        if self.stream is None or (now - self.last < self.every and self.done < self.total):
            return
        self.last = now
        rate = self.rate()
        if self.done >= self.total:
            eta, speed = 0.0, f"{self.done / max(now - self.start, 1e-9):.1f}"
        elif rate:
            eta, speed = (self.total - self.done) / rate, f"{rate:.1f}"
        else:
            eta, speed = float("inf"), "?"
        print(
            f"arena: {self.done}/{self.total} {self.unit} ({self.done / self.total:.0%}), {speed} {self.unit}/s, "
            f"ETA {format_duration(eta)}",
            file=self.stream,
            flush=True,
        )


def _worker_init() -> None:
    """Workers leave Ctrl-C to the main process, which stops them (and dies on terminate()).

    Each worker keeps PyTorch (imported later, by a checkpoint agent) to one thread: the pool
    already uses the cores. With PyTorch's default of one thread per core in every worker, four
    workers on a 16-core machine ran a checkpoint agent at 44 decisions/s (about 2,000 on 2 cores).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ["OMP_NUM_THREADS"] = "1"


#: Seconds between checks, while no job finishes, that every worker process of a pool is alive.
WATCH_SECONDS = 1.0


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
                raise WorkerFailure(message, traceback.format_exc()) from error
            yield lines
        return
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context, initializer=_worker_init)
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
    return WorkerFailure(f"{_describe(job)} failed in a worker: {type(error).__name__}: {error}", details)


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


def _check_resume(config: ArenaConfig, out: Path, record: dict[str, Any]) -> None:
    """A resumed run must share seed, rules and hand cap with the stored one, and play the same
    checkpoint files (by their hashes)."""
    path = out / CONFIG
    if not path.exists():
        raise ArenaError(f"nothing to resume in {out}: no {CONFIG}")
    stored = json.loads(path.read_text(encoding="utf-8"))
    current = config.to_dict()
    for key in FIXED_ON_RESUME:
        if stored[key] != current[key]:
            raise ArenaError(f"cannot resume {out}: {key} {current[key]!r} differs from the stored {stored[key]!r}")
    changed = changed_checkpoints(stored, record)
    if changed:
        raise ArenaError(f"cannot resume {out}: checkpoint changed since the run began: {', '.join(changed)}")


def run_arena(
    config: ArenaConfig,
    out: Path,
    workers: int = 1,
    resume: bool = False,
    progress_every: float = 2.0,
    log: TextIO | None = None,
    backend: str = "local",
    ray_address: str = "",
) -> dict[str, Any]:
    """Play what ``config`` asks that ``out`` does not hold yet, then write and return the summary.

    ``workers`` processes play with the local backend; with ``backend="ray"`` the jobs are Ray
    tasks on the cluster at ``ray_address`` (see :func:`connect_ray`), cut for its CPUs.
    ``log`` (e.g. ``sys.stderr``) receives the plan, the progress line and where the outputs went.
    On an interruption (``KeyboardInterrupt``) the pairs finished so far stay in the results file.
    """
    validate(config)
    if backend not in BACKENDS:
        raise ArenaError(f"--backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if ray_address and backend != "ray":
        raise ArenaError(f"--ray-address {ray_address!r} needs --backend ray")
    if backend == "ray":
        try:
            import_ray()
        except ImportError as error:
            raise ArenaError(f"--backend ray: {error}") from None
    if workers < 1:
        raise ArenaError(f"--workers must be at least 1, got {workers}")
    out.mkdir(parents=True, exist_ok=True)
    results = out / RESULTS
    record = {**config.to_dict(), **provenance(config)}
    if resume:
        _check_resume(config, out, record)
    elif results.exists() and results.stat().st_size:
        raise ArenaError(f"{results} already holds results: pass --resume to continue it, or another --out")
    (out / CONFIG).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    lines = [slim_line(line) for line in read_results(results)] if resume else []
    if backend == "ray":
        try:
            ray = connect_ray(ray_address)
        except ConnectionError as error:
            raise ArenaError(f"--ray-address {ray_address!r}: {error}") from None
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        where = f"Ray tasks on {workers} CPU(s)"
    else:
        where = f"{workers} worker(s)"
    jobs = plan_jobs(config, {unit_key(line) for line in lines}, workers)
    total = sum(len(job.ids) for job in jobs)
    _say(log, f"arena: {len(config.pairings)} pairing(s), {total} pairs to play, {where}, out {out}")
    progress = Progress(total, log, progress_every, "pairs" if config.games else "deal pairs")
    batches = execute_on_ray(jobs, ray) if backend == "ray" else execute(jobs, workers)
    with open(results, "a", encoding="utf-8") as stream, contextlib.closing(batches):
        try:
            for finished in batches:
                for line in finished:
                    stream.write(json.dumps(line, separators=(",", ":")) + "\n")
                lines += map(slim_line, finished)
                stream.flush()
                progress.advance(len(finished))
        except KeyboardInterrupt:
            saved = f"{len(lines)} pairs ({progress.done} new) saved in {results}"
            _say(log, f"arena: interrupted; {saved}; continue with --resume")
            raise
        except WorkerFailure as error:
            saved = f"{len(lines)} pairs ({progress.done} new) saved in {results}"
            if error.details:
                _say(log, error.details)
            raise WorkerFailure(f"{error}; {saved}; continue with --resume") from None
    return _finish(config, lines, out, log)


def _finish(config: ArenaConfig, lines: list[dict[str, Any]], out: Path, log: TextIO | None) -> dict[str, Any]:
    """Summarise the units the config asks for and write summary.txt/.csv/.json and margins.png."""
    limit = {"deal": config.deals, "game": config.games}
    wanted = [line for line in lines if line["id"] < limit[line["kind"]]]
    summary = summarise(wanted, list(config.agents))
    (out / "summary.txt").write_text(format_summary(summary) + "\n", encoding="utf-8")
    write_csv(summary, out / "summary.csv")
    write_json(summary, out / "summary.json")
    if config.deals:
        write_plot(summary, out / "margins.png")
    if "ratings" in summary:
        write_ratings_plot(summary, out / "ratings.png")
    _say(log, f"arena: summary in {out}")
    return summary


def _say(log: TextIO | None, message: str) -> None:
    if log is not None:
        print(message, file=log, flush=True)


# ------------------------------------------------------------------------------ command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-arena",
        description="Duplicate matches (2 agent specs) and round robins (3+) between Pinochle agents. "
        "With --resume, the agents and settings not given come from the run being resumed.",
        epilog="Example: pinochle-arena random heuristic --deals 500 --rule head_rule=led_card",
    )
    parser.add_argument("agents", nargs="*", help="agent specs (random, heuristic, pimc:samples=16, mix:...)")
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument(
        "--rules-preset",
        choices=list(PRESETS),
        help="named rule set to start from (default: the default rules); --rule changes switches over it",
    )
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="rule switch (repeatable)")
    parser.add_argument("--deals", type=int, help="deal pairs per pairing (default 100)")
    parser.add_argument("--games", type=int, help="game pairs per pairing, for game win rates (default 0)")
    parser.add_argument("--hand-cap", type=int, help="most hands in one game (default 50)")
    parser.add_argument("--seed", type=int, help="seed of every deal and agent (default 0)")
    parser.add_argument(
        "--workers", type=int, default=usable_cpus(), help="worker processes, local backend (default: usable CPUs)"
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, default="local", help="local (processes here) or ray (tasks on a Ray cluster)"
    )
    parser.add_argument(
        "--ray-address",
        default="",
        metavar="ADDRESS",
        help="Ray cluster to join with --backend ray: auto or HOST:PORT (default: start a local one)",
    )
    parser.add_argument("--out", type=Path, help="out directory (default runs/arena/<name or timestamp>)")
    parser.add_argument("--name", help="run name, for the default out directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in the out directory")
    parser.add_argument("--progress-every", type=float, default=2.0, metavar="SECONDS", help="progress line period")
    return parser


def config_from_args(args: argparse.Namespace, out: Path) -> ArenaConfig:
    """The run's config: the command line, with settings it leaves out taken from a resumed run."""
    defaults = ArenaConfig(agents=())
    if args.resume and (out / CONFIG).exists():
        defaults = ArenaConfig.from_dict(json.loads((out / CONFIG).read_text(encoding="utf-8")))
    given = {
        "agents": tuple(spec.strip() for spec in args.agents) or None,
        "rules": parse_rules(args.rule, args.rules_preset) if args.rule or args.rules_preset else None,
        "rules_preset": (args.rules_preset or "") if args.rule or args.rules_preset else None,
        "deals": args.deals,
        "games": args.games,
        "seed": args.seed,
        "hand_cap": args.hand_cap,
    }
    return replace(defaults, **{key: value for key, value in given.items() if value is not None})


def _out_dir(args: argparse.Namespace) -> Path:
    if args.out is not None:
        return args.out
    if args.resume and args.name is None:
        raise ArenaError("--resume needs the run's --out or --name")
    return Path("runs", "arena", args.name or time.strftime("%Y%m%d-%H%M%S"))


def _raise_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM (a plain kill) stops the run like Ctrl-C: workers stopped, finished pairs kept."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The console script: parse, run, print the report; 2 on a bad command line, 130 when interrupted."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        out = _out_dir(args)
        config = config_from_args(args, out)
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            summary = run_arena(
                config,
                out,
                workers=args.workers,
                resume=args.resume,
                progress_every=args.progress_every,
                log=sys.stderr,
                backend=args.backend,
                ray_address=args.ray_address,
            )
        finally:
            signal.signal(signal.SIGTERM, previous)
    except ArenaError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        return 130
    except WorkerFailure as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    print(format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
