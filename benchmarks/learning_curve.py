"""Learning curve of a preset over several seeds: arena margin against the heuristic and against the
run's own warm start as training goes.

Runs the preset (``default``) once per seed with periodic arena evaluations (every
``--eval-every`` updates, by default the preset's own period; ``--eval-deals`` deal pairs against
each of ``--opponents``, the run's warm start and its previous evaluation's checkpoint) and its
final evaluation (the preset's deal pairs against the opponents, and with
``final_eval_warm_start_deals`` the warm start on reserved deals), then writes
``docs/learning_curve.png`` (margin per hand against decisions trained, against the heuristic and
against the warm start, one faint line per seed and their mean) and
``benchmarks/results/learning_curve.json`` (every evaluation with its interval, with the commit,
date and machine: :mod:`figures`, from which the table of ``docs/benchmarks.md`` is made), and
prints the final results per seed. Runs go to ``runs/learning_curve/seed<k>``.

Usage: ``python benchmarks/learning_curve.py [--seeds 0 1 2] [--config default] [--eval-every N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import matplotlib
from figures import DOCS, command_line, record

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pinochle_env.files import folder_problem
from pinochle_train.config import TrainConfig, build_config, load_preset
from pinochle_train.evaluate import format_evaluation
from pinochle_train.trainer import Trainer, opponent_tag


def seed_config(preset: str, seed: int, args: argparse.Namespace) -> TrainConfig:
    """The run of one seed (``ValueError`` naming a bad preset, seed or option)."""
    values = load_preset(preset)
    values.update(
        seed=seed,
        run_name=f"seed{seed}",
        out_dir=str(args.out),
        eval_every=args.eval_every or values.get("eval_every") or 50,
        eval_deals=args.eval_deals,
        eval_opponents=args.opponents,
    )
    return build_config(values)


def run_seed(config: TrainConfig, args: argparse.Namespace) -> dict:
    seed = config.seed
    began = time.perf_counter()
    trainer = Trainer(config, args.out / f"seed{seed}", log=None if args.quiet else sys.stderr)
    final = named(trainer.run())
    print(format_evaluation(final, f"seed {seed}: final evaluation"))
    return {
        "seed": seed,
        "wall_seconds": time.perf_counter() - began,
        "decisions": trainer.counters["decisions"],
        "evaluations": [{**entry, "rows": named(entry["rows"])} for entry in trainer.evaluations],
        "final": final,
        "eval_every": config.eval_every,
    }


def named(rows: list[dict]) -> list[dict]:
    """Evaluation rows with the run's own checkpoints named by what they are (``warm_start``,
    ``previous_checkpoint``), not by a path under this machine's run folder."""
    return [{**row, "opponent": opponent_tag(row["opponent"])} if row["opponent"].startswith("checkpoint:") else row
            for row in rows]  # fmt: skip


def plot(results: list[dict], path: Path, preset: str) -> None:
    """One panel per opponent (the heuristic, the warm start): margin per hand against decisions
    played, each seed faint and their mean bold; the warm-start panel starts at 0 (itself)."""
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for axis, opponent in zip(axes, ("heuristic", "warm_start"), strict=True):
        curves = []
        for result in results:
            points = [(0, 0.0)] if opponent == "warm_start" else []
            points += [
                (entry["decisions"], row["margin"]["estimate"])
                for entry in result["evaluations"]
                for row in entry["rows"]
                if row["opponent"] == opponent
            ]
            x, y = np.array(points).T
            curves.append((x, y))
            axis.plot(x / 1e6, y, color="tab:blue", alpha=0.3, label=f"seed {result['seed']}")
        length = min(len(x) for x, _ in curves)
        mean_x = np.mean([x[:length] for x, _ in curves], axis=0)
        mean_y = np.mean([y[:length] for _, y in curves], axis=0)
        axis.plot(mean_x / 1e6, mean_y, color="tab:blue", linewidth=2, label="mean")
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_title("vs its warm start" if opponent == "warm_start" else f"vs {opponent}")
        axis.set_xlabel("decisions played (millions)")
        axis.set_ylabel("duplicate margin per hand")
    axes[0].legend(fontsize=8)
    figure.suptitle(f"pinochle-rl, preset {preset}: {len(results)} seeds")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--eval-every", type=int, help="updates between evaluations (default: the preset's, or 50)")
    parser.add_argument("--eval-deals", type=int, default=300, help="deal pairs per periodic evaluation (default 300)")
    parser.add_argument("--opponents", nargs="+", default=["heuristic"], help="bots to evaluate against")
    parser.add_argument("--out", type=Path, default=Path("runs/learning_curve"))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    try:  # every seed's run checked before the first trains
        configs = [seed_config(args.config, seed, args) for seed in args.seeds]
    except ValueError as error:
        parser.error(str(error))
    problem = folder_problem(args.out)
    if problem:
        parser.error(f"--out {args.out}: {problem}")
    results = [run_seed(config, args) for config in configs]
    plot(results, DOCS / "learning_curve.png", args.config)
    settings = {"eval_every": results[0]["eval_every"], "eval_deals": args.eval_deals}
    record("learning_curve", {"preset": args.config, **settings, "runs": results}, command_line())
    print(f"wrote {DOCS / 'learning_curve.png'}")


if __name__ == "__main__":
    main()
