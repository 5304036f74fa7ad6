"""``pinochle-arena --compare``: the paired difference of two matches on the same deals, and the
runs it refuses (other deals, other rules, a round robin, cards that differ)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.arena import RESULTS, ArenaConfig, read_results, run_arena
from agents.arena.cli import main
from agents.arena.compare import compare_runs
from agents.arena.report import deal_pair_margin
from agents.arena.tournament import ArenaError
from pinochle_env.rules.switches import Rules

OPPONENT = "mix:play=random,default=random"
#: Two A agents that differ only in how they bid, so that their margins differ deal by deal.
FIRST, SECOND = "random", "mix:auction=random,default=random"


def play(out: Path, a: str, deals: int = 6, seed: int = 3, rules: Rules | None = None, b: str = OPPONENT) -> Path:
    run_arena(ArenaConfig(agents=(a, b), deals=deals, seed=seed, rules=rules or Rules()), out, workers=1)
    return out


def margins_by_id(out: Path) -> dict[int, float]:
    return {line["id"]: deal_pair_margin(line) for line in read_results(out / RESULTS) if line["kind"] == "deal"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    return play(root / "first", FIRST), play(root / "second", SECOND, deals=4)  # the second one interrupted


def test_paired_difference_over_the_shared_deal_pairs(runs):
    first, second = runs
    comparison = compare_runs(first, second)
    one, two = margins_by_id(first), margins_by_id(second)
    shared = sorted(set(one) & set(two))
    assert comparison.deal_pairs == len(shared) == 4  # the second run finished 4 of the 6
    differences = np.array([one[i] - two[i] for i in shared])
    assert comparison.difference.estimate == pytest.approx(differences.mean())
    assert comparison.margins[0].estimate == pytest.approx(np.mean([one[i] for i in shared]))
    assert comparison.margins[1].estimate == pytest.approx(np.mean([two[i] for i in shared]))
    assert comparison.pairings == ((FIRST, OPPONENT), (SECOND, OPPONENT))
    half = (comparison.difference.high - comparison.difference.low) / 2
    assert half == pytest.approx(3.182446 * differences.std(ddof=1) / 2)  # t(0.975, 3) * sd / sqrt(4)
    assert comparison.independent_half_width > 0


def test_cli_prints_the_comparison(runs, capsys):
    first, second = runs
    assert main(["--compare", str(first), str(second)]) == 0
    text = capsys.readouterr().out
    difference = compare_runs(first, second).difference.estimate
    assert "4 deal pairs played in both runs (seed 3)" in text
    assert f"paired difference (first minus second): {difference:+.1f}" in text


@pytest.mark.parametrize("extra", [["random", "heuristic"], ["--resume"], ["--seed", "4"], ["--deals", "10"]])
def test_cli_refuses_options_that_would_play(runs, extra, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*extra, "--compare", *map(str, runs)])
    assert stop.value.code == 2
    assert "--compare plays nothing" in capsys.readouterr().err


def test_refuses_other_deals_rules_and_round_robins(runs, tmp_path):
    first, _ = runs
    with pytest.raises(ArenaError, match="--seed 3 and 4"):
        compare_runs(first, play(tmp_path / "seed", SECOND, deals=2, seed=4))
    with pytest.raises(ArenaError, match="other rules"):
        compare_runs(first, play(tmp_path / "rules", SECOND, deals=2, rules=Rules(head_rule="none")))
    run_arena(ArenaConfig(agents=(FIRST, SECOND, OPPONENT), deals=1, seed=3), tmp_path / "robin", workers=1)
    with pytest.raises(ArenaError, match="round robin of 3 agents"):
        compare_runs(tmp_path / "robin", first)
    with pytest.raises(ArenaError, match="nothing to compare in"):
        compare_runs(first, tmp_path / "missing")


def test_refuses_deal_pairs_whose_cards_differ(runs, tmp_path):
    first, second = runs
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("config.json", RESULTS):
        (copy / name).write_bytes((second / name).read_bytes())
    lines = [json.loads(text) for text in (copy / RESULTS).read_text(encoding="utf-8").splitlines()]
    hand = lines[0]["plays"][0]["hands"][0]
    hand["deal"] = [hand["deal"][1], hand["deal"][0], *hand["deal"][2:]]  # two seats' cards swapped
    (copy / RESULTS).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(ArenaError, match=f"deal pair {lines[0]['id']} holds other cards"):
        compare_runs(first, copy)


def test_only_the_runs_own_pairing_counts_where_a_resume_added_others(runs, tmp_path):
    first, second = runs
    mixed = play(tmp_path / "mixed", FIRST)
    for agents in ((OPPONENT, FIRST), (FIRST, OPPONENT)):  # the same deals the other way, then back
        run_arena(ArenaConfig(agents=agents, deals=6, seed=3, rules=Rules()), mixed, workers=1, resume=True)
    kinds = [(line["a"], line["b"]) for line in read_results(mixed / RESULTS)]
    assert kinds == [(FIRST, OPPONENT)] * 6 + [(OPPONENT, FIRST)] * 6  # the other pairing's lines last
    comparison = compare_runs(mixed, second)
    assert comparison.pairings[0] == (FIRST, OPPONENT)
    assert comparison.margins[0].estimate == pytest.approx(compare_runs(first, second).margins[0].estimate)


def test_too_few_shared_deal_pairs(runs, tmp_path):
    first, _ = runs
    lone = play(tmp_path / "lone", SECOND, deals=1)
    with pytest.raises(ArenaError, match="1 deal pair\\(s\\) in common"):
        compare_runs(first, lone)


def test_a_run_compared_with_itself_differs_by_nothing(runs, capsys):
    first, _ = runs
    assert main(["--compare", str(first), str(first)]) == 0
    text = capsys.readouterr().out
    assert "paired difference (first minus second): +0.0 [+0.0, +0.0]" in text
    assert "(paired: +-0.0)" in text
