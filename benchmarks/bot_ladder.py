"""Bot ladder: heuristic vs random, pimc vs heuristic and pimc vs the original pimc, as duplicate matches.

Each rung is one ``pinochle-arena`` match (``agents.arena.run_arena``: deal pairs, worker
processes, results file, resumable) and reports A's margin per hand with its 95% paired t interval,
the wall time and each bot's decisions per second (view and mask building included).
``--milestones`` measures the search bot's gain decision kind by decision kind instead: ``mix:``
specs that search the card play only, then also the throw-in, trump and passing, each against the
heuristic (plain ``pimc``, which searches the bid too, is the ladder's rung on the same deals).
``--rule-sets`` plays one pairing (default: the bundled agent against the heuristic, 500 deal pairs)
under every named preset and under 10 rule sets drawn with ``numpy.random.default_rng(2026)``
(:func:`rule_sets`): how an agent copes with rules it may not have trained on.

Usage::

    python benchmarks/bot_ladder.py                    # 2000 + 1000 + 300 deal pairs (the full ladder)
    python benchmarks/bot_ladder.py --quick            # 40 + 10 + 4 deal pairs, to check that it runs
    python benchmarks/bot_ladder.py --milestones       # 4 rungs of 1000 deal pairs
    python benchmarks/bot_ladder.py --rule-sets        # 3 presets + 10 random rule sets, 500 pairs each
    python benchmarks/bot_ladder.py --rung heuristic random 300 --rung pimc:samples=8 heuristic 50 --dry-run
    python benchmarks/bot_ladder.py --out runs/ladder/full --resume   # continue an interrupted ladder

The results go to ``benchmarks/results/bot_ladder.json`` (``bot_ladder_milestones.json`` with
``--milestones``, ``rule_sets.json`` with ``--rule-sets``; ``--figures NAME`` for ``NAME.json``),
with the commit, date and machine (:mod:`figures`), from which the tables of ``docs/benchmarks.md``
(and the README's headline) are made; ``--quick`` and ``--dry-run`` write nothing. Rungs of one's
own (``--rung``) or other rules (``--rule``) need ``--figures NAME`` or ``--dry-run``: they would
otherwise overwrite the mode's figures with another pairing's.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from figures import changed_switches, command_line, record

from agents.arena import ArenaConfig, ArenaError, parse_rules, run_arena
from agents.arena.runtime import usable_cpus
from agents.arena.tournament import validate
from agents.arena.workers import WorkerFailure
from pinochle_env.files import folder_problem
from pinochle_env.rules.switches import PRESETS, Rules, random_rules

#: The default ladder: (A, B, deal pairs).
LADDER = [("heuristic", "random", 2000), ("pimc", "heuristic", 1000), ("pimc", "pimc:evaluate=heuristic", 300)]
QUICK = [("heuristic", "random", 40), ("pimc", "heuristic", 10), ("pimc", "pimc:evaluate=heuristic", 4)]
#: The search bot decision kind by decision kind, each against the heuristic.
MILESTONES = [
    ("mix:play=pimc,default=heuristic", "heuristic", 1000),
    ("mix:play=pimc,throw_in=pimc,default=heuristic", "heuristic", 1000),
    ("mix:play=pimc,throw_in=pimc,trump=pimc,default=heuristic", "heuristic", 1000),
    ("mix:play=pimc,throw_in=pimc,trump=pimc,passing=pimc,default=heuristic", "heuristic", 1000),
]  # the last step, plain pimc (the bid searched too), is the ladder's rung on the same deals
#: The pairing ``--rule-sets`` plays by default, and how many random rule sets it draws (and from what seed).
RULE_SETS_PAIRING = ("checkpoint:bundled", "heuristic", 500)
RANDOM_RULE_SETS, RULE_SETS_SEED = 10, 2026
#: Deal pairs per rule set with ``--quick``.
QUICK_PAIRS = 4
HEADERS = ["A vs B", "pairs", "margin", "95% interval", "wall", "A dec/s", "B dec/s"]
#: Widths of the columns after the first.
COLUMNS = (7, 9, 22, 10, 11, 11)


def rule_sets() -> list[tuple[str, Rules]]:
    """The named presets, then ``RANDOM_RULE_SETS`` rule sets drawn in turn from one
    ``numpy.random.default_rng(RULE_SETS_SEED)`` over the partnership switches (``random_rules``)."""
    rng = np.random.default_rng(RULE_SETS_SEED)
    drawn = [(f"random {k}", random_rules(rng)) for k in range(1, RANDOM_RULE_SETS + 1)]
    return [*PRESETS.items(), *drawn]


def rung_dir(base: Path, index: int, a: str, b: str) -> Path:
    """A rung's out directory: its position and specs, with anything unusual in a name replaced."""
    return base / re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{index}-{a}-vs-{b}")


def run_rung(config: ArenaConfig, out: Path, workers: int, resume: bool) -> dict:
    """Play one rung: its pairing's deal pairs and margin, wall time and each bot's decisions/s."""
    resume = resume and (out / "config.json").exists()
    start = time.perf_counter()
    summary = run_arena(config, out, workers=workers, resume=resume, progress_every=10.0, log=sys.stderr)
    pairing = summary["pairings"][0]
    speed = summary["speed"]
    return {
        "a": pairing["a"],
        "b": pairing["b"],
        "pairs": pairing["deal_pairs"],
        "margin": pairing["margin"],
        "wall": time.perf_counter() - start,
        "a_speed": speed.get(pairing["a"], {}).get("per_second", float("nan")),
        "b_speed": speed.get(pairing["b"], {}).get("per_second", float("nan")),
        "sides": pairing["sides"],  # how each side bid and scored: declared share, contract, made, ...
    }


