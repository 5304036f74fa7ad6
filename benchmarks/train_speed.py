"""Training throughput: decisions/s collected and trained end to end with the default preset.

Runs the ``default`` preset (its network, features, workers and update size) for ``--updates``
updates without evaluations and reports, per update after the first (which also waits for the worker
processes to start), every engine decision of the counted hands (forced ones and pool opponents'
included) and the trained decisions, divided by the wall time of collection plus the PPO update.
A preset's imitation warm start is cut to ``WARM_START_HANDS`` teacher hands (and at most as many
auction-only hands), not timed: the updates keep their cloning loss toward those decisions, so what
is measured is the self-play updates' cost. Target: at least 10,000 decisions/s on 2 CPU cores.

Usage: ``python benchmarks/train_speed.py [--updates 8] [--config default] [--set workers=1 ...]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
from pathlib import Path
from typing import Any

import torch

from pinochle_train.config import FIELDS, build_config, load_preset, parse_value
from pinochle_train.trainer import Trainer

#: Teacher hands of a preset's warm start here (one chunk): enough for the cloning loss to have data.
WARM_START_HANDS = 250


def settings(argv: list[str] | None = None) -> dict[str, Any]:
    """The run's fields: the preset, ``--set`` overrides, the updates; a bad one is a usage error
    (status 2) naming it, before anything runs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=8, help="updates, the first not measured (at least 2)")
    parser.add_argument("--config", default="default")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a field")
    args = parser.parse_args(argv)
    if args.updates < 2:
        parser.error(f"--updates must be at least 2 (the first is not measured), got {args.updates}")
    try:
        values = load_preset(args.config)
        for item in args.set:
            name, equals, text = item.partition("=")
            if not equals or name not in FIELDS:
                raise ValueError(f"--set {item!r}: expected FIELD=VALUE with a field of {', '.join(FIELDS)}")
            values[name] = parse_value(name, text)
        build_config({**values, "updates": args.updates})
    except ValueError as error:
        parser.error(str(error))
    return {**values, "updates": args.updates}


def main(argv: list[str] | None = None) -> None:
    values = settings(argv)
    with tempfile.TemporaryDirectory() as out:
        values.update(final_eval_deals=0, eval_every=0, checkpoint_every=0, out_dir=out)
        if values.get("imitate"):
            values["imitation_hands"] = min(values.get("imitation_hands", WARM_START_HANDS), WARM_START_HANDS)
            values["imitation_auction_hands"] = min(values.get("imitation_auction_hands", 0), WARM_START_HANDS)
            print(
                f"warm start cut to {values['imitation_hands']} hands of {values['imitate']!r} and "
                f"{values['imitation_auction_hands']} auction-only hands (not timed)"
            )
        config = build_config({**values, "run_name": "speed"})
        trainer = Trainer(config, Path(out) / "speed")
        trainer.run()
    steady = trainer.history[1:] or trainer.history
    rates = [entry["decisions"] / entry["seconds"] for entry in steady]
    trained = [entry["samples"] / entry["seconds"] for entry in steady]
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    print(
        f"torch {torch.__version__}, learner on {trainer.device} ({torch.get_num_threads()} CPU threads), "
        f"{config.workers} rollout workers"
    )
    print(
        f"network: policy {config.hidden} (features: {config.features}), critic {config.critic_hidden} on the "
        f"{config.critic_input}; cloning loss coefficient {config.imitation_coef}"
    )
    print(f"updates measured: {len(steady)} of {config.decisions_per_update} trained decisions each")
    print(
        f"decisions/s (all engine decisions): median {statistics.median(rates):,.0f}, min {min(rates):,.0f}, "
        f"max {max(rates):,.0f}"
    )
    print(f"trained decisions/s: median {statistics.median(trained):,.0f}")


if __name__ == "__main__":
    main()
