"""Arena evaluations of a checkpoint: duplicate margin and deal-pair win rate against agent specs.

Each opponent plays a duplicate match through :func:`agents.arena.run_arena` (same deals, teams
swapped), written to its own directory so an interrupted evaluation resumes (unless the checkpoint
file changed since: a run that trained on after an interrupted final evaluation evaluates
afresh). The win rate is the share of deal pairs the checkpoint's team won on the pair's mean
margin (a tie counts half), with its Wilson interval.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any, TextIO

from agents.arena import RESULTS, ArenaConfig, ArenaError, read_results, run_arena
from agents.arena.report import deal_pair_margin
from agents.arena.stats import wilson_interval
from agents.arena.tournament import changed_checkpoints, pairing_deals, provenance, stored_config
from pinochle_env.render import format_table
from pinochle_env.rules.switches import Rules

#: The deals of a run's comparison with its warm start are those of seed ``RESERVED_SEED`` plus the
#: run's seed. Seeds from here up are kept for reported figures: no preset, gate or experiment is
#: tuned on them (docs/benchmarks.md#reserved-deals).
RESERVED_SEED = 9_000_000


def spec_slug(spec: str) -> str:
    """A directory name for an agent spec."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", spec).strip("_") or "agent"


def evaluate(
    checkpoint: Path,
    opponents: list[str],
    rules: Rules,
    deals: int,
    seed: int,
    out: Path,
    workers: int,
    log: TextIO | None = None,
    rules_preset: str = "",
) -> list[dict[str, Any]]:
    """Play ``deals`` deal pairs of ``checkpoint`` against each opponent; one result row per opponent.

    ``rules_preset`` names the rule preset ``rules`` came from, for the arena runs' records."""
    rows = []
    for opponent in opponents:
        agents = (f"checkpoint:{checkpoint}", opponent)
        config = ArenaConfig(agents=agents, rules=rules, deals=deals, seed=seed, rules_preset=rules_preset)
        target = out / spec_slug(opponent)
        resume = (target / RESULTS).exists() and _still_valid(target, config)
        if not resume and target.exists():
            shutil.rmtree(target)  # an earlier policy's results (the run trained on since): start afresh
        summary = run_arena(config, target, workers=max(1, workers), resume=resume, progress_every=30.0, log=log)
        # The pairs this evaluation asked for: a resumed one may hold more, from an earlier one with more deals,
        # and pairs of the same checkpoint under another spelling of its path (a run resumed from elsewhere).
        played = [line for line in pairing_deals(read_results(target / RESULTS), agents) if line["id"] < deals]
        margins = [deal_pair_margin(line) for line in played]
        wins = sum(1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins)
        rows.append(
            {
                "opponent": opponent,
                "deal_pairs": len(margins),
                "margin": summary["pairings"][0]["margin"],
                "win_rate": wilson_interval(wins, len(margins)).to_dict(),
                # How each side bid and made its contracts (the arena report's side table): "a" is the checkpoint.
                "sides": summary["pairings"][0]["sides"],
            }
        )
    return rows


def _still_valid(target: Path, config: ArenaConfig) -> bool:
    """Whether the evaluation in ``target`` can be resumed: its ``config.json`` can be read and names
    the same checkpoint file contents (an unreadable one is replayed, as a changed checkpoint is)."""
    try:
        return not changed_checkpoints(stored_config(target), provenance(config))
    except ArenaError:
        return False


def format_evaluation(rows: list[dict[str, Any]], title: str) -> str:
    """The evaluation as a text table: margin per hand and deal pairs won, with 95% intervals."""
    header = ["opponent", "deal pairs", "margin per hand [95% CI]", "deal pairs won [95% CI]"]
    body = []
    for row in rows:
        margin, win = row["margin"], row["win_rate"]
        body.append(
            [
                row["opponent"],
                str(row["deal_pairs"]),
                f"{margin['estimate']:+.1f} [{margin['low']:+.1f}, {margin['high']:+.1f}]",
                f"{100 * win['estimate']:.1f}% [{100 * win['low']:.1f}, {100 * win['high']:.1f}]",
            ]
        )
    return title + "\n" + format_table(header, body, left=len(header))
