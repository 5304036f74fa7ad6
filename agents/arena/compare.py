"""``pinochle-arena --compare RUN OTHER``: two matches on the same deals, compared deal pair by deal pair.

Two runs with the same ``--seed`` and rules play the same duplicate deals (deal i is the same in every
run). Where they differ in one agent, say ``A1`` against ``B`` and ``A2`` against ``B``, the difference
of A's margins deal pair by deal pair cancels what the cards alone decide (common random numbers):
its paired interval is far narrower than the two runs' intervals side by side, so a change of a few
points a hand that neither run can see alone shows. :func:`compare_runs` computes it over the deal
pairs both runs finished, beside the interval the same difference would have over independent deals
(what pairing saved); :func:`format_comparison` prints it.

Refused, with an ``ArenaError`` that says why: a directory that is not a finished or interrupted
arena run, a round robin (a comparison reads one pairing per run), runs under other seeds or rules,
no deal pair in common, and deal pairs whose cards differ between the runs (results of another code
version), since a pairing over different deals would be a silent wrong answer.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .report import deal_pair_margin, estimate_text
from .stats import Interval, mean_interval, t_quantile
from .tournament import RESULTS, ArenaConfig, ArenaError, pairing_deals, read_results, stored_config


@dataclass(frozen=True)
class Comparison:
    """Two runs' margins over their shared deal pairs, and the paired difference (first minus second).

    ``independent_half_width`` is the half-width the difference's interval would have if the two
    margins came from independent deals (the same standard deviations, no pairing)."""

    pairings: tuple[tuple[str, str], tuple[str, str]]
    seed: int
    deal_pairs: int
    margins: tuple[Interval, Interval]
    difference: Interval
    independent_half_width: float
    confidence: float


def compare_runs(first: Path, second: Path, confidence: float = 0.95) -> Comparison:
    """The :class:`Comparison` of the arena runs in directories ``first`` and ``second``."""
    configs = [_match_config(out) for out in (first, second)]
    if configs[0].seed != configs[1].seed:
        raise ArenaError(
            f"{first} and {second} played other deals (--seed {configs[0].seed} and {configs[1].seed}): "
            "compare runs with the same seed"
        )
    if configs[0].rules != configs[1].rules:
        raise ArenaError(f"{first} and {second} played under other rules: compare runs under the same rules")
    lines = [_deal_lines(out, _pairing(config)) for out, config in zip((first, second), configs, strict=True)]
    shared = sorted(set(lines[0]) & set(lines[1]))
    if len(shared) < 2:
        raise ArenaError(
            f"{first} and {second} have {len(shared)} deal pair(s) in common: a comparison needs at least two"
        )
    for deal in shared:
        if _dealt(lines[0][deal]) != _dealt(lines[1][deal]):
            raise ArenaError(
                f"deal pair {deal} holds other cards in {first} than in {second} (runs of another code version?): "
                "they did not play the same deals"
            )
    margins = [np.array([deal_pair_margin(run[deal]) for deal in shared]) for run in lines]
    n = len(shared)
    spread = math.sqrt((margins[0].var(ddof=1) + margins[1].var(ddof=1)) / n)
    return Comparison(
        pairings=(_pairing(configs[0]), _pairing(configs[1])),
        seed=configs[0].seed,
        deal_pairs=n,
        margins=(mean_interval(margins[0], confidence), mean_interval(margins[1], confidence)),
        difference=mean_interval(margins[0] - margins[1], confidence),
        independent_half_width=t_quantile(confidence, n - 1) * spread,
        confidence=confidence,
    )


def format_comparison(comparison: Comparison, names: tuple[str, str]) -> str:
    """The comparison as a few lines of text; ``names`` are how the two runs are called (their paths)."""
    level = f"{comparison.confidence:.0%}"
    lines = [f"{comparison.deal_pairs:,} deal pairs played in both runs (seed {comparison.seed})"]
    for name, (a, b), margin in zip(names, comparison.pairings, comparison.margins, strict=True):
        lines.append(f"{name}: {a} vs {b}: {estimate_text(margin.to_dict())} per hand")
    difference = comparison.difference
    paired_half = (difference.high - difference.low) / 2
    lines.append(
        f"paired difference (first minus second): {estimate_text(difference.to_dict())} per hand, "
        f"{level} paired t interval"
    )
    independent = comparison.independent_half_width
    saving = f"; {(independent / paired_half) ** 2:.1f} times the deal pairs for the same width" if paired_half else ""
    lines.append(
        f"over independent deals the same difference would be +-{independent:.1f} (paired: +-{paired_half:.1f}{saving})"
    )
    return "\n".join(lines)


def _match_config(out: Path) -> ArenaConfig:
    """The config of the match in ``out``; an ``ArenaError`` for a round robin."""
    config = ArenaConfig.from_dict(stored_config(out, action="compare"))
    if len(config.agents) != 2:
        raise ArenaError(
            f"{out} is a round robin of {len(config.agents)} agents: --compare reads runs of one match (two agents)"
        )
    return config


def _pairing(config: ArenaConfig) -> tuple[str, str]:
    return config.agents[0], config.agents[1]


def _deal_lines(out: Path, pairing: tuple[str, str]) -> dict[int, dict[str, Any]]:
    """The finished deal pairs of ``pairing`` (A, B) in the run in ``out``, by id (nothing written: the
    run may be in progress)."""
    return {line["id"]: line for line in pairing_deals(read_results(out / RESULTS, repair=False), pairing)}


def _dealt(line: dict[str, Any]) -> list[str]:
    """What identifies a deal pair's cards: each play's first hand as dealt, and its dealer."""
    return [json.dumps([play["hands"][0].get("deal"), play["hands"][0].get("dealer")]) for play in line["plays"]]
