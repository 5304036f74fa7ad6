"""Running a tournament: the arena's config, its results file, the plan of jobs, progress and resume.

See :mod:`agents.arena` for what a run plays and writes; the jobs run in :mod:`.workers`, the
command line is :mod:`.cli`.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pinochle_env.files import FolderBusy, WriteFailed, folder_held, folder_problem, write_text_atomically, writing
from pinochle_env.rules.switches import Rules, parse_switch, rules_from_command_line

from ..base import check_plays, prepare
from ..program.files import program_files
from ..registry import checkpoint_files, load_agent, program_commands
from .play import SIDES, Job
from .report import format_summary, slim_line, summarise, write_csv, write_json, write_plot, write_ratings_plot
from .runtime import BACKENDS, code_version, connect_ray, file_sha256, format_duration, import_ray
from .workers import WorkerFailure, execute, execute_on_ray

RESULTS, CONFIG = "results.jsonl", "config.json"
#: The folder of the run's out directory where bot programs' standard error is kept.
BOT_LOGS = "bots"
#: Settings a resumed run must share with the stored run (they decide what every pair plays).
FIXED_ON_RESUME = ("seed", "rules", "hand_cap")
#: Most deal pairs one worker call plays: bounds the work lost to an interruption.
MAX_CHUNK = 8
#: The same where a side is a bot program, which keeps one process per play and seat for a worker
#: call (:mod:`.play`): larger, since a process start costs more than a bot's deal pair.
MAX_PROGRAM_CHUNK = 32
#: Most deal pairs, and game pairs, one run may ask for: a run is planned in memory up front, and a
#: million deal pairs is days of play already (the largest runs of docs/benchmarks.md are 2,000).
MAX_UNITS = 1_000_000


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
        """The config of a ``config.json`` (its other keys, the code version and checkpoint hashes,
        ignored); ``ValueError`` naming a key that is missing or of the wrong kind."""
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        wrong = [key for key in ("deals", "games", "seed", "hand_cap") if type(known.get(key, 0)) is not int]
        agents, rules = data.get("agents"), data.get("rules")
        if not (isinstance(agents, list) and all(isinstance(spec, str) for spec in agents)):
            wrong.insert(0, "agents")
        if not isinstance(rules, dict):
            wrong.append("rules")
        if wrong:
            raise ValueError(f"{', '.join(wrong)} missing or of the wrong kind")
        assert isinstance(agents, list) and isinstance(rules, dict)  # checked above
        return cls(**{**known, "agents": tuple(agents), "rules": Rules.from_mapping(rules)})


def provenance(config: ArenaConfig) -> dict[str, Any]:
    """What ``config.json`` records besides the config: the code version, the SHA-256 of every
    checkpoint and location-model file an agent plays (also inside a ``mix:``), and every bot program's command with
    the SHA-256 of its program files (:func:`agents.program.files.program_files`)."""
    files = [(spec, path) for spec in config.agents for path in checkpoint_files(spec, config.rules.variant)]
    return {
        "code_version": code_version(),
        "checkpoints": [{"spec": spec, "file": str(path), "sha256": file_sha256(path)} for spec, path in files],
        "programs": [
            {"spec": spec, "command": command, "files": [_hashed(path) for path in program_files(command)]}
            for spec in config.agents
            for command in program_commands(spec)
        ],
    }


def _hashed(path: Path) -> dict[str, str]:
    return {"file": str(path), "sha256": file_sha256(path)}


def stored_config(out: Path, action: str = "resume") -> dict[str, Any]:
    """What the ``config.json`` of the run in ``out`` holds (its config, the code version and the
    checkpoints' hashes); ``ArenaError`` naming the file when there is none or it cannot be read
    (``action``: what the caller would do with the run, for the message)."""
    path = out / CONFIG
    if not path.is_file():
        raise ArenaError(f"nothing to {action} in {out}: no {CONFIG}")
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(stored, dict):
            raise ValueError(f"a JSON {type(stored).__name__}, not an object")
        ArenaConfig.from_dict(stored)
        checkpoints = stored.get("checkpoints", [])
        if not (isinstance(checkpoints, list) and all(_checkpoint_entry(entry) for entry in checkpoints)):
            raise ValueError("its checkpoints are not a list of spec, file and sha256")
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        hint = "; start the run afresh in another --out" if action == "resume" else ""
        raise ArenaError(f"cannot {action} {out}: {path} is damaged ({error}){hint}") from None
    return stored


def _checkpoint_entry(entry: Any) -> bool:
    """Whether ``entry`` is a checkpoint of :func:`provenance`: its spec, file and hash as strings."""
    return isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in ("spec", "file", "sha256"))


def changed_checkpoints(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """The checkpoint files of a stored ``config.json`` whose contents differ now (same spec and file)."""
    return _changed(stored.get("checkpoints", []), current.get("checkpoints", []))


def changed_programs(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """The bot program files of a stored ``config.json`` whose contents differ now (same spec and file)."""
    files = [
        [{"spec": program["spec"], **entry} for program in record.get("programs", []) for entry in program["files"]]
        for record in (stored, current)
    ]
    return _changed(*files)


def _changed(stored: list[dict[str, Any]], current: list[dict[str, Any]]) -> list[str]:
    """Of ``{"spec", "file", "sha256"}`` entries, the stored ones whose file's hash differs now."""
    now = {(entry["spec"], entry["file"]): entry["sha256"] for entry in current}
    return [
        f"{entry['file']} ({entry['spec']})"
        for entry in stored
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
    if max(config.deals, config.games) > MAX_UNITS:
        raise ArenaError(
            f"--deals and --games are at most {MAX_UNITS:,} a run (got {config.deals:,}, {config.games:,}): "
            "split the work into runs"
        )
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


def pairing_deals(lines: list[dict[str, Any]], pairing: tuple[str, str]) -> list[dict[str, Any]]:
    """The deal-pair lines of ``pairing`` (A, B) among a results file's ``lines``: a run resumed with
    other agents (or another spelling of a checkpoint's path) holds other pairings' lines on the same
    deal ids, which a reader of one pairing must leave out."""
    return [line for line in lines if line["kind"] == "deal" and (line["a"], line["b"]) == tuple(pairing)]


def read_results(path: Path, repair: bool = True) -> list[dict[str, Any]]:
    """The finished units in a results file, each once, repairing an interrupted write.

    A last line that is incomplete (no newline) or unreadable is what a kill during a write leaves:
    it is dropped and, with ``repair`` (what a resumed run needs), cut from the file, so that
    appending resumes on a clean line; a reader that must not write (a viewer of a run still in
    progress) passes ``repair=False``. An unreadable line anywhere else is an ``ArenaError``.
    """
    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as error:  # a folder in its place, a file this user may not read
        raise ArenaError(f"{path}: cannot read the results ({error.strerror or error})") from None
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
                if not all(isinstance(play["hands"], list) and "a_team" in play for play in line["plays"]):
                    raise ValueError("a play without its hands")
                if not all(len(line["timing"][side]) == 2 for side in SIDES):
                    raise ValueError("no decisions and seconds for each side")
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


def plan_jobs(config: ArenaConfig, done: set[tuple[str, str, str, int]], workers: int, logs: str = "") -> list[Job]:
    """The units still to play, grouped into worker calls (up to ``MAX_CHUNK`` deal pairs, or
    ``MAX_PROGRAM_CHUNK`` where a side is a bot program; 1 game pair), at least four calls per
    worker where there are enough; agents keep their logs in the folder ``logs`` ("" for nowhere)."""
    todo = {
        (kind, a, b): [i for i in range(count) if (kind, a, b, i) not in done]
        for a, b in config.pairings
        for kind, count in (("deal", config.deals), ("game", config.games))
    }
    deal_total = sum(len(ids) for (kind, _, _), ids in todo.items() if kind == "deal")
    balanced = max(1, deal_total // (4 * workers))

    def chunk(kind: str, a: str, b: str) -> int:
        if kind == "game":
            return 1
        programs = program_commands(a) or program_commands(b)
        return min(MAX_PROGRAM_CHUNK if programs else MAX_CHUNK, balanced)

    return [
        Job(kind, a, b, tuple(ids[start : start + size]), config.rules, config.seed, config.hand_cap, logs)
        for (kind, a, b), ids in todo.items()
        for size in (chunk(kind, a, b),)
        for start in range(0, len(ids), size)
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


def _check_resume(config: ArenaConfig, out: Path, record: dict[str, Any]) -> None:
    """A resumed run must share seed, rules and hand cap with the stored one, and play the same
    checkpoint and bot program files (by their hashes)."""
    stored = stored_config(out)
    current = config.to_dict()
    for key in FIXED_ON_RESUME:
        if stored[key] == current[key]:
            continue
        if key == "rules":  # name the switches that differ, not the whole rule sets
            old, new = stored[key], current[key]
            differ = [f"{name} {new[name]!r} (stored {old.get(name)!r})" for name in new if new[name] != old.get(name)]
            raise ArenaError(f"cannot resume {out}: the rules differ from the stored ones: {', '.join(differ)}")
        raise ArenaError(f"cannot resume {out}: {key} {current[key]!r} differs from the stored {stored[key]!r}")
    changed = changed_checkpoints(stored, record)
    if changed:
        raise ArenaError(f"cannot resume {out}: checkpoint changed since the run began: {', '.join(changed)}")
    changed = changed_programs(stored, record)
    if changed:
        raise ArenaError(f"cannot resume {out}: bot program changed since the run began: {', '.join(changed)}")


def _check_where(out: Path, workers: int, backend: str, ray_address: str) -> None:
    """Refuse, before any play, an out folder that cannot be written and settings of where the
    jobs run that cannot work (a backend, Ray where it is missing, fewer than one worker)."""
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
    problem = folder_problem(out)
    if problem:
        raise ArenaError(f"--out {out}: {problem}")


class _Saved:
    """What a run has kept so far, for the line a stop leaves (an interruption, a failed worker, a
    write the system refused): whether its ``config.json`` is in place (what ``--resume`` reads),
    the pairs in its results file and how many of them this run played."""

    def __init__(self, results: Path, config_written: bool) -> None:
        self.results = results
        self.config_written = config_written
        #: The finished units the results file held when the run read it; None before.
        self.before: int | None = None

    def text(self) -> str:
        """What was kept, and how to go on.

        The pairs are counted in the results file as ``--resume`` will read them: a batch's write
        stopped part way (a full disk, a Ctrl-C while it is flushed) leaves some of its lines
        complete on disk, which a count of the batches written would leave out.
        """
        if not self.config_written:
            return "nothing was played yet: start the run again (there is nothing to --resume)"
        if self.before is None:
            return "nothing new was played; continue with --resume"
        kept = len(read_results(self.results, repair=False))
        return f"{kept} pairs ({kept - self.before} new) saved in {self.results}; continue with --resume"


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
    On an interruption (``KeyboardInterrupt``), a failed job (:class:`WorkerFailure`) or a write the
    system refuses (:class:`~pinochle_env.files.WriteFailed`: a full disk) the run stops, the pairs
    finished so far kept in the results file; the log (for an interruption) or the error says so,
    and how to go on.
    """
    saved = _Saved(out / RESULTS, config_written=resume)
    try:
        validate(config)
        _check_where(out, workers, backend, ray_address)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:  # what the check cannot foresee (/proc, a full disk, a read-only mount)
            raise ArenaError(f"--out {out}: cannot make the folder ({error.strerror or error})") from None
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(folder_held(out))  # one process at a time: two would play the same pairs
            except FolderBusy as error:
                raise ArenaError(f"--out {out}: {error}") from None
            return _play(config, out, workers, resume, progress_every, log, backend, ray_address, saved)
    except KeyboardInterrupt:  # from the start on: a Ctrl-C while the agents load says so too
        _say(log, f"arena: interrupted; {saved.text()}")
        raise
    except WorkerFailure as error:
        if error.details:
            _say(log, error.details)
        raise WorkerFailure(f"{error}; {saved.text()}") from None
    except WriteFailed as error:  # a full disk: a stop like an interruption's, the pairs written kept
        raise error.noted(saved.text()) from None


def _play(
    config: ArenaConfig,
    out: Path,
    workers: int,
    resume: bool,
    progress_every: float,
    log: TextIO | None,
    backend: str,
    ray_address: str,
    saved: _Saved,
) -> dict[str, Any]:
    """:func:`run_arena`'s work, in the folder ``out`` it holds; ``saved`` follows what is kept."""
    results = out / RESULTS
    record = {**config.to_dict(), **provenance(config)}
    if resume:
        _check_resume(config, out, record)
    elif results.exists() and not results.is_file():
        raise ArenaError(f"{results} is not a file: move it aside, or pick another --out")
    elif results.exists() and results.stat().st_size:
        raise ArenaError(f"{results} already holds results: pass --resume to continue it, or another --out")
    write_text_atomically(out / CONFIG, json.dumps(record, indent=2) + "\n")
    saved.config_written = True
    lines = [slim_line(line) for line in read_results(results)] if resume else []
    saved.before = len(lines)
    if backend == "ray":
        try:
            ray = connect_ray(ray_address)
        except ConnectionError as error:
            raise ArenaError(f"--ray-address {ray_address!r}: {error}") from None
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        where = f"Ray tasks on {workers} CPU(s)"
    else:
        where = f"{workers} worker(s)"
    jobs = plan_jobs(config, {unit_key(line) for line in lines}, workers, str((out / BOT_LOGS).resolve()))
    total = sum(len(job.ids) for job in jobs)
    _say(log, f"arena: {len(config.pairings)} pairing(s), {total} pairs to play, {where}, out {out}")
    progress = Progress(total, log, progress_every, "pairs" if config.games else "deal pairs")
    batches = execute_on_ray(jobs, ray) if backend == "ray" else execute(jobs, workers)
    with writing(results):
        stream = open(results, "a", encoding="utf-8")  # noqa: SIM115 (closed below, a refused write's rest let go)
    try:
        with contextlib.closing(batches):
            for finished in batches:
                with writing(results):  # a full disk: the pairs before stay, a partial last line is cut on resume
                    stream.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in finished))
                    stream.flush()
                lines += map(slim_line, finished)
                progress.advance(len(finished))
    finally:
        with contextlib.suppress(OSError):  # after a refused write, closing fails to write its rest again
            stream.close()
    return _finish(config, lines, out, log)


def _finish(config: ArenaConfig, lines: list[dict[str, Any]], out: Path, log: TextIO | None) -> dict[str, Any]:
    """Summarise the units the config asks for and write summary.txt/.csv/.json and margins.png."""
    limit = {"deal": config.deals, "game": config.games}
    wanted = [line for line in lines if line["id"] < limit[line["kind"]]]
    summary = summarise(wanted, list(config.agents))
    with writing(out / "summary.txt"):
        (out / "summary.txt").write_text(format_summary(summary) + "\n", encoding="utf-8")
    with writing(out / "summary.csv"):
        write_csv(summary, out / "summary.csv")
    with writing(out / "summary.json"):
        write_json(summary, out / "summary.json")
    if config.deals:
        with writing(out / "margins.png"):
            write_plot(summary, out / "margins.png")
    if "ratings" in summary:
        with writing(out / "ratings.png"):
            write_ratings_plot(summary, out / "ratings.png")
    _say(log, f"arena: summary in {out}")
    return summary


def _say(log: TextIO | None, message: str) -> None:
    if log is not None:
        print(message, file=log, flush=True)


# ------------------------------------------------------------------------------ command line
