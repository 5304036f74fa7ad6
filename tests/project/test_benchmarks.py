"""The benchmark scripts' own logic (their figures are measured by hand, not here): the rule sets
the ladder's ``--rule-sets`` plays, and that the mode runs end to end."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pinochle_env.rules.switches import PRESETS, Rules, random_rules
from tests.helpers import ROOT

BENCHMARKS = ROOT / "benchmarks"


def _bot_ladder():
    return _benchmark("bot_ladder")


def _benchmark(name: str):
    """The benchmark script ``benchmarks/<name>.py`` as a module."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_rule_sets_are_the_presets_then_ten_drawn_from_seed_2026():
    bot_ladder = _bot_ladder()
    sets = bot_ladder.rule_sets()
    assert [label for label, _ in sets[: len(PRESETS)]] == list(PRESETS)
    rng = np.random.default_rng(2026)
    assert [rules for _, rules in sets[len(PRESETS) :]] == [random_rules(rng) for _ in range(10)]
    assert len({rules for _, rules in sets}) == len(sets)  # 13 different rule sets
    assert bot_ladder.changed_switches(Rules().to_dict()) == {}
    assert bot_ladder.changed_switches(PRESETS["casual"].to_dict()) == {"head_rule": "none", "must_overtrump": False}


def test_rule_sets_mode_plays_every_rule_set_and_refuses_a_rule(tmp_path: Path):
    command = [sys.executable, str(BENCHMARKS / "bot_ladder.py"), "--rule-sets", "--dry-run", "--workers", "1"]
    result = subprocess.run(
        [*command, "--rung", "random", "random", "1", "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert all(f"({label})" in result.stdout for label, _ in _bot_ladder().rule_sets())
    refused = subprocess.run([*command, "--rule", "head_rule=none"], capture_output=True, text=True)
    assert refused.returncode == 2 and "no --rule" in refused.stderr


def test_own_rungs_or_rules_need_a_figures_name_so_the_modes_figures_stay(tmp_path: Path):
    """--rung or --rule without --figures (or --dry-run, --quick) is refused before anything plays,
    instead of overwriting benchmarks/results/bot_ladder.json or rule_sets.json with another pairing."""
    ladder = [sys.executable, str(BENCHMARKS / "bot_ladder.py"), "--workers", "1", "--out", str(tmp_path)]
    for extra in (["--rule-sets", "--rung", "random", "random", "1"], ["--rule", "variant=cutthroat"]):
        refused = subprocess.run([*ladder, *extra], capture_output=True, text=True)
        assert refused.returncode == 2 and "--figures NAME" in refused.stderr, refused.stderr
    assert not any(tmp_path.iterdir())  # refused before the first rung


@pytest.mark.parametrize(
    ("script", "argv", "message"),
    [
        ("bot_ladder", ["--workers", "0", "--dry-run"], "--workers must be at least 1, got 0"),
        ("bot_ladder", ["--rung", "random", "random", "ten", "--dry-run"], "the count of deal pairs must be a whole"),
        ("bot_ladder", ["--resume", "--out", "{tmp}", "--dry-run"], "holds none (no rung's config.json)"),
        ("bot_ladder", ["--out", "{file}", "--dry-run"], "is not a folder"),
        ("env_speed", ["--batch", "0", "--dry-run"], "--batch sizes must be at least 1, got 0"),
        ("train_speed", ["--set", "bogus=1"], "--set 'bogus=1': expected FIELD=VALUE with a field of"),
        ("train_speed", ["--config", "{binary}"], "not a TOML file (not UTF-8 text)"),
        ("train_speed", ["--updates", "0"], "--updates must be at least 2"),
        ("expert_iteration", ["--deals", "0"], "--deals must be at least 1, got 0"),
    ],
)
def test_benchmark_scripts_refuse_bad_arguments_in_one_line(script, argv, message, tmp_path, capsys):
    """Each once ended in a traceback, or (bot_ladder --resume) started the full ladder."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00binary")
    places = {"tmp": str(tmp_path), "file": str(tmp_path / "file"), "binary": str(tmp_path / "binary.toml")}
    with pytest.raises(SystemExit) as exit_info:
        _benchmark(script).main([arg.format(**places) for arg in argv])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in said and "Traceback" not in said


def _result(estimate: float, pairs: int, opponent: str) -> dict:
    margin = {"estimate": estimate, "low": estimate - 10.0, "high": estimate + 10.0}
    return {"opponent": opponent, "deal_pairs": pairs, "margin": margin}


def test_expert_iteration_table_reads_each_iteration_and_the_head_to_head(tmp_path: Path):
    """The figures of ``expert_iteration.py``: one row per iteration (the start first), the gate's
    verdict, the reports per opponent and the head-to-head; this machine's paths named."""
    benchmark = _benchmark("expert_iteration")
    run, start = tmp_path / "run", tmp_path / "agents" / "start.pt"
    lines = [
        {"iteration": 0, "policy": str(start), "accepted": True, "accepted_policy": str(start),
         "seconds": {"report": 60.0}, "report": [_result(8.4, 200, "pimc"), _result(39.8, 200, "heuristic")]},
        {"iteration": 1, "policy": str(run / "iteration_01" / "policy.pt"), "accepted": True,
         "accepted_policy": str(run / "iteration_01" / "policy.pt"), "labels": 4321,
         "teacher": f"guided:checkpoint={start}", "seconds": {"labels_and_fit": 600.0, "gate": 90.0, "report": 80.0},
         "gate": _result(-1.5, 500, f"checkpoint:{start}"),
         "report": [_result(15.0, 200, "pimc"), _result(31.0, 200, "heuristic")]},
    ]  # fmt: skip
    duel = {**_result(12.3, 500, "start"), "iteration": 1}
    final = [_result(4.0, 1000, "pimc")]
    figures = benchmark.portable({"iterations": lines, "head_to_head": duel, "final": final}, run, start)
    text = json.dumps(figures)
    assert str(tmp_path) not in text and "RUN/iteration_01/policy.pt" in text and "checkpoint=START" in text
    figures_module = _benchmark("figures")
    measured = {**figures_module.provenance(), "command": "python benchmarks/expert_iteration.py"}
    block = figures_module.expert_iteration_block(
        {**measured, "figures": {"recipe": "r", "start": "bundled", **figures}}
    )
    rows = [line for line in block.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| iteration | labels |") and "vs pimc | vs heuristic |" in rows[0]
    assert rows[1].split(" | ")[3:] == ["(start)", "+8.4 [-1.6, +18.4]", "+39.8 [+29.8, +49.8] |"]
    assert rows[2].split(" | ") == [
        "| 1",
        "4,321",
        "10.0 + 1.5",
        "-1.5 [-11.5, +8.5], kept",
        "+15.0 [+5.0, +25.0]",
        "+31.0 [+21.0, +41.0] |",
    ]
    assert "1 iteration from `bundled`; gates on 500" in block and "gates on 500 deal pairs" in block
    assert "iteration 1 against the start, head to head on 500 reserved deal pairs: **+12.3 [+2.3, +22.3]**" in block
    assert block.endswith(
        "of iteration 1 alone (greedy): against `pimc` **+4.0 [-6.0, +14.0]** (1,000 reserved deal pairs)."
    )
    no_duel = {**measured, "figures": {"recipe": "r", "start": "bundled", **figures, "head_to_head": None}}
    assert "No iteration was kept: the last network kept is the start. The network of iteration 0 alone" in (
        figures_module.expert_iteration_block(no_duel)
    )
