"""The README's main job, as a new user runs it: ``python train.py --config configs/default`` in a
fresh clone of the current commit, timed, with its final evaluation.

The clone (of ``HEAD``, so only committed code runs) is made in a temporary folder and trained
with this interpreter's packages; the run's wall time, decisions, updates and final evaluation
(``evaluation.json``) go to ``benchmarks/results/main_job.json`` (with the commit, date and
machine: :mod:`figures`), from which the figures of ``docs/benchmarks.md`` are made.

Usage: ``python benchmarks/main_job.py [--config configs/default] [--keep DIR] [--dry-run]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import ROOT, command_line, record

from pinochle_env.files import folder_problem


def run_main_job(config: str, folder: Path) -> dict:
    """Clone HEAD into ``folder``, run the main job there and return its figures."""
    from pinochle_train.trainer import opponent_tag  # the trainer's name for an opponent: warm_start for update 0

    clone = folder / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    command = [sys.executable, "train.py", "--config", config, "--run-name", "main-job"]
    print(f"main job: {' '.join(command[1:])} in {clone}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    subprocess.run(command, cwd=clone, check=True)
    wall = time.perf_counter() - start
    run = clone / "runs" / "main-job"
    rows = json.loads((run / "evaluation.json").read_text(encoding="utf-8"))
    checkpoint = sorted((run / "checkpoints").glob("update_*.pt"))[-1]
    return {
        "config": config,
        "wall_seconds": wall,
        "updates": int(checkpoint.stem.split("_")[1]),
        "decisions": _decisions(checkpoint),
        "evaluation": [
            {
                # The run's own warm start is named as such, not by the clone's temporary path.
                "opponent": "its warm start" if opponent_tag(row["opponent"]) == "warm_start" else row["opponent"],
                "deal_pairs": row["deal_pairs"],
                "margin": row["margin"]["estimate"],
                "low": row["margin"]["low"],
                "high": row["margin"]["high"],
            }
            for row in rows
        ],
    }


def _decisions(checkpoint: Path) -> int:
    """The decisions the run played, from its last checkpoint's counters."""
    from agents.neural.checkpoints import load_checkpoint

    return int(load_checkpoint(checkpoint)["counters"]["decisions"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/default", help="the preset (default configs/default)")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (default: a temporary one)")
    parser.add_argument("--dry-run", action="store_true", help="print only: write no benchmarks/results/ file")
    args = parser.parse_args(argv)
    if args.keep is not None:
        problem = folder_problem(args.keep)
        if problem:
            parser.error(f"--keep {args.keep}: {problem}")
        args.keep.mkdir(parents=True, exist_ok=True)
        figures = run_main_job(args.config, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="main-job-") as folder:
            figures = run_main_job(args.config, Path(folder))
    print(json.dumps(figures, indent=2))
    if not args.dry_run:
        record("main_job", figures, command_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
