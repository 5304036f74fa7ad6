"""Keeping the documentation's figures honest: benchmark results on file, and the tables made from them.

Every benchmark that the documentation quotes writes its results with :func:`record` into
``benchmarks/results/<name>.json``: the figures, the command that made them, the commit they were
measured on (with a flag when the working tree held uncommitted changes), the date and the machine.
The figure tables of README.md and of the pages under docs/ (``docs/benchmarks.md`` holds most)
sit between ``<!-- figures:<name> -->`` and ``<!-- /figures:<name> -->`` markers and are made from
those files by the renderers here; ``tests/project/test_docs.py`` checks that every marked block of every
page is exactly what its files give, so a quoted figure cannot drift from its measurement.

``python benchmarks/figures.py`` rewrites the marked blocks of every page from the files (after a
benchmark has run); ``--check`` only reports the blocks that differ.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from pinochle_env.rules.switches import Rules

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: Where the benchmarks write their results, one JSON file per benchmark run that is quoted.
RESULTS = ROOT / "benchmarks" / "results"
README = ROOT / "README.md"
_BLOCK = re.compile(r"(<!-- figures:(?P<name>[a-z_]+) -->\n)(?P<body>.*?)(<!-- /figures:(?P=name) -->)", re.DOTALL)


# ------------------------------------------------------------------------------ writing results


def _git(*args: str) -> str:
    result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return result.stdout.strip() if result.returncode == 0 else ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def provenance() -> dict[str, Any]:
    """Where and when figures are measured: commit (and whether the code differed from it), UTC date
    and time, and the machine: CPU, usable cores, Python and the main packages' versions."""
    pages_and_results = (
        ":(exclude)docs",
        ":(exclude)README.md",
        ":(exclude)CHANGELOG.md",
        ":(exclude)benchmarks/results",
    )
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", *pages_and_results)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    packages = ("numpy", "pettingzoo", "gymnasium", "torch", "numba")
    return {
        "commit": _git("rev-parse", "HEAD") or "unknown",
        # What else ran: the 1-minute load average at the end (above the cores used: shared).
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "uncommitted_changes": bool(changed),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {
            "cpu": _cpu_model(),
            "cores": cores,
            "system": f"{platform.system()} {platform.machine()}",
            "python": platform.python_version(),
            "packages": {name: version for name in packages if (version := _version(name))},
        },
    }


def record(name: str, figures: dict[str, Any], command: str) -> Path:
    """Write ``benchmarks/results/<name>.json``: ``figures``, the ``command`` that measured them and
    their provenance."""
    path = RESULTS / f"{name}.json"
    data = {"benchmark": name, "command": command, **provenance(), "figures": figures}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"figures written to {path.relative_to(ROOT)} (commit {data['commit'][:10]})", file=sys.stderr)
    return path


def command_line() -> str:
    """The command that is running, as typed (``python benchmarks/x.py --flag``)."""
    script = Path(sys.argv[0])
    shown = script.relative_to(ROOT) if script.is_absolute() and ROOT in script.parents else script
    return " ".join(["python", str(shown), *sys.argv[1:]])


def load(name: str) -> dict[str, Any]:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------ the pages' blocks


def changed_switches(rules: dict[str, Any]) -> dict[str, Any]:
    """The switches of a rule set (as ``Rules.to_dict`` writes it) that differ from its variant's own
    defaults (the two-handed game's target score included)."""
    defaults = Rules(variant=rules["variant"]).to_dict()
    return {name: value for name, value in rules.items() if defaults.get(name) != value}


def measured_line(data: dict[str, Any]) -> str:
    """Who measured what, where: command, commit, date and machine, as a sentence of a page."""
    machine = data["machine"]
    packages = ", ".join(f"{name} {version}" for name, version in machine["packages"].items())
    dirty = " (with uncommitted changes)" if data["uncommitted_changes"] else ""
    cores = f"{machine['cores']} usable core{'s' if machine['cores'] != 1 else ''}"
    load = data.get("load_average")
    shared = f", load average {load:.1f} at the end" if load is not None else ""
    return (
        f"Measured with `{data['command']}` at commit {data['commit'][:10]}{dirty} on {data['date']}{shared}: "
        f"{machine['cpu']}, {cores}, {machine['system']}, Python {machine['python']}, "
        f"{packages}."
    )


