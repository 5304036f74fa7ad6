"""``python train.py`` / ``pinochle-train``: train by self-play from a preset plus overrides.

Usage::

    python train.py --config configs/default             # the README's main job (about 14 min on 2 cores)
    python train.py --config smoke --updates 3 --rule head_rule=led_card
    python train.py --config smoke --rules-preset casual --eval-opponents random,pimc:samples=2,budget=0.1
    python train.py --resume runs/default-20261129-141500  # continue a killed run (or give a .pt file)

Without ``--config`` the ``default`` preset runs. Every setting and agent spec is checked before the
first update (a usage error, status 2); SIGTERM stops a run like Ctrl-C (status 130, with the line
that says how to continue); a run whose networks turn non-finite, or whose output the system will
not write (a full disk), stops with status 1 and a line saying why.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
import time
from pathlib import Path

from agents.extras import require_extra
from pinochle_env import VERSION_LINE
from pinochle_env.files import (
    FolderBusy,
    WriteFailed,
    folder_problem,
    foreign_run_problem,
    run_name_problem,
    sigterm_as_ctrl_c,
)
from pinochle_env.rules.switches import parse_rule_assignments, switches_help

from .config import (
    FIELDS,
    GROUPS,
    RESUMABLE_CHANGES,
    TYPES,
    TrainConfig,
    build_config,
    load_preset,
    parse_value,
    resolve_preset,
)

#: The preset a run without --config uses.
DEFAULT_PRESET = "default"
#: The command's name in its messages, and its runs' in :data:`pinochle_env.files.RUN_FILES`.
PROG = "train.py"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Train a Pinochle policy by self-play PPO. A preset (TOML) gives the fields; options override. "
        f"Without --config a run uses the {DEFAULT_PRESET!r} preset (configs/{DEFAULT_PRESET}.toml): the "
        "default shown for each option is that preset's value, or the built-in one where the preset leaves the "
        "field out. --resume continues a run with its own stored config instead.",
        epilog=f"Rule switches for --rule: {switches_help()}.",
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument(
        "--config", help=f"preset name in configs/ or a TOML file (default: {DEFAULT_PRESET}; not with --resume)"
    )
    parser.add_argument(
        "--resume",
        metavar="PATH",
        help="continue a run: its directory or a checkpoint file, with the run's stored config (options may "
        f"change only {', '.join(RESUMABLE_CHANGES)})",
    )
    try:
        preset = load_preset(DEFAULT_PRESET)
    except ValueError:  # no presets where they were looked for: a bare run says so when it starts
        preset = {}
    defaults = {**TrainConfig().to_dict(), **preset}
    for title, group in GROUPS.items():
        section = parser.add_argument_group(title, " ".join((inspect.getdoc(group) or "").split()))
        for field in dataclasses.fields(group):
            if field.name == "rules":
                section.add_argument(
                    "--rule", action="append", default=[], metavar="NAME=VALUE", help="set a rule switch (repeatable)"
                )
                continue
            default = defaults[field.name]
            shown = ",".join(map(str, default)) if isinstance(default, list) else default
            kind = TYPES[field.name]
            choices = [choice for choice in kind.choices if choice]  # empty (the default) is not asked for
            section.add_argument(
                f"--{field.name.replace('_', '-')}",
                dest=field.name,
                choices=choices or None,
                metavar=None if choices else kind.kind.__name__.upper(),
                help=f"{field.metadata['help']} (default: {shown if shown != '' else 'empty'})",
            )
    return parser


def _overrides(args: argparse.Namespace) -> dict:
    values = {name: parse_value(name, getattr(args, name)) for name in FIELDS if getattr(args, name, None) is not None}
    rules = parse_rule_assignments(args.rule)
    if rules:
        values["rules"] = rules
    return values


def resolve(args: argparse.Namespace) -> tuple[TrainConfig, Path, dict | None]:
    """The run's config, directory and (when resuming) checkpoint payload; ``ValueError`` on bad input."""
    from .checkpointing import find_resume  # imports torch: main() checked it
    from .labels import holds_chunks, labels_folder

    overrides = _overrides(args)
    if args.resume and args.config is not None:
        raise ValueError(
            f"--resume continues a run with its stored config, so --config {args.config} would be ignored: drop it "
            f"(options may change only {', '.join(RESUMABLE_CHANGES)})"
        )
    if args.resume:
        problem = foreign_run_problem(args.resume, PROG)
        if problem:
            raise ValueError(f"--resume {problem}")
        found = find_resume(Path(args.resume))
        stored, run_dir, payload, done = found.config, found.run_dir, found.payload, found.updates_done
        if found.filled:
            print(found.filled_note(), file=sys.stderr, flush=True)
        changed = sorted(k for k, v in overrides.items() if k != "rules" and stored.get(k) != v)
        refused = [k for k in changed if k not in RESUMABLE_CHANGES] + (["rules"] if "rules" in overrides else [])
        if refused:
            raise ValueError(
                f"--resume cannot change {', '.join(refused)} (only {', '.join(RESUMABLE_CHANGES)} may change)"
            )
        # A checkpoint's weights replace the initial policy's: its file need not be there any more.
        config = build_config({**stored, **overrides}, from_checkpoint=payload is not None)
        if config.updates < done:
            raise ValueError(f"--updates {config.updates} is below the {done} updates {run_dir} already holds")
        return config, run_dir, payload
    preset_name = args.config or DEFAULT_PRESET
    preset = load_preset(preset_name)
    rules = {**preset.pop("rules", {}), **overrides.pop("rules", {})}
    config = build_config({**preset, **overrides, "rules": rules})
    if not config.run_name:
        config.run_name = f"{resolve_preset(preset_name).stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    problem = run_name_problem(config.run_name)
    if problem:
        raise ValueError(f"run_name {problem}")
    if "," in config.run_name or ":" in config.run_name:
        raise ValueError(f"run_name {config.run_name!r} may not contain ',' or ':' (agent specs name its files)")
    run_dir = Path(config.out_dir) / config.run_name
    problem = folder_problem(run_dir)
    if problem:
        raise ValueError(f"--out-dir {config.out_dir}: {problem}")
    problem = foreign_run_problem(run_dir, PROG) or foreign_run_problem(config.out_dir, PROG)
    if problem:
        raise ValueError(f"{problem}: pick another --run-name or --out-dir")
    started = any((run_dir / "checkpoints").glob("*")) or holds_chunks(labels_folder(run_dir))
    if started:
        raise ValueError(f"{run_dir} already holds a run: continue it with --resume {run_dir}, or pick --run-name")
    return config, run_dir, None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        require_extra("train", "training")  # PyTorch and TensorBoard
    except ImportError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    try:
        config, run_dir, payload = resolve(args)
    except ValueError as error:  # CheckpointError included
        parser.error(str(error))
    from .checkpointing import restore  # imports torch: after the arguments are known to be good
    from .trainer import Trainer

    try:
        trainer = Trainer(config, run_dir, log=sys.stderr, from_checkpoint=payload is not None)
        if payload is not None:
            restore(trainer, payload)
    except ValueError as error:
        parser.error(str(error))
    from agents.arena import WorkerFailure

    from .labels import LabelsError
    from .trainer import TrainingDiverged

    try:
        with sigterm_as_ctrl_c():  # a plain kill stops the run like Ctrl-C: "continue with --resume", 130
            trainer.run()
    except KeyboardInterrupt:
        return 130
    except FolderBusy as error:  # the same run started or resumed twice at once
        parser.error(str(error))
    except TrainingDiverged as error:
        print(error, file=sys.stderr, flush=True)
        return 1
    except WorkerFailure as error:  # an arena evaluation's job failed or its worker died
        print(f"train: an evaluation stopped: {error} (python train.py --resume {run_dir})", file=sys.stderr)
        return 1
    except LabelsError as error:  # a warm start's labels made with other settings, or damaged
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    except WriteFailed as error:  # a full disk, a quota: what was written before is whole
        where = f"cannot write {error.filename} ({error.strerror})"
        print(f"train: stopped: {where}; {trainer.how_to_continue()}", file=sys.stderr, flush=True)
        return 1
    return 0
