"""``pinochle-arena``, the command line of :mod:`agents.arena`."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from pinochle_env import VERSION_LINE
from pinochle_env.files import WriteFailed, foreign_run_problem, run_name_problem, sigterm_as_ctrl_c
from pinochle_env.rules.switches import PRESETS, switches_help

from ..registry import agents_help
from .compare import compare_runs, format_comparison
from .report import format_summary
from .runtime import BACKENDS, usable_cpus
from .tournament import ArenaConfig, ArenaError, parse_rules, run_arena, stored_config
from .workers import WorkerFailure

#: The command's name in its messages, and its runs' in :data:`pinochle_env.files.RUN_FILES`.
PROG = "pinochle-arena"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Duplicate matches (2 agent specs) and round robins (3+) between Pinochle agents. "
        "With --resume, the agents and settings not given come from the run being resumed.",
        epilog=f"Agents (parameters as name:key=value,key=value, e.g. pimc:samples=16,budget=0.2): {agents_help()}. "
        f"Rule switches for --rule: {switches_help()}. "
        "Examples: pinochle-arena random heuristic --deals 500 --rule head_rule=led_card; "
        'pinochle-arena heuristic "program:cmd=python3 examples/random_bot.py,timeout=5" (a bot program, '
        "docs/bot_protocol.md)",
    )
    parser.add_argument(
        "agents",
        nargs="*",
        help="agent specs (random, heuristic, pimc:samples=16, checkpoint:bundled, mix:..., program:cmd=COMMAND)",
    )
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
    parser.add_argument("--out", type=out_argument, help="out directory (default runs/arena/<name or timestamp>)")
    parser.add_argument("--name", help="run name, for the default out directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in the out directory")
    parser.add_argument(
        "--progress-every", type=float, default=2.0, metavar="SECONDS", help="seconds between progress lines"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("RUN", "OTHER"),
        help="play nothing: compare two finished (or interrupted) matches on the same deals (the same --seed "
        "and rules), the paired difference of their A sides' margins deal pair by deal pair (RUN minus OTHER)",
    )
    return parser


def config_from_args(args: argparse.Namespace, out: Path) -> ArenaConfig:
    """The run's config: the command line, with settings it leaves out taken from a resumed run."""
    defaults = ArenaConfig.from_dict(stored_config(out)) if args.resume else ArenaConfig(agents=())
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


def out_argument(text: str) -> Path:
    """An ``argparse`` type: the ``--out`` folder, not empty (``Path("")`` is the current folder: an
    unset variable put the run's files among whatever is there)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} names no folder (default runs/arena/<name or timestamp>)")
    return Path(text)


def _out_dir(args: argparse.Namespace) -> Path:
    """The run's folder: ``--out``, else ``runs/arena/`` and ``--name`` (or the time); ``ArenaError``
    for one that holds another command's run (a ``train.py`` run's checkpoints), whose files this
    run's would mix with, whether it starts or resumes."""
    out = _named_out_dir(args)
    problem = foreign_run_problem(out, PROG)
    if problem:
        raise ArenaError(f"{problem}: pick another --out or --name")
    return out


def _named_out_dir(args: argparse.Namespace) -> Path:
    if args.out is not None:
        return args.out
    if args.resume and args.name is None:
        raise ArenaError("--resume needs the run's --out or --name")
    if args.name is not None and run_name_problem(args.name):
        raise ArenaError(f"--name {run_name_problem(args.name)}")
    return Path("runs", "arena", args.name or time.strftime("%Y%m%d-%H%M%S"))


def _compare(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--compare RUN OTHER``: print the comparison; a usage error (exit 2) for a bad pair of runs."""
    options = {"agent specs": args.agents, "--resume": args.resume, "--rule": args.rule}
    names = ("rules_preset", "deals", "games", "seed", "hand_cap", "out", "name")
    options |= {f"--{name.replace('_', '-')}": getattr(args, name) for name in names}
    played = [flag for flag, given in options.items() if given not in (None, [], False, ())]
    if played:
        parser.error(f"--compare plays nothing: leave out {' and '.join(played)}")
    try:
        comparison = compare_runs(*args.compare)
    except ArenaError as error:
        parser.error(str(error))
    print(format_comparison(comparison, (str(args.compare[0]), str(args.compare[1]))))
    return 0


def main(argv: list[str] | None = None) -> int:
    """The console script: parse, run, print the report; 2 on a bad command line, 130 when interrupted,
    1 when a job failed or a file could not be written (a full disk)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.compare:
        return _compare(parser, args)
    if not args.progress_every >= 0:  # nan as well
        parser.error(f"--progress-every must be a number of seconds >= 0, got {args.progress_every}")
    try:
        out = _out_dir(args)
        config = config_from_args(args, out)
        with sigterm_as_ctrl_c():  # a plain kill stops the run like Ctrl-C: workers stopped, finished pairs kept
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
    except ArenaError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        return 130
    except (WorkerFailure, WriteFailed) as error:  # a failed job, a full disk: the pairs played are kept
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    print(format_summary(summary))
    return 0