def _range(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:,.0f}" if round(low) == round(high) else f"{low:,.0f}-{high:,.0f}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: the first column left-aligned, the others (figures) right-aligned."""
    return [
        "| " + " | ".join(headers) + " |",
        "|---|" + "---:|" * (len(headers) - 1),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def env_speed_block(data: dict[str, Any]) -> str:
    """The environment speed table: per game and path, median and best windows over the runs."""
    runs = data["figures"]["runs"]
    rows = []
    for key in runs[0]:
        cells = [run[key] for run in runs]
        median = [cell["median"] for cell in cells]
        hands = [cell["median"] / cell["decisions_per_hand"] for cell in cells]
        rows.append([key, _range(median), _range([cell["best"] for cell in cells]), _range(hands)])
    headers = ["game and path", "median window, decisions/s", "best window, decisions/s", "hands/s (median)"]
    intro = measured_line(data) + f" {len(runs)} run(s); ranges are the lowest and highest run."
    return "\n".join([intro, "", *_table(headers, rows)])


SIDES_CAPTION = (
    "How each side bid and scored (declared: share of hands; stuck: share of hands it declared as the dealer nobody "
    "bid over, - where the file predates that figure; contract, made, set, thrown in: as declarer, - in a game "
    "without an auction):"
)


def _figure(value: float, spec: str) -> str:
    """A figure, or "-" where there is none (no contract declared, a file that predates it), as the
    arena's own summary writes it."""
    return "-" if math.isnan(value) else format(value, spec)


def _sides_table(rungs: list[dict[str, Any]]) -> list[str]:
    """Per rung and side: the share of hands declared (and stuck with as dealer), the average
    contract, made / set / thrown-in rates when declaring ("-" in a game without an auction), and
    meld and trick points per hand."""
    rows = []
    for rung in rungs:
        for side in ("a", "b"):
            stats = rung["sides"][side]
            stuck = _figure(stats.get("stuck", math.nan), ".1%")
            rows.append([
                f"{rung['a']} vs {rung['b']}", rung[side], f"{stats['declared']:.1%}", stuck,
                _figure(stats["bid"], ".1f"), _figure(stats["made"], ".1%"), _figure(stats["set"], ".1%"),
                _figure(stats["thrown_in"], ".1%"),
                f"{stats['meld']:.1f}", f"{stats['tricks']:.1f}",
            ])  # fmt: skip
    headers = ["A vs B", "side", "declared", "stuck", "average contract", "made", "set", "thrown in", "meld", "tricks"]
    return _table(headers, rows)


def bot_ladder_block(data: dict[str, Any]) -> str:
    """The bot ladder table: each rung's margin, interval, wall time and decisions/s."""
    figures = data["figures"]
    rows = [
        [
            f"{rung['a']} vs {rung['b']}",
            f"{rung['pairs']:,}",
            f"{rung['margin']['estimate']:+.1f}",
            f"[{rung['margin']['low']:+.1f}, {rung['margin']['high']:+.1f}]",
            f"{rung['wall']:,.1f} s",
            f"{rung['a_speed']:,.0f}",
            f"{rung['b_speed']:,.0f}",
        ]
        for rung in figures["rungs"]
    ]
    headers = ["A vs B", "deal pairs", "margin", "95% interval", "wall time", "A decisions/s", "B decisions/s"]
    variant = figures["rules"]["variant"]
    changed = [f"{name}={value}" for name, value in changed_switches(figures["rules"]).items()]
    rules = f"{variant}, rules: {', '.join(changed) or 'default'}"
    intro = measured_line(data) + f" Seed {figures['seed']}, {figures['workers']} worker processes, {rules}."
    lines = [intro, "", *_table(headers, rows)]
    sided = [rung for rung in figures["rungs"] if "sides" in rung]  # recorded since the sides were added
    if sided:
        lines += ["", SIDES_CAPTION, "", *_sides_table(sided)]
    return "\n".join(lines)


