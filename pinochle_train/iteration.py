"""Expert iteration: the search guided by the network labels, the network learns the labels, a gate
keeps it, and the next iteration's search is guided by what was kept.

``pinochle-iterate --config configs/expert_iteration`` runs a recipe: a TOML file of trainer fields
(those of ``train.py``, and a ``[rules]`` table) with an ``[iteration]`` table of its own
(:class:`IterationSettings`). From the accepted policy P (at first the recipe's ``start``), an
iteration ``k``:

1. *labels and fit*: a trainer run of its own (``RUN/iteration_KK``, seed ``seed + k``) whose warm
   start imitates ``teacher`` with P in place of ``{policy}`` (the default teacher is the search guided
   by P, bidding with P's calls), the student starting from P's weights (``initial_policy``); with
   ``imitation_rounds`` > 1 the later rounds' hands are played by the student and labelled by the
   search (DAgger). It fits its own labels and those of the ``history`` iterations before it
   (``imitation_label_folders``), then trains ``updates`` PPO updates (0 in the shipped recipe);
2. *gate*: its policy against P over ``gate_deals`` duplicate deal pairs (seed ``GATE_SEED + k``, not
   reserved: the gate is a choice), kept as the next P when its margin is at least ``gate_margin``
   (0: not worse), else P stays;
3. *report*: its policy against each of ``opponents`` over ``opponent_deals`` deal pairs of reserved
   deals (seed ``RESERVED_SEED + REPORT_OFFSET``, the same every iteration, so the curve compares like
   with like); the start policy is reported the same way as iteration 0.

Every stage resumes: the trainer run and the arena evaluations continue from their folders, and an
iteration whose line is in ``RUN/iterations.jsonl`` is done. Running the same command again (or
with a larger ``--iterations``) continues; a recipe changed in anything else is refused. ``--workers``
sets the worker processes of one command (the recipe's by default: 2), for a machine with more
cores; hands and deals are seeded by chunk and deal, so the results do not depend on it.
``iterations.jsonl`` holds per iteration the teacher, the labels and wall time of each stage, the
fit's losses, the gate's and the report's rows (margins with intervals, the sides' bidding); the
same figures go to TensorBoard (``RUN/tensorboard``, tags ``iteration/...``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from agents.base import check_plays
from agents.neural.agent import resolve_checkpoint
from agents.registry import load_agent
from pinochle_env import VERSION_LINE
from pinochle_env.files import (
    FolderBusy,
    WriteFailed,
    folder_held,
    folder_problem,
    foreign_run_problem,
    run_name_problem,
    sigterm_as_ctrl_c,
    write_text_atomically,
)

from .config import RulesConfig, build_config, load_preset, policy_shape, resolve_preset
from .evaluate import RESERVED_SEED, evaluate, format_evaluation, spec_slug
from .labels import LabelsError, holds_chunks, labels_folder

#: Gate deals: seed ``GATE_SEED + k`` for iteration ``k`` (below the reserved seeds).
GATE_SEED = 8_000_000
#: The report's deals: seed ``RESERVED_SEED + REPORT_OFFSET``, every iteration.
REPORT_OFFSET = 1_000
#: The recipe's own table, and what in it may change when a run continues.
TABLE = "iteration"
RESUMABLE = ("iterations",)
RESULTS = "iterations.jsonl"
#: The command's name in its messages, and its runs' in :data:`pinochle_env.files.RUN_FILES`.
PROG = "pinochle-iterate"


@dataclasses.dataclass
class IterationSettings:
    """The ``[iteration]`` table of a recipe."""

    #: Iterations to run (a later, larger value continues the run).
    iterations: int = 3
    #: The first accepted policy: a checkpoint file, a run directory or a bundled name.
    start: str = "bundled"
    #: The agent spec that labels an iteration's hands; ``{policy}`` stands for the accepted policy's file.
    teacher: str = "guided:checkpoint={policy},prior=2,bidding=network"
    #: Earlier iterations whose labels are fitted with an iteration's own.
    history: int = 2
    #: Deal pairs of the gate, and the margin (points per hand) a new policy needs to be kept.
    gate_deals: int = 500
    gate_margin: float = 0.0
    #: The fixed opponents of the report, and its deal pairs per opponent (0: no report).
    opponents: list[str] = dataclasses.field(default_factory=lambda: ["pimc:solve=4,leaf=3", "heuristic"])
    opponent_deals: int = 200

    def check(self) -> None:
        """Refuse a bad setting, naming it (``ValueError``)."""
        problems = []
        if not (isinstance(self.iterations, int) and self.iterations >= 1):
            problems.append(f"iterations={self.iterations!r} must be an integer >= 1")
        if not isinstance(self.start, str):
            problems.append(f"start={self.start!r} must be a checkpoint file, a run directory or a bundled name")
        if not (isinstance(self.teacher, str) and "{policy}" in self.teacher):
            problems.append(f"teacher={self.teacher!r} must be an agent spec naming the accepted policy as {{policy}}")
        for name in ("history", "gate_deals", "opponent_deals"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= (1 if name == "gate_deals" else 0)):
                problems.append(f"{name}={value!r} must be an integer >= {1 if name == 'gate_deals' else 0}")
        margin = self.gate_margin
        if isinstance(margin, bool) or not isinstance(margin, int | float) or not math.isfinite(margin):
            problems.append(f"gate_margin={margin!r} must be a number (points per hand)")
        if not (isinstance(self.opponents, list) and all(isinstance(spec, str) and spec for spec in self.opponents)):
            problems.append(f"opponents={self.opponents!r} must be a list of agent specs")
        if problems:
            raise ValueError(f"[{TABLE}] " + "; ".join(problems))


def read_recipe(name: str) -> tuple[IterationSettings, dict[str, Any]]:
    """A recipe's settings and its trainer fields (``ValueError`` naming what is wrong)."""
    values = load_preset(name)
    table = values.pop(TABLE, None)
    if not isinstance(table, dict):
        raise ValueError(f"config {resolve_preset(name)}: an expert-iteration recipe needs an [{TABLE}] table")
    known = {field.name for field in dataclasses.fields(IterationSettings)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ValueError(f"[{TABLE}] unknown key {', '.join(unknown)}; known keys: {', '.join(sorted(known))}")
    settings = IterationSettings(**table)
    settings.check()
    return settings, values


class ExpertIteration:
    """One expert-iteration run in ``folder``: :meth:`run` does the iterations not yet done."""

    def __init__(self, settings: IterationSettings, base: dict[str, Any], folder: Path, log: TextIO | None) -> None:
        self.settings = settings
        self.base = base
        self.folder = folder
        self.log = log
        rules_fields = {field.name for field in dataclasses.fields(RulesConfig)}
        variant = build_config({key: value for key, value in base.items() if key in rules_fields}).rule_set().variant
        #: The first accepted policy's file (``ValueError`` naming a missing one).
        self.start = resolve_checkpoint(settings.start, variant)
        self.config = build_config(self._fields(1, str(self.start)))  # checks the trainer fields before anything runs
        self.rules = self.config.rule_set()
        from agents.neural.checkpoints import check_compatible, load_checkpoint

        # The recipe's network must be the start's shape, since each iteration starts from its weights.
        check_compatible(load_checkpoint(self.start), policy_shape(self.config), f"recipe {settings.start!r}'s network")
        for spec in settings.opponents:  # the reports play them: refused before anything runs
            try:
                check_plays(load_agent(spec, 0), self.rules)
            except (ValueError, OSError, ImportError) as error:
                raise ValueError(f"[{TABLE}] opponents: bad agent spec {spec!r}: {error}") from None

    def run(self) -> list[dict[str, Any]]:
        """Every iteration up to ``settings.iterations``; returns all the result lines."""
        from torch.utils.tensorboard import SummaryWriter

        self.folder.mkdir(parents=True, exist_ok=True)
        lines = self.results()
        writer = SummaryWriter(str(self.folder / "tensorboard"))
        try:
            if not lines:
                self._record(writer, lines, self._baseline())
            for k in range(len(lines), self.settings.iterations + 1):
                self._record(writer, lines, self._iteration(k, Path(lines[-1]["accepted_policy"])))
        finally:
            writer.close()
        return lines

    def results(self) -> list[dict[str, Any]]:
        """The lines of ``iterations.jsonl`` so far (iteration 0 is the start policy's report)."""
        path = self.folder / RESULTS
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    # ---------------------------------------------------------------- stages

    def _baseline(self) -> dict[str, Any]:
        self.say(f"iterate: the start policy {self.start}")
        began = time.perf_counter()
        report = self._report(self.start, self.folder / "start_report")
        return {"iteration": 0, "policy": str(self.start), "accepted": True, "accepted_policy": str(self.start),
                "seconds": {"report": time.perf_counter() - began}, "report": report}  # fmt: skip

    def _iteration(self, k: int, accepted: Path) -> dict[str, Any]:
        from .checkpointing import RunCheckpoints, find_resume, restore
        from .trainer import Trainer

        run_dir = self.folder / f"iteration_{k:02d}"
        teacher = self.settings.teacher.replace("{policy}", str(accepted))
        self.say(f"iterate: iteration {k}/{self.settings.iterations}, labels by {teacher}")
        began = time.perf_counter()
        if RunCheckpoints(run_dir, 0).latest() is not None or holds_chunks(labels_folder(run_dir)):  # begun: continue
            found = find_resume(run_dir)
            stored, payload = found.config, found.payload
            if found.filled:
                self.say(found.filled_note())
            resumed = payload is not None  # its checkpoint's weights replace the initial policy's
            config = build_config({**stored, "workers": self.config.workers}, from_checkpoint=resumed)
            trainer = Trainer(config, run_dir, log=self.log, from_checkpoint=resumed)
            if payload is not None:
                restore(trainer, payload)
        else:
            trainer = Trainer(build_config(self._fields(k, str(accepted))), run_dir, log=self.log)
        trainer.run()
        trained = time.perf_counter()
        policy = run_dir / "policy.pt"
        [gate] = evaluate(
            policy, [f"checkpoint:{accepted}"], self.rules, self.settings.gate_deals, GATE_SEED + k,
            run_dir / "gate", self.config.workers, self.log, rules_preset=self.config.rules_preset,
        )  # fmt: skip
        kept = gate["margin"]["estimate"] >= self.settings.gate_margin
        gated = time.perf_counter()
        self.say(format_evaluation([gate], f"iterate: the gate of iteration {k}: {'kept' if kept else 'not kept'}"))
        report = self._report(policy, run_dir / "report")
        return {
            "iteration": k,
            "teacher": teacher,
            "policy": str(policy),
            "accepted": kept,
            "accepted_policy": str(policy if kept else accepted),
            "labels": _label_count(labels_folder(run_dir)),
            "fit": trainer.imitation_statistics,
            "seconds": {
                "labels_and_fit": trained - began, "gate": gated - trained, "report": time.perf_counter() - gated,
            },
            "workers": self.config.workers,
            "gate": gate,
            "report": report,
        }  # fmt: skip

    def _report(self, policy: Path, out: Path) -> list[dict[str, Any]]:
        if not (self.settings.opponent_deals and self.settings.opponents):
            return []
        rows = evaluate(
            policy, self.settings.opponents, self.rules, self.settings.opponent_deals, RESERVED_SEED + REPORT_OFFSET,
            out, self.config.workers, self.log, rules_preset=self.config.rules_preset,
        )  # fmt: skip
        self.say(format_evaluation(rows, f"iterate: {policy} against the fixed opponents (reserved deals):"))
        return rows

    # ---------------------------------------------------------------- records

    def _fields(self, k: int, accepted: str) -> dict[str, Any]:
        """The trainer fields of iteration ``k`` from the accepted policy ``accepted``."""
        first = max(1, k - self.settings.history)
        earlier = [labels_folder(self.folder / f"iteration_{j:02d}") for j in range(first, k)]
        return {
            **self.base,
            "run_name": f"iteration_{k:02d}",
            "out_dir": str(self.folder),
            "seed": int(self.base.get("seed", 0)) + k,
            "imitate": self.settings.teacher.replace("{policy}", accepted),
            "initial_policy": accepted,
            "imitation_label_folders": [str(folder) for folder in earlier],
        }

    def _record(self, writer: Any, lines: list[dict[str, Any]], line: dict[str, Any]) -> None:
        """Append ``line`` to ``lines`` (those of ``iterations.jsonl``), the file (rewritten whole,
        atomically) and TensorBoard."""
        lines.append(line)
        write_text_atomically(self.folder / RESULTS, "".join(json.dumps(entry) + "\n" for entry in lines))
        k = line["iteration"]
        for row in line["report"]:
            slug = spec_slug(row["opponent"])
            writer.add_scalar(f"iteration/margin/{slug}", row["margin"]["estimate"], k)
            for name in ("declared", "made"):
                writer.add_scalar(f"iteration/{name}/{slug}", row["sides"]["a"][name], k)
        if "gate" in line:
            writer.add_scalar("iteration/gate_margin", line["gate"]["margin"]["estimate"], k)
            writer.add_scalar("iteration/accepted", float(line["accepted"]), k)
            writer.add_scalar("iteration/labels", line["labels"], k)
            for name, value in line["fit"].items():
                writer.add_scalar(f"iteration/fit/{name}", value, k)
        for stage, seconds in line["seconds"].items():
            writer.add_scalar(f"iteration/seconds/{stage}", seconds, k)
        writer.flush()

    def say(self, message: str) -> None:
        if self.log is not None:
            print(message, file=self.log, flush=True)


def _label_count(folder: Path) -> int:
    """Decisions labelled in a labels folder (its chunks' rows)."""
    import numpy as np

    count = 0
    for path in sorted(folder.glob("chunk_*.npz")):
        with np.load(path) as stored:
            count += len(stored["action"])
    return count


def check_recipe_unchanged(folder: Path, text: str) -> None:
    """Keep the recipe a run started with in ``RUN/recipe.toml``; refuse to continue with another one
    (but for :data:`RESUMABLE` settings). It writes the file: the caller holds the folder
    (:func:`~pinochle_env.files.folder_held`), so that a command the lock refuses writes nothing."""
    from .config import tomllib

    stored = folder / "recipe.toml"
    if not stored.exists():  # the folder exists: holding it made it
        write_text_atomically(stored, text)
        return
    before, after = tomllib.loads(stored.read_text(encoding="utf-8")), tomllib.loads(text)
    for values in (before, after):
        for name in RESUMABLE:
            values.get(TABLE, {}).pop(name, None)
    if before != after:
        changed = sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))
        raise ValueError(
            f"{folder} was started with another recipe ({stored}; differs in {', '.join(changed)}): "
            f"only {', '.join(RESUMABLE)} may change when a run continues; pick another --run-name"
        )
    write_text_atomically(stored, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Expert iteration: the network-guided search labels, the network learns, a gate keeps it "
        "(docs/training.md#expert-iteration). Run the same command again to continue an interrupted run.",
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument("--config", default="expert_iteration", help="the recipe (default: expert_iteration)")
    parser.add_argument(
        "--run-name", default="expert_iteration", help="the run's folder under --out-dir (default: expert_iteration)"
    )
    parser.add_argument("--out-dir", default="runs", help="where runs go (default: runs)")
    parser.add_argument("--iterations", type=int, help="override the recipe's number of iterations")
    parser.add_argument(
        "--workers",
        type=int,
        help="worker processes of this command's play (default: the recipe's); the results do not depend on it",
    )
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 0:
        parser.error(f"--workers must be at least 0, got {args.workers}")
    from agents.extras import require_extra

    try:
        require_extra("train", "expert iteration")  # PyTorch and TensorBoard
    except ImportError as error:
        parser.error(str(error))
    folder = Path(args.out_dir) / args.run_name
    try:
        settings, base = read_recipe(args.config)
        if args.workers is not None:
            base["workers"] = args.workers
        if args.iterations is not None:
            settings.iterations = args.iterations
            settings.check()
        problem = run_name_problem(args.run_name)
        if problem:
            raise ValueError(f"--run-name {problem}")
        if "," in str(folder.resolve()):
            raise ValueError(f"{folder.resolve()}: the run's folder may not contain ',' (agent specs name its files)")
        problem = folder_problem(folder)
        if problem:
            raise ValueError(f"--out-dir {args.out_dir}: {problem}")
        problem = foreign_run_problem(folder, PROG) or foreign_run_problem(args.out_dir, PROG)
        if problem:  # another command's run: their files would mix
            raise ValueError(f"{problem}: pick another --run-name or --out-dir")
        iteration = ExpertIteration(settings, base, folder, sys.stderr)
        recipe = resolve_preset(args.config).read_text(encoding="utf-8")
    except ValueError as error:
        parser.error(str(error))
    from agents.arena import WorkerFailure
    from agents.neural.checkpoints import CheckpointError

    try:
        with sigterm_as_ctrl_c(), folder_held(folder):  # a kill stops it like Ctrl-C; one command per run
            try:  # it writes the run's recipe.toml: only once the folder is this command's
                check_recipe_unchanged(folder, recipe)
            except ValueError as error:
                parser.error(str(error))
            lines = iteration.run()
    except FolderBusy as error:  # the same command twice at once
        parser.error(str(error))
    except KeyboardInterrupt:
        print(f"iterate: interrupted; run the same command again to continue ({folder})", file=sys.stderr)
        return 130
    # Labels or a network made otherwise or damaged, a failed job, a write the system refused (a full disk).
    except (LabelsError, WorkerFailure, CheckpointError, WriteFailed) as error:
        print(
            f"iterate: stopped: {error} (run the same command again to continue, once that is fixed)", file=sys.stderr
        )
        return 1
    summary = [f"{line['iteration']}: " + ", ".join(
        f"{row['opponent']} {row['margin']['estimate']:+.1f}" for row in line["report"]
    ) + ("" if line["accepted"] else " (not kept)") for line in lines]  # fmt: skip
    print("iterate: margins per iteration against the fixed opponents\n" + "\n".join(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