def format_row(cells: list[str], width: int) -> str:
    """One printed ladder line: the pairing column ``width`` wide, the others right-aligned."""
    return cells[0].ljust(width) + "".join(cell.rjust(size) for cell, size in zip(cells[1:], COLUMNS, strict=True))


def result_cells(row: dict) -> list[str]:
    """A rung's cells: pairing, pairs, margin and interval, wall time, decisions/s of each bot."""
    margin = row["margin"]
    return [
        f"{row['a']} vs {row['b']}",
        str(row["pairs"]),
        f"{margin['estimate']:+.1f}",
        f"[{margin['low']:+.1f}, {margin['high']:+.1f}]",
        f"{row['wall']:.1f}s",
        f"{row['a_speed']:,.0f}",
        f"{row['b_speed']:,.0f}",
    ]


def setting_problem(args: argparse.Namespace) -> str:
    """What is wrong with the command line's settings, found before any rung plays (empty: nothing):
    the workers, each ``--rung``'s count of deal pairs, an out folder that cannot be written, and a
    ``--resume`` that names no ladder to continue."""
    if args.workers < 1:
        return f"--workers must be at least 1, got {args.workers}"
    for a, b, pairs in args.rung or []:
        if not (pairs.isdigit() and int(pairs) >= 1):
            return f"--rung {a} {b} {pairs}: the count of deal pairs must be a whole number of at least 1"
    if args.out is not None and folder_problem(args.out):
        return f"--out {args.out}: {folder_problem(args.out)}"
    if args.resume and not (args.out is not None and any(args.out.glob("*/config.json"))):
        return f"--resume continues a ladder in --out, and {args.out or 'no --out'} holds none (no rung's config.json)"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rung", nargs=3, action="append", metavar=("A", "B", "PAIRS"), help="replace the ladder")
    parser.add_argument("--quick", action="store_true", help="few deal pairs per rung: a check that it runs")
    parser.add_argument("--milestones", action="store_true", help="the search bot's gain per decision kind")
    parser.add_argument("--rule-sets", action="store_true", help="one pairing, every preset, 10 random rule sets")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="rule switch (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=usable_cpus())
    parser.add_argument("--out", type=Path, help="out directory (default runs/ladder/<timestamp>)")
    parser.add_argument("--resume", action="store_true", help="continue the rungs already in --out")
    parser.add_argument("--dry-run", action="store_true", help="print only: write no benchmarks/results/ file")
    parser.add_argument("--figures", metavar="NAME", help="write benchmarks/results/NAME.json (default: by mode)")
    args = parser.parse_args(argv)
    default = MILESTONES if args.milestones else QUICK if args.quick else LADDER
    if args.rule_sets:
        a, b, pairs = RULE_SETS_PAIRING
        default = [(a, b, QUICK_PAIRS if args.quick else pairs)]
        if args.milestones or args.rule or (args.rung and len(args.rung) > 1):
            parser.error(
                "--rule-sets plays one pairing (at most one --rung) under its own rule sets: no --rule or --milestones"
            )
    if (args.rung or args.rule) and not (args.figures or args.quick or args.dry_run):
        parser.error(
            "--rung and --rule change what the mode measures: name its figures with --figures NAME "
            "(benchmarks/results/NAME.json) or write none with --dry-run, so that the mode's own figures stay"
        )
    problem = setting_problem(args)
    if problem:
        parser.error(problem)
    rungs = [(a, b, int(n)) for a, b, n in args.rung] if args.rung else default
    base = args.out or Path("runs", "ladder", time.strftime("%Y%m%d-%H%M%S"))
    try:
        rules = parse_rules(args.rule)
        if args.rule_sets:
            labels, rule_list = zip(*rule_sets(), strict=True)
            ((a, b, n),) = rungs
            rungs = [(a, b, n)] * len(rule_list)
        else:
            labels, rule_list = (None,) * len(rungs), (rules,) * len(rungs)
        configs = [
            ArenaConfig(agents=(a, b), rules=each, deals=n, seed=args.seed)
            for (a, b, n), each in zip(rungs, rule_list, strict=True)
        ]
        for config in configs:  # every rung checked before the first one plays
            validate(config)
    except ArenaError as error:
        parser.error(str(error))
    width = 2 + max(
        len(f"{a} vs {b}") + (len(label) + 3 if label else 0) for (a, b, _), label in zip(rungs, labels, strict=True)
    )
    print(f"Bot ladder ({args.workers} workers, seed {args.seed}; A's margin per hand, paired t interval; {base})")
    print("decisions/s: per worker process, view and mask building included")
    print(format_row(HEADERS, width))
    rows = []
    for index, (config, label) in enumerate(zip(configs, labels, strict=True), start=1):
        try:
            rows.append(run_rung(config, rung_dir(base, index, *config.agents), args.workers, args.resume))
        except (ArenaError, WorkerFailure) as error:
            print(f"{parser.prog}: error: rung {index}: {error}", file=sys.stderr)
            return 1
        if label is not None:
            rows[-1] |= {"label": label, "rules": changed_switches(config.rules.to_dict())}
        cells = result_cells(rows[-1])
        print(format_row([f"{cells[0]} ({label})" if label else cells[0], *cells[1:]], width), flush=True)
    if not (args.quick or args.dry_run):
        figures = {"seed": args.seed, "workers": args.workers, "rules": rules.to_dict(), "rungs": rows}
        if args.rule_sets:  # each rung has its own rules; say how the random ones were drawn
            figures |= {"rules": None, "rule_sets_seed": RULE_SETS_SEED, "random_rule_sets": RANDOM_RULE_SETS}
        named = "rule_sets" if args.rule_sets else "bot_ladder_milestones" if args.milestones else "bot_ladder"
        name = args.figures or named
        record(name, figures, command_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