def rule_sets_block(data: dict[str, Any]) -> str:
    """One pairing under each preset and random rule set (``bot_ladder.py --rule-sets``): its margin
    and interval, and how side A bid (declared share, contract, made and thrown-in rates)."""
    figures = data["figures"]
    rows = []
    for rung in figures["rungs"]:
        a = rung["sides"]["a"]
        changed = ", ".join(f"{name}={value}" for name, value in rung["rules"].items()) or "(default rules)"
        rows.append([
            rung["label"], changed, f"{rung['pairs']:,}", f"{rung['margin']['estimate']:+.1f}",
            f"[{rung['margin']['low']:+.1f}, {rung['margin']['high']:+.1f}]", f"{a['declared']:.1%}",
            f"{a['bid']:.1f}", f"{a['made']:.1%}", f"{a['thrown_in']:.1%}",
        ])  # fmt: skip
    first = figures["rungs"][0]
    intro = (
        measured_line(data) + f" `{first['a']}` (A) against `{first['b']}` (B), seed {figures['seed']}, "
        f"{figures['workers']} worker processes; the {figures['random_rule_sets']} random rule sets are drawn in "
        f"turn from `numpy.random.default_rng({figures['rule_sets_seed']})`."
    )
    headers = [
        "rule set", "switches changed", "deal pairs", "A's margin", "95% interval", "A declared", "A's contract",
        "A made", "A threw in",
    ]  # fmt: skip
    return "\n".join([intro, "", *_table(headers, rows)])


def _interval(row: dict[str, Any]) -> str:
    """A result row's margin per hand with its 95% interval."""
    margin = row["margin"]
    return f"{margin['estimate']:+.1f} [{margin['low']:+.1f}, {margin['high']:+.1f}]"


def learning_curve_block(data: dict[str, Any]) -> str:
    """Per seed of ``learning_curve.py``: decisions, wall time, every evaluation's margin against the
    heuristic and against the run's warm start (the final one last) and the final ones against each
    opponent with their intervals (``docs/learning_curve.png`` is the curve)."""
    figures = data["figures"]
    opponents = [row["opponent"] for row in figures["runs"][0]["final"]]  # [] without a final evaluation
    periodic_opponents = ("heuristic", "warm_start")
    rows = []
    for run in figures["runs"]:
        periodic = [
            ", ".join(
                f"{row['margin']['estimate']:+.0f}"
                for entry in run["evaluations"]
                for row in entry["rows"]
                if row["opponent"] == name
            )
            or "-"
            for name in periodic_opponents
        ]
        finals = {row["opponent"]: row for row in run["final"]}
        rows.append([
            str(run["seed"]), f"{run['decisions'] / 1e6:.2f} M", f"{run['wall_seconds'] / 60:.1f} min",
            *periodic,
            *(f"{_interval(finals[name])} ({finals[name]['deal_pairs']:,})" for name in opponents),
        ])  # fmt: skip
    intro = measured_line(data) + (
        f" Preset `{figures['preset']}`, evaluations every {figures['eval_every']} updates on "
        f"{figures['eval_deals']} deal pairs per opponent; the final ones on other deals, their deal pairs in brackets."
    )
    headers = [
        "seed", "decisions", "wall time",
        *(f"vs {_opponent_name(name)}, every evaluation" for name in periodic_opponents),
        *(f"final vs {_opponent_name(name)}" for name in opponents),
    ]  # fmt: skip
    return "\n".join([intro, "", *_table(headers, rows)])


