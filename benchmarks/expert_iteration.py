"""Expert iteration's curve: a recipe's iterations, their margins against the fixed opponents, and
the last network kept against the start, head to head.

Runs the recipe ``--config`` (default ``expert_iteration``) in ``--run`` with ``pinochle-iterate``
(or continues it: every stage resumes, and iterations already in ``iterations.jsonl`` are not played
again), then plays the last accepted policy against the start policy over ``--deals`` duplicate deal
pairs of reserved deals (seed ``RESERVED_SEED + HEAD_TO_HEAD_OFFSET``, never a gate's or a report's)
and against each of ``--final-opponents`` over ``--final-deals`` (seed ``RESERVED_SEED +
FINAL_OFFSET``), writes ``docs/RECIPE.png`` (per iteration the margin against each fixed opponent and
the gate's margin, with 95% intervals) and ``benchmarks/results/RECIPE.json`` (every line of
``iterations.jsonl`` and the head-to-head, with commit, date and machine: :mod:`figures`, from which
the table of ``docs/benchmarks.md`` is made), RECIPE being the recipe's name, and prints the
head-to-head.

Usage: ``python benchmarks/expert_iteration.py [--config expert_iteration] [--run runs/RECIPE]
[--iterations N] [--deals 2000]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import matplotlib
from figures import DOCS, command_line, record

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pinochle_train import iteration
from pinochle_train.evaluate import RESERVED_SEED, evaluate, format_evaluation

#: The head-to-head's deals: seed ``RESERVED_SEED + HEAD_TO_HEAD_OFFSET`` (the reports use
#: ``iteration.REPORT_OFFSET``, the trainer's final comparisons the run's seed).
HEAD_TO_HEAD_OFFSET = 2_000
#: The last network's final evaluation against fixed opponents: seed ``RESERVED_SEED + FINAL_OFFSET``.
FINAL_OFFSET = 3_000


def last_kept(lines: list[dict[str, Any]]) -> int:
    """The iteration whose network was kept last (0: the start)."""
    return max(line["iteration"] for line in lines if line["accepted"])


def against_last(
    run: iteration.ExpertIteration, lines: list[dict[str, Any]], opponents: list[str], deals: int, offset: int, out: str
) -> list[dict[str, Any]]:
    """The last accepted policy against each of ``opponents`` over ``deals`` deal pairs of the
    reserved seed ``RESERVED_SEED + offset``, played in ``RUN/out`` (resumed there), printed."""
    if not opponents:
        return []
    rows = evaluate(
        Path(lines[-1]["accepted_policy"]), opponents, run.rules, deals, RESERVED_SEED + offset, run.folder / out,
        run.config.workers, sys.stderr, rules_preset=run.config.rules_preset,
    )  # fmt: skip
    print(format_evaluation(rows, f"iteration {last_kept(lines)}'s network (reserved deals):"))
    return rows


def head_to_head(run: iteration.ExpertIteration, lines: list[dict[str, Any]], deals: int) -> dict[str, Any] | None:
    """The last accepted policy against the start over ``deals`` reserved deal pairs (``None`` when
    no iteration was kept: the two are one network)."""
    if last_kept(lines) == 0:
        return None
    start = lines[0]["accepted_policy"]
    [row] = against_last(run, lines, [f"checkpoint:{start}"], deals, HEAD_TO_HEAD_OFFSET, "head_to_head")
    return {**row, "opponent": "start", "iteration": last_kept(lines)}


def portable(value: Any, run: Path, start: Path) -> Any:
    """``value`` (results lines) with this machine's paths named: the run's folder ``RUN``, the start
    policy's file ``START``."""
    text = json.dumps(value).replace(str(start), "START").replace(str(run.resolve()), "RUN").replace(str(run), "RUN")
    return json.loads(text)


def plot(lines: list[dict[str, Any]], path: Path, recipe: str) -> None:
    """Margin per hand against each fixed opponent per iteration (0: the start) and each gate's
    margin against the network it would replace, with 95% intervals; iterations not kept hollow."""
    opponents = [row["opponent"] for row in lines[0]["report"]]
    figure, axes = plt.subplots(1, len(opponents) + 1, figsize=(4 * (len(opponents) + 1), 3.8), sharex=True)
    panels = [(axis, opponent) for axis, opponent in zip(axes, opponents, strict=False)] + [(axes[-1], None)]
    for axis, opponent in panels:
        for line in lines:
            rows = [line["gate"]] if opponent is None and "gate" in line else []
            rows += [row for row in line["report"] if row["opponent"] == opponent]
            for row in rows:
                margin = row["margin"]
                error = [[margin["estimate"] - margin["low"]], [margin["high"] - margin["estimate"]]]
                face = "tab:blue" if line["accepted"] else "white"
                axis.errorbar(line["iteration"], margin["estimate"], yerr=error, fmt="o", color="tab:blue",
                              markerfacecolor=face, capsize=3)  # fmt: skip
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_title(f"vs {opponent}" if opponent else "gate: vs the network before")
        axis.set_xlabel("iteration")
        axis.set_ylabel("duplicate margin per hand")
        axis.set_xticks([line["iteration"] for line in lines])
    figure.suptitle(f"pinochle-rl, recipe {recipe}: 95% intervals; hollow: not kept")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="expert_iteration", help="the recipe (default: expert_iteration)")
    parser.add_argument("--run", type=Path, help="the run's folder (default: runs/RECIPE, the recipe's name)")
    parser.add_argument("--iterations", type=int, help="override the recipe's number of iterations")
    parser.add_argument("--deals", type=int, default=2000, help="deal pairs of the head-to-head (default 2000)")
    parser.add_argument(
        "--final-opponents", nargs="*", default=["pimc:solve=4,leaf=3"], help="agents the last kept network plays last"
    )
    parser.add_argument("--final-deals", type=int, default=1000, help="deal pairs against each (default 1000)")
    args = parser.parse_args(argv)
    recipe = Path(args.config).stem  # a preset's name, or a file's
    args.run = args.run or Path("runs") / recipe
    for name in ("deals", "final_deals"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    argv = ["--config", args.config, "--out-dir", str(args.run.parent), "--run-name", args.run.name]
    status = iteration.main(argv + (["--iterations", str(args.iterations)] if args.iterations is not None else []))
    if status:
        return status
    settings, base = iteration.read_recipe(args.config)
    run = iteration.ExpertIteration(settings, base, args.run, None)
    lines = run.results()
    duel = head_to_head(run, lines, args.deals)
    final = against_last(run, lines, args.final_opponents, args.final_deals, FINAL_OFFSET, "final")
    plot(lines, DOCS / f"{recipe}.png", args.config)
    start = Path(lines[0]["accepted_policy"])
    figures = {
        "recipe": args.config,
        "start": settings.start,
        **portable({"iterations": lines, "head_to_head": duel, "final": final}, args.run, start),
    }
    record(recipe, figures, command_line())
    print(f"wrote {DOCS / f'{recipe}.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