def expert_iteration_block(data: dict[str, Any]) -> str:
    """Per iteration of ``expert_iteration.py``: labels, stage times, the gate (kept or not) and the
    margins against the fixed opponents (iteration 0: the start); then the last kept network
    against the start, head to head (``docs/RECIPE.png`` is the curve)."""
    figures = data["figures"]
    lines = figures["iterations"]
    opponents = [row["opponent"] for row in lines[0]["report"]]
    rows = []
    for line in lines:
        seconds = line["seconds"]
        reports = {row["opponent"]: _interval(row) for row in line["report"]}
        rows.append([
            str(line["iteration"]), f"{line['labels']:,}" if "labels" in line else "-",
            f"{seconds['labels_and_fit'] / 60:.1f} + {seconds['gate'] / 60:.1f}" if "gate" in line else "-",
            f"{_interval(line['gate'])}, {'kept' if line['accepted'] else 'not kept'}" if "gate" in line else "(start)",
            *(reports.get(name, "-") for name in opponents),
        ])  # fmt: skip
    count = len(lines) - 1
    deal_pairs = {row["deal_pairs"] for line in lines for row in line["report"]}
    gates = {line["gate"]["deal_pairs"] for line in lines if "gate" in line}
    intro = measured_line(data) + (
        f" Recipe `{figures['recipe']}`, {count} iteration{'s' if count != 1 else ''} from `{figures['start']}`; "
        f"gates on {', '.join(map(str, sorted(gates))) or 'no'} deal pairs against the network kept before, "
        f"the fixed opponents on {', '.join(map(str, sorted(deal_pairs)))} reserved deal pairs (the same every "
        "iteration)."
    )
    headers = ["iteration", "labels", "minutes: labels and fit + gate", "gate: margin [95% CI]",
               *(f"vs {name}" for name in opponents)]  # fmt: skip
    duel = figures["head_to_head"]
    verdict = (
        f"The network of iteration {duel['iteration']} against the start, head to head on {duel['deal_pairs']:,} "
        f"reserved deal pairs: **{_interval(duel)}** per hand."
        if duel
        else "No iteration was kept: the last network kept is the start."
    )
    final = [
        f"against `{row['opponent']}` **{_interval(row)}** ({row['deal_pairs']:,} reserved deal pairs)"
        for row in figures.get("final", [])
    ]
    last = duel["iteration"] if duel else 0
    closing = f" The network of iteration {last} alone (greedy): {'; '.join(final)}." if final else ""
    return "\n".join([intro, "", *_table(headers, rows), "", verdict + closing])


def _opponent_name(tag: str) -> str:
    """An evaluation opponent as a table names it: the run's own checkpoints in words."""
    return {"warm_start": "its warm start", "previous_checkpoint": "its previous checkpoint"}.get(tag, tag)


def solver_speed_block(data: dict[str, Any]) -> str:
    """The solver's times by tricks left, per kind of solve: share solved within the cap, median and
    95th percentile of those."""
    figures = data["figures"]
    rows = []
    for row in figures["rows"]:
        cells = ["first lead" if row["left"] == 12 else str(row["left"]), f"{row['positions']:,}"]
        for key in ("value", "cards"):
            times = row[key]
            cells.append(f"{times['solved'] / row['positions']:.1%}")
            if "median_ms" in times:  # absent when no position of the row was solved within the cap
                cells += [f"{times['median_ms']:,.2f}", f"{times['p95_ms']:,.2f}", f"{times['median_nodes']:,.0f}"]
            else:
                cells += ["", "", ""]
        rows.append(cells)
    cap = f"{figures['cap_seconds']:g} s"
    headers = [
        "tricks left", "positions", f"value: solved within {cap}", "median ms", "p95 ms", "median nodes",
        f"every card: solved within {cap}", "median ms", "p95 ms", "median nodes",
    ]  # fmt: skip
    return "\n".join([measured_line(data) + f" Seed {figures['seed']}.", "", *_table(headers, rows)])


def kernel_sweep_block(data: dict[str, Any]) -> str:
    """The exactness sweep: per game, positions and cards compared with the reference, and the differences."""
    figures = data["figures"]
    counts = ("rule_sets", "positions", "cards", "value_mismatches", "card_mismatches", "nodes", "nodes_unpruned")
    rows = [[row["variant"], *(f"{row[key]:,}" for key in counts)] for row in figures["rows"]]
    summary = (
        f"Plain {figures['reference']} as the reference, {figures['least_tricks']} to {figures['most_tricks']} tricks "
        f"left, {figures['positions_per_rule_set']:,} positions per rule set, seed {figures['seed']}; each position "
        "solved with and without merging equivalent cards, for its value and every legal card's."
    )
    headers = ["game", "rule sets", "positions", "legal cards", "value differences", "card differences",
               "solver nodes", "without merging"]  # fmt: skip
    return "\n".join([measured_line(data), "", summary, "", *_table(headers, rows)])


def pimc_profile_block(data: dict[str, Any]) -> str:
    """The search bot's time per decision kind, and how often the budget cut its sampling short."""
    figures = data["figures"]
    kinds = figures["kinds"]
    total = sum(kind["seconds"] for kind in kinds.values())
    rows = [
        [name, f"{kind['count']:,}", f"{1e3 * kind['seconds'] / kind['count']:,.2f}", f"{kind['seconds'] / total:.0%}"]
        for name, kind in kinds.items()
    ]
    count = sum(kind["count"] for kind in kinds.values())
    rows.append(["all", f"{count:,}", f"{1e3 * total / count:,.2f}", "100%"])
    searched, cut, on_time = figures["searched"], figures["cut_short"], figures.get("cut_on_time")
    split = f", {on_time:,} of them on time" if on_time is not None and cut else ""  # recorded since commit e5de827
    summary = (
        f"`{figures['spec']}` against `{figures['opponent']}`, {figures['pairs']} deal pairs in one process: "
        f"{count / total:,.0f} decisions/s; of {searched:,} card decisions searched, the node or time budget "
        f"cut the sampling short in {cut:,} ({cut / max(searched, 1):.1%}){split}."
    )
    headers = ["decision", "count", "ms each", "share of time"]
    return "\n".join([measured_line(data), "", summary, "", *_table(headers, rows)])


def main_job_block(data: dict[str, Any]) -> str:
    """The README's main job from a clean clone: its wall time, decisions and final evaluation."""
    figures = data["figures"]
    rows = [
        [row["opponent"], f"{row['deal_pairs']:,}", f"{row['margin']:+.1f}", f"[{row['low']:+.1f}, {row['high']:+.1f}]"]
        for row in figures["evaluation"]
    ]
    summary = (
        f"The run took {figures['wall_seconds'] / 60:.1f} minutes and {figures['decisions']:,} decisions "
        f"({figures['updates']} updates). Its final evaluation:"
    )
    headers = ["opponent", "deal pairs", "margin per hand", "95% interval"]
    return "\n".join([measured_line(data), "", summary, "", *_table(headers, rows)])


def bot_protocol_block(data: dict[str, Any]) -> str:
    """The bot protocol's cost: decisions/s of the reference bot through it and of the same logic in
    process, in the arena and in one long match; the overhead per decision and a process start."""
    figures = data["figures"]
    arena, match = figures["arena"], figures["match"]
    rows = [
        [f"arena, one worker, {figures['deals']} deal pairs",
         f"{arena['in_process']['per_second']:,.0f}", f"{arena['protocol']['per_second']:,.0f}"],
        [f"one match of {figures['hands']} hands, after its first decision",
         f"{match['in_process']['per_second']:,.0f}", f"{match['protocol']['per_second']:,.0f}"],
    ]  # fmt: skip
    summary = (
        f"The protocol costs {figures['overhead_us']:,.0f} µs per decision once the bot runs; the first "
        f"decision of a process (its start and the handshake) took {match['protocol']['first_ms']:,.0f} ms."
    )
    headers = ["measured", "in process: decisions/s", "through the protocol: decisions/s"]
    return "\n".join([measured_line(data), "", *_table(headers, rows), "", summary])


def _where(data: dict[str, Any]) -> str:
    """Command, commit, date and machine in a few words (``measured_line`` has the whole of it)."""
    machine = data["machine"]
    dirty = " (with uncommitted changes)" if data["uncommitted_changes"] else ""
    cores = f"{machine['cores']} usable core{'s' if machine['cores'] != 1 else ''}"
    return f"`{data['command']}` at commit {data['commit'][:10]}{dirty} on {data['date']}, {machine['cpu']}, {cores}"


def headline_block(ladder: dict[str, Any], bundled: dict[str, Any], speed: dict[str, Any]) -> str:
    """The README's one table: the bot ladder's margins, the bundled agent's against the bots that
    play (not ``random``), and the environment's speed through ``env()`` in each game and through
    the largest batch of arrays; each with where it was measured."""
    rungs = ladder["figures"]["rungs"] + [rung for rung in bundled["figures"]["rungs"] if rung["b"] != "random"]
    rows = [
        [
            f"`{rung['a']}` vs `{rung['b']}`, {rung['pairs']:,} deal pairs",
            f"{rung['margin']['estimate']:+.1f} points per hand [{rung['margin']['low']:+.1f}, "
            f"{rung['margin']['high']:+.1f}]",
        ]
        for rung in rungs
    ]
    runs = speed["figures"]["runs"]
    arrays = [key for key in runs[0] if key.endswith(", arrays")]
    for key in [key for key in runs[0] if key.endswith("`env()`")] + arrays[-1:]:
        rows.append([f"{key}, random play", f"{_range([run[key]['median'] for run in runs])} decisions/s"])
    note = (
        f"Margins: A's team score minus B's per hand, 95% interval over duplicate deal pairs, measured with "
        f"{_where(ladder)}; the bundled agent's with {_where(bundled)}. Speeds: median 1-second windows, lowest "
        f"and highest of {len(runs)} runs, measured with {_where(speed)}."
    )
    return "\n".join([*_table(["measured", "result"], rows), "", note])


#: The renderer of each marked block of the pages (each block is made from its own results file,
#: or from the files that :data:`SOURCES` names).
BLOCKS: dict[str, Callable[..., str]] = {
    "headline": headline_block,
    "env_speed": env_speed_block,
    "bot_ladder": bot_ladder_block,
    "bot_ladder_milestones": bot_ladder_block,
    "bot_ladder_cutthroat": bot_ladder_block,
    "bot_ladder_two_hand": bot_ladder_block,
    "bundled_agent": bot_ladder_block,
    "bundled_cutthroat": bot_ladder_block,
    "bundled_two_hand": bot_ladder_block,
    "guided_search": bot_ladder_block,
    "guided_search_samples": bot_ladder_block,
    "guided_search_solve": bot_ladder_block,
    "guided_search_declaring": bot_ladder_block,
    "cutthroat_solve_depth": bot_ladder_block,
    "openspiel_ismcts": bot_ladder_block,
    "rule_sets": rule_sets_block,
    "learning_curve": learning_curve_block,
    "expert_iteration": expert_iteration_block,
    "expert_iteration_any_rules": expert_iteration_block,
    "solver_speed": solver_speed_block,
    "solver_speed_first_leads": solver_speed_block,
    "kernel_sweep": kernel_sweep_block,
    "kernel_sweep_deep": kernel_sweep_block,
    "pimc_profile": pimc_profile_block,
    "main_job": main_job_block,
    "bot_protocol": bot_protocol_block,
}

#: The blocks made from other results files than their own name's, in the renderer's argument order.
SOURCES: dict[str, tuple[str, ...]] = {"headline": ("bot_ladder", "bundled_agent", "env_speed")}


def sources(name: str) -> tuple[str, ...]:
    """The results files (names, without ``.json``) that block ``name`` is made from."""
    return SOURCES.get(name, (name,))


def pages() -> list[Path]:
    """The pages that may hold marked blocks: README.md and every Markdown page under docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def page_blocks(text: str) -> dict[str, str]:
    """A page's marked figure blocks by name, as they stand."""
    return {match["name"]: match["body"].strip() for match in _BLOCK.finditer(text)}


def render(name: str) -> str:
    """A block made from ``benchmarks/results/<name>.json`` (or its :data:`SOURCES`); ``SystemExit``
    naming what is missing."""
    if name not in BLOCKS:
        raise SystemExit(f"figure block {name!r} has no renderer in benchmarks/figures.py (known: {', '.join(BLOCKS)})")
    for source in sources(name):
        if not (RESULTS / f"{source}.json").exists():
            raise SystemExit(
                f"figure block {name!r} needs benchmarks/results/{source}.json: run the benchmark that records it first"
            )
    return BLOCKS[name](*(load(source) for source in sources(name)))


def update_page(text: str) -> str:
    """A page with every marked block made afresh from its results files."""
    return _BLOCK.sub(lambda match: f"{match[1]}{render(match['name'])}\n{match[4]}", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Rewrite the figure blocks of README.md and docs/*.md from benchmarks/results/<name>.json."
    )
    parser.add_argument("--check", action="store_true", help="only report the blocks that differ")
    args = parser.parse_args(argv)
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        changed = [name for name, body in page_blocks(text).items() if body != render(name)]
        stale += [f"{page.relative_to(ROOT)}: {name}" for name in changed]
        if changed and not args.check:
            page.write_text(update_page(text), encoding="utf-8")
    if args.check:
        print("\n".join(f"stale: {entry}" for entry in stale) or "figures match benchmarks/results/*.json")
        return 1 if stale else 0
    print(f"figure blocks rewritten: {', '.join(stale) or 'none changed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
