"""The arena: duplicate pairing, determinism, resume, interval maths, ratings, bad input, the CLI, and
the other games' seat rotations."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents import registry
from agents.arena import RESULTS, ArenaConfig, ArenaError, read_results, run_arena
from agents.arena.cli import main
from agents.arena.report import deal_pair_margin, margin_sentence, summarise
from agents.arena.stats import fit_elo, mean_interval, t_quantile, wilson_interval
from agents.arena.tournament import unit_key
from pinochle_env import records
from pinochle_env.actions import ActionLayout
from pinochle_env.files import folder_held
from pinochle_env.rules.switches import Rules
from tests.helpers import OTHER_GAMES, ROOT, SEATS_OF

RANDOM_MIX = "mix:play=random,default=random"  # random play, but not the same choices as `random`
TWO = ("random", RANDOM_MIX)


class Cautious:
    """Passes whenever it may, else takes the first legal action: beats random bidders clearly."""

    name = "cautious"

    def reset(self, seed=None):
        pass

    def act(self, view, mask):
        passing = ActionLayout(view.rules.max_bid).passing
        return passing if mask[passing] else int(np.flatnonzero(mask)[0])


@pytest.fixture
def cautious(monkeypatch):
    """Registers ``cautious`` (for this test only); returns a spec that is random except in the auction."""
    registry.known_agents()  # register the built-in agents before adding one
    monkeypatch.setitem(registry._REGISTRY, "cautious", (lambda seed=None: Cautious(), {}))
    return "mix:auction=cautious,default=random"


class Searching:
    """Random play that says it searched every card it played, that its budget cut the first, third,
    fifth... of them short and its time budget the first, fifth, ninth... (:func:`agents.base.search_counts`),
    counting over every match it plays."""

    name = "searching"

    def __init__(self, seed=None):
        self.searched = self.cut_short = self.cut_on_time = 0
        self.reset(seed)

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, view, mask):
        if view.phase.name == "PLAY":
            self.searched += 1
            self.cut_short += self.searched % 2
            self.cut_on_time += self.searched % 4 == 1
        return int(self.rng.choice(np.flatnonzero(mask)))

    def search_counts(self):
        return self.searched, self.cut_short, self.cut_on_time


def lines_of(out: Path) -> list[dict]:
    return [json.loads(text) for text in (out / RESULTS).read_text(encoding="utf-8").splitlines()]


def results_only(summary: dict) -> str:
    """A summary without its timing (the only part that may differ between identical runs), as JSON
    text so that NaN compares equal to NaN."""
    return json.dumps({key: value for key, value in summary.items() if key != "speed"}, sort_keys=True)


# ------------------------------------------------------------------------------ interval maths


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062), (4, 2.7764), (10, 2.2281), (30, 2.0423), (1000, 1.9623)])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.95, df) == pytest.approx(expected, abs=1e-4)


def test_mean_interval_hand_computed():
    # Pair means 10, 20, 30, 40: mean 25, sd sqrt(500/3) = 12.9099, se 6.4550, t(0.975, 3) = 3.18245.
    interval = mean_interval([10, 20, 30, 40])
    assert interval.estimate == 25
    assert interval.low == pytest.approx(25 - 20.5426, abs=1e-3)
    assert interval.high == pytest.approx(25 + 20.5426, abs=1e-3)
    assert math.isnan(mean_interval([5.0]).low)


def test_wilson_interval_hand_computed():
    # 8 of 10, z = 1.959964: centre (0.8 + z²/20) / (1 + z²/10) = 0.71675, half 0.22658.
    interval = wilson_interval(8, 10)
    assert interval.estimate == 0.8
    assert interval.low == pytest.approx(0.4902, abs=1e-4)
    assert interval.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 5).low == 0.0


def test_elo_two_players_closed_form():
    # 30 wins, 10 losses, plus one virtual draw: odds 30.5 / 10.5.
    ratings = fit_elo(2, [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10)
    assert ratings[0].elo - ratings[1].elo == pytest.approx(400 * math.log10(30.5 / 10.5), abs=1e-6)
    assert ratings[0].elo == pytest.approx(-ratings[1].elo)


def test_elo_fit_ranks_stronger_synthetic_players_higher():
    truth = np.array([-200.0, 0.0, 300.0, 100.0])
    rng = np.random.default_rng(1)
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
            results += [(i, j, float(rng.random() < p)) for _ in range(400)]
    ratings = fit_elo(4, results)
    assert np.argsort([r.elo for r in ratings]).tolist() == np.argsort(truth).tolist()
    for rating, true in zip(ratings, truth - truth.mean(), strict=True):
        assert abs(rating.elo - true) < 4 * rating.se
        assert rating.low < rating.elo < rating.high


# ------------------------------------------------------------------------------ duplicate format


def test_deal_pairs_replay_the_same_cards_with_teams_swapped(tmp_path, cautious):
    # A never bids, so the records show where A sat: no bids from A's seats, in either play.
    run_arena(ArenaConfig(agents=(cautious, *TWO), deals=4), tmp_path)
    lines = lines_of(tmp_path)
    assert len(lines) == 12
    deals = {}
    for line in lines:
        first, second = line["plays"]
        assert (first["a_team"], second["a_team"]) == (0, 1)
        hand0, hand1 = first["hands"][0], second["hands"][0]
        assert hand0["deal"] == hand1["deal"] and hand0["dealer"] == hand1["dealer"]
        for play in line["plays"]:
            hand = play["hands"][0]
            records.replay(hand)  # a legal, complete hand
            if line["a"] == cautious:
                bidders = {seat % 2 for seat, call in hand["auction"] if isinstance(call, int)}
                assert bidders <= {1 - play["a_team"]}
        deals.setdefault(line["id"], hand0["deal"])
        assert hand0["deal"] == deals[line["id"]]  # deal i is the same in every pairing
    assert len({json.dumps(deal) for deal in deals.values()}) == 4


def test_game_pairs_share_the_deal_sequence(tmp_path):
    config = ArenaConfig(agents=TWO, deals=0, games=2, rules=Rules(target_score=400), hand_cap=6)
    summary = run_arena(config, tmp_path)
    for line in lines_of(tmp_path):
        first, second = (play["hands"] for play in line["plays"])
        assert 1 <= len(first) <= 6 and 1 <= len(second) <= 6
        for k, (hand0, hand1) in enumerate(zip(first, second, strict=False)):
            assert hand0["deal"] == hand1["deal"] and hand0["dealer"] == hand1["dealer"]
            assert hand0["hand_number"] == k
            assert hand0["dealer"] == (first[0]["dealer"] + k) % 4
    games = summary["pairings"][0]["games"]
    assert games["played"] == 4
    assert 0 <= games["win_rate"]["low"] <= games["win_rate"]["estimate"] <= games["win_rate"]["high"] <= 1


# ------------------------------------------------------------------------------ determinism


def test_same_config_gives_same_results_for_any_worker_count(tmp_path):
    config = ArenaConfig(agents=(*TWO, "mix:default=random"), deals=6, games=1, rules=Rules(target_score=300))
    first = run_arena(config, tmp_path / "one", workers=1)
    again = run_arena(config, tmp_path / "again", workers=1)
    pooled = run_arena(config, tmp_path / "two", workers=2)
    assert results_only(first) == results_only(again) == results_only(pooled)

    def plays(out):
        return sorted(json.dumps([unit_key(line), line["plays"]]) for line in lines_of(out))

    assert plays(tmp_path / "one") == plays(tmp_path / "two")


# ------------------------------------------------------------------------------ resume


def test_resume_after_partial_run_and_truncated_file(tmp_path):
    fresh = run_arena(ArenaConfig(agents=TWO, deals=8), tmp_path / "fresh")
    out = tmp_path / "resumed"
    run_arena(ArenaConfig(agents=TWO, deals=5), out)  # an interrupted run: 5 of the 8 deal pairs
    text = (out / RESULTS).read_bytes()
    lines = text.splitlines(keepends=True)
    (out / RESULTS).write_bytes(b"".join(lines[:3]) + lines[3][: len(lines[3]) // 2])  # killed mid-write
    assert len(read_results(out / RESULTS, repair=False)) == 3  # a viewer drops the partial line...
    assert (out / RESULTS).read_bytes().endswith(lines[3][: len(lines[3]) // 2])  # ...and leaves the file be
    assert len(read_results(out / RESULTS)) == 3  # the partial line is dropped (and cut from the file)
    assert (out / RESULTS).read_bytes() == b"".join(lines[:3])
    resumed = run_arena(ArenaConfig(agents=TWO, deals=8), out, resume=True)
    ids = [line["id"] for line in lines_of(out)]
    assert sorted(ids) == list(range(8))  # none repeated, none lost
    assert results_only(resumed) == results_only(fresh)


def test_a_run_folder_another_process_holds_is_refused_untouched(tmp_path):
    """A second command on a run still going (``--resume`` twice at once) played the same pairs as
    the first, appending each twice to results.jsonl: it is refused, the results left as they are."""
    out = tmp_path / "run"
    run_arena(ArenaConfig(agents=TWO, deals=3), out)
    before = (out / RESULTS).read_bytes()
    with folder_held(out), pytest.raises(ArenaError, match="in use by another process"):  # the other process
        run_arena(ArenaConfig(agents=TWO, deals=6), out, resume=True)
    assert (out / RESULTS).read_bytes() == before
    run_arena(ArenaConfig(agents=TWO, deals=6), out, resume=True)  # once it has ended, the resume goes on
    assert sorted(line["id"] for line in lines_of(out)) == list(range(6))


@pytest.mark.parametrize("damage", ["plays", "hands", "a_team", "timing"])
def test_a_line_without_its_plays_or_timing_is_refused_by_line_number(tmp_path, damage):
    out = tmp_path / "run"
    run_arena(ArenaConfig(agents=TWO, deals=3), out)
    lines = [json.loads(text) for text in (out / RESULTS).read_text().splitlines()]
    if damage in ("plays", "timing"):
        del lines[1][damage]
    else:
        del lines[1]["plays"][0][damage]
    (out / RESULTS).write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ArenaError, match=f"{RESULTS}:2: not an arena result line"):
        read_results(out / RESULTS)
    with pytest.raises(ArenaError, match="not an arena result line"):
        run_arena(ArenaConfig(agents=TWO, deals=4), out, resume=True)


def test_resume_refuses_changed_seed_and_fresh_run_refuses_old_results(tmp_path):
    run_arena(ArenaConfig(agents=TWO, deals=1), tmp_path)
    with pytest.raises(ValueError, match="seed"):
        run_arena(ArenaConfig(agents=TWO, deals=2, seed=7), tmp_path, resume=True)
    other = Rules(max_bid=500, counting="classic")  # the switches that differ named, not every switch
    message = "the rules differ from the stored ones: max_bid 500 (stored 1000), counting 'classic' (stored 'counters')"
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        run_arena(ArenaConfig(agents=TWO, deals=2, rules=other), tmp_path, resume=True)
    with pytest.raises(ValueError, match="--resume"):
        run_arena(ArenaConfig(agents=TWO, deals=2), tmp_path)


def test_cli_interrupted_by_a_signal_resumes_without_loss_or_repeats(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "agents.arena", *TWO, "--deals", "2000", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # Ctrl-C acts even if ignored here
    )
    results = out / RESULTS
    deadline = time.monotonic() + 120  # generous: 2 loaded cores start the spawned workers slowly
    while not (results.exists() and results.stat().st_size > 20_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, f"the run ended before it could be interrupted: {process.communicate()[1]}"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)  # as generous: a run that hangs still fails
    assert process.returncode == 130, stderr
    assert "continue with --resume" in stderr
    done = {line["id"] for line in read_results(results)}
    assert 0 < len(done) < 2000
    resume = [sys.executable, "-m", "agents.arena", "--resume", "--out", str(out), "--deals", "60", "--workers", "2"]
    finished = subprocess.run(resume, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert finished.returncode == 0, finished.stderr
    ids = [line["id"] for line in lines_of(out)]
    assert len(ids) == len(set(ids)) and set(range(60)) <= set(ids)
    assert json.loads((out / "summary.json").read_text())["pairings"][0]["deal_pairs"] == 60


def _pool_workers(pid: int) -> list[int]:
    """The spawned pool workers among a process's children (not its resource tracker)."""
    children = [int(c) for path in Path(f"/proc/{pid}/task").glob("*/children") for c in path.read_text().split()]
    return [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc")
def test_a_killed_worker_ends_the_run_with_the_results_kept_for_resume(tmp_path):
    """A worker that dies (here SIGKILL, as the out-of-memory killer does) ends the run with the
    error, never a hang; the finished pairs stay in the results file and --resume completes them."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "agents.arena", *TWO, "--deals", "2000", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    results = out / RESULTS
    deadline = time.monotonic() + 30
    while not (results.exists() and results.stat().st_size > 20_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, f"the run ended before a worker could be killed: {process.communicate()[1]}"
    workers = _pool_workers(process.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1, stderr
    assert "a worker process died" in stderr and "continue with --resume" in stderr
    assert "Traceback" not in stderr
    done = {line["id"] for line in read_results(results)}
    assert 0 < len(done) < 2000
    resume = [sys.executable, "-m", "agents.arena", "--resume", "--out", str(out), "--deals", str(max(done) + 3)]
    finished = subprocess.run([*resume, "--workers", "1"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    ids = [line["id"] for line in lines_of(out)]
    assert len(ids) == len(set(ids)) and set(range(max(done) + 3)) <= set(ids)


def _run_with_pool_jobs(code: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter that can import the pool jobs of ``pool_jobs.py`` (beside
    this file) by name, as its spawned workers do."""
    script = "import sys; sys.path.insert(0, sys.argv[1])\n" + code
    command = [sys.executable, "-c", script, str(Path(__file__).parent)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_a_worker_killed_while_sending_its_result_ends_the_run():
    """A worker killed in the middle of sending a result leaves the pool's reader waiting for the
    rest of the message, which never comes: the run still ends, with the worker failure."""
    result = _run_with_pool_jobs(
        "from agents.arena.workers import WorkerFailure, execute\n"
        "from pool_jobs import die_halfway_through_sending\n"
        "try:\n"
        "    list(execute([1.0, 2.0], 2, play=die_halfway_through_sending))\n"
        "except WorkerFailure as error:\n"
        "    print('ended:', error)\n",
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "ended: a worker process died" in result.stdout, result.stdout + result.stderr


def test_an_interruption_while_a_result_is_half_sent_ends_the_run():
    """Ctrl-C while a worker is in the middle of sending a result: the workers are terminated and
    the pool's reader, waiting for the rest of the message, must still let the run end (it once
    waited for ever, as an interrupted arena run on 2 loaded cores did in CI)."""
    result = _run_with_pool_jobs(
        "import signal\n"
        "from agents.arena.workers import execute\n"
        "from pool_jobs import send_half_then_wait\n"
        "def interrupt(signum, frame):\n"
        "    raise KeyboardInterrupt\n"
        "signal.signal(signal.SIGALRM, interrupt)\n"
        "signal.alarm(4)\n"
        "try:\n"
        "    list(execute([1.0, 2.0], 2, play=send_half_then_wait))\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n",
        timeout=50,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "interrupted", result.stdout + result.stderr


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc")
def test_the_workers_end_when_the_main_process_is_killed():
    """SIGKILL leaves the main process no time to stop its workers: they notice it is gone (a killed
    pinochle-arena once left its workers waiting for jobs for ever, about 190 MB each)."""
    script = "import sys; sys.path.insert(0, sys.argv[1])\n" + (
        "from agents.arena.workers import execute\nfrom pool_jobs import wait_a_minute\n"
        "list(execute([1.0, 2.0], 2, play=wait_a_minute))\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script, str(Path(__file__).parent)], cwd=ROOT)
    deadline = time.monotonic() + 30
    while len(workers := _pool_workers(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) == 2
    time.sleep(0.5)  # the workers' start-up done: they wait in their jobs
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() and b"spawn_main" in _cmdline(pid) for pid in workers):
        assert time.monotonic() < deadline, "a worker outlived the main process"
        time.sleep(0.1)


def _cmdline(pid: int) -> bytes:
    """A process's command line (empty once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_job_that_raises_in_a_worker_ends_the_run_naming_it():
    """The lines of jobs finished before the failure still come out; the error names the job and
    carries the worker's traceback."""
    from agents.arena.workers import WorkerFailure, execute

    finished = []
    with pytest.raises(WorkerFailure, match=r"job -1\.0 failed in a worker: ValueError: math domain error") as info:
        finished.extend(execute([4.0, 9.0, -1.0], 2, play=math.sqrt))
    assert "Traceback" in info.value.details and "ValueError" in info.value.details
    assert set(finished) <= {2.0, 3.0}
    with pytest.raises(WorkerFailure, match=r"job -1\.0 failed: ValueError"):  # the same in this process
        list(execute([4.0, -1.0], 1, play=math.sqrt))


# ------------------------------------------------------------------------------ ratings through the arena


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_round_robin_rates_the_stronger_agent_first(tmp_path, cautious):
    strong = cautious
    summary = run_arena(ArenaConfig(agents=(*TWO, strong), deals=30), tmp_path)
    width, height = _png_size(tmp_path / "ratings.png")  # the rating chart, with values
    assert width >= 1200 and height >= 400
    from agents.arena.report import ratings_figure

    texts = [text.get_text() for text in ratings_figure(summary).axes[0].texts]
    best = max(summary["ratings"]["agents"], key=lambda r: r["elo"])
    assert f"{best['elo']:+.0f} [{best['low']:+.0f}, {best['high']:+.0f}]" in texts
    ratings = {r["agent"]: r for r in summary["ratings"]["agents"]}
    assert max(ratings, key=lambda agent: ratings[agent]["elo"]) == strong
    assert ratings[strong]["low"] > max(ratings[agent]["high"] for agent in TWO)
    cross = summary["cross_table"]
    row = cross["margins"][cross["agents"].index(strong)]
    assert all(margin > 0 for margin in row if not math.isnan(margin))


def test_heuristic_beats_random_in_worker_processes(tmp_path):
    summary = run_arena(ArenaConfig(agents=("heuristic", "random"), deals=10), tmp_path, workers=2)
    assert summary["pairings"][0]["margin"]["low"] > 0


def test_a_side_that_never_bids_declares_only_as_the_stuck_dealer(tmp_path, cautious):
    """The sides' ``stuck`` share: all of a never-bidding side's declarations, some of random's."""
    summary = run_arena(ArenaConfig(agents=(cautious, "random"), deals=20), tmp_path)
    sides = summary["pairings"][0]["sides"]
    assert sides["a"]["stuck"] == sides["a"]["declared"] > 0
    assert sides["b"]["stuck"] < sides["b"]["declared"]
    assert "stuck" in (tmp_path / "summary.txt").read_text(encoding="utf-8")


def test_each_sides_searches_and_budget_cuts_are_counted_per_deal_pair(tmp_path, monkeypatch):
    """A's agent (a mix part) searches every card its seats play, is cut short on every other one and
    on time on every fourth: each line counts A's cards of both plays, half of them cut and a quarter
    on time (24 cards a play or none, so every line starts a new round of four), B (random) none; the
    Speed table sums them; a line from before the count (no ``searches``) reads as none, and one from
    before the time budget's part (two counts) leaves that part unknown, not 0."""
    registry.known_agents()
    monkeypatch.setitem(registry._REGISTRY, "searching", (Searching, {}))
    searching = "mix:play=searching,default=random"
    summary = run_arena(ArenaConfig(agents=(searching, "random"), deals=3), tmp_path)
    lines = lines_of(tmp_path)
    for line in lines:
        cards = sum(len(trick["cards"]) for play in line["plays"] for trick in play["hands"][0]["tricks"])
        assert line["searches"] == {"a": [cards // 2, cards // 4, cards // 8], "b": [0, 0, 0]}  # 2 of 4 are A's
    searched = sum(line["searches"]["a"][0] for line in lines)
    assert searched > 0
    speed = summary["speed"]
    counts = [speed[searching][key] for key in ("searched", "cut_short", "cut_on_time")]
    assert counts == [searched, searched // 2, searched // 4]
    assert [speed["random"][key] for key in ("searched", "cut_short", "cut_on_time")] == [0, 0, 0]
    table = (tmp_path / "summary.txt").read_text(encoding="utf-8").split("Speed")[1]
    assert f"{searched // 2:,} of {searched:,} (50.0%; {searched // 4:,} on time)" in table
    first = lines[0]["searches"]["a"]
    lines[0]["searches"] = {"a": first[:2], "b": [0, 0]}
    assert summarise(lines[:1], [searching, "random"])["speed"][searching]["cut_on_time"] is None
    del lines[0]["searches"]
    assert summarise(lines[:1], [searching, "random"])["speed"][searching]["searched"] == 0


def test_summary_of_no_lines_has_empty_statistics():
    pairing = summarise([], list(TWO))["pairings"][0]
    assert pairing["deal_pairs"] == 0 and math.isnan(pairing["margin"]["estimate"])


def test_margin_sentence_states_the_first_pairings_result(tmp_path):
    """The sentence the examples print after their evaluation: both specs, the pairs and the interval."""
    summary = run_arena(ArenaConfig(agents=("heuristic", "random"), deals=4), tmp_path)
    margin = summary["pairings"][0]["margin"]
    assert margin_sentence(summary) == (
        f"duplicate margin of heuristic vs random over 4 deal pairs: {margin['estimate']:+.1f} points per hand "
        f"(95% interval {margin['low']:+.1f} .. {margin['high']:+.1f})"
    )


def test_progress_eta_comes_from_the_recent_rate():
    """A minute of worker start-up, then a pair a second: the ETA says 89 s for the 89 pairs left (a
    cumulative average said 9:26), and a later change of pace shows within the window."""
    import io

    from agents.arena.tournament import Progress

    now = [0.0]
    stream = io.StringIO()
    progress = Progress(100, stream, every=0.0, window=20.0, clock=lambda: now[0])
    for t in range(60, 71):
        now[0] = float(t)
        progress.advance(1)
    assert stream.getvalue().splitlines()[0].endswith("? pairs/s, ETA ?")  # one finished pair: no rate yet
    assert stream.getvalue().splitlines()[-1] == "arena: 11/100 pairs (11%), 1.0 pairs/s, ETA 0:01:29"
    for t in range(71, 101):  # then two pairs a second
        now[0] = float(t)
        progress.advance(2)
    assert stream.getvalue().splitlines()[-1] == "arena: 71/100 pairs (71%), 2.0 pairs/s, ETA 0:00:14"


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["random", "nosuch"], "bad agent spec 'nosuch'"),
        (["random", "heuristc"], "unknown agent 'heuristc' (did you mean 'heuristic'?)"),
        (["random", RANDOM_MIX, "--rule", "head_rul=none"], "unknown rule switch head_rul (did you mean 'head_rule'?)"),
        (["random", "random:depth=3"], "bad agent spec 'random:depth=3'"),
        (["random", "mix:play=random"], "without an agent"),
        (["random"], "at least two"),
        (["random", "random", RANDOM_MIX], "distinct"),
        (["random", RANDOM_MIX, "--rule", "head_rule=bogus"], "bad --rule 'head_rule=bogus'"),
        (["random", RANDOM_MIX, "--rule", "nosuch=1"], "unknown rule switch nosuch"),
        (["random", RANDOM_MIX, "--rule", "head_rule"], "expected name=value"),
        (["random", RANDOM_MIX, "--deals", "0"], "not both 0"),
        (["random", RANDOM_MIX, "--deals", "99999999999999"], "at most 1,000,000 a run"),
        (["random", RANDOM_MIX, "--games", "1000001"], "at most 1,000,000 a run"),
        (["random", RANDOM_MIX, "--seed", "-1"], "--seed must be >= 0, got -1"),
        (["random", RANDOM_MIX, "--progress-every", "nan"], "--progress-every must be a number of seconds >= 0"),
        (["random", RANDOM_MIX, "--rules-preset", "nosuch"], "invalid choice: 'nosuch'"),
        (["random", RANDOM_MIX, "--rules-preset", "casual", "--rule", "variant=two_hand"], "does not apply"),
        (["random", "mix:auction=random,play=nosuch"], "mix part play=nosuch: unknown agent 'nosuch'; known agents"),
        (["random", "heuristic:aggression=high"], "aggression='high' of agent 'heuristic' is not a number"),
        (["--resume"], "--out or --name"),
        # The original pimc plays the partnership game only: refused, not silently played as the heuristic.
        (
            ["heuristic", "pimc:evaluate=heuristic", "--rule", "variant=cutthroat"],
            "pimc:evaluate=heuristic plays the partnership game only",
        ),
        (
            ["heuristic", "mix:play=pimc:evaluate=heuristic,default=heuristic", "--rule", "variant=two_hand"],
            "mix part play=pimc:evaluate=heuristic",
        ),
        (["heuristic", "mix:auction=random,play=random", "--rule", "variant=two_hand"], "meld without an agent"),
    ],
)
def test_bad_input_is_rejected_before_any_play(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    extra = [] if "--resume" in argv else ["--out", str(out)]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("name", ["/etc", "../beside", "a/b", ".."])
def test_a_run_name_that_would_leave_runs_arena_is_refused(monkeypatch, tmp_path, capsys, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["random", RANDOM_MIX, "--deals", "1", "--name", name])
    assert exit_info.value.code == 2
    assert f"--name {name!r} is not a folder name" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------------------ command line


def test_cli_end_to_end_writes_table_csv_json_and_plot(tmp_path):
    out = tmp_path / "cli"
    command = [sys.executable, "-m", "agents.arena", *TWO, "--deals", "4", "--workers", "2", "--out", str(out)]
    command += ["--rules-preset", "casual", "--rule", "head_rule=led_card", "--seed", "3"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "A vs B" in result.stdout and f"random vs {RANDOM_MIX}" in result.stdout
    assert "ETA" in result.stderr
    with open(out / "summary.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == 1 and rows[0]["deal_pairs"] == "4"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["pairings"][0]["margin"]["n"] == 4
    assert float(rows[0]["margin"]) == pytest.approx(summary["pairings"][0]["margin"]["estimate"])
    width, height = _png_size(out / "margins.png")
    assert width >= 1200 and height >= 300
    from agents.arena.report import margin_figure

    axes = margin_figure(summary).axes[0]
    margin = summary["pairings"][0]["margin"]
    assert [t.get_text() for t in axes.texts] == [
        f"{margin['estimate']:+.1f} [{margin['low']:+.1f}, {margin['high']:+.1f}]"
    ]
    assert [t.get_text() for t in axes.get_yticklabels()] == [f"random vs {RANDOM_MIX}\n4 deal pairs"]
    assert (out / "summary.txt").read_text(encoding="utf-8").strip() == result.stdout.strip()
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["rules"]["head_rule"] == "led_card" and config["seed"] == 3
    assert config["rules_preset"] == "casual" and config["rules"]["must_overtrump"] is False  # from the preset
    version = config["code_version"]  # the git commit in a clone (as the tests run in CI), the package version always
    assert version["package_version"]
    if (ROOT / ".git").exists():
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        assert version["git_commit"] == head.stdout.strip() and isinstance(version["git_dirty"], bool)
    else:  # an unpacked source archive: no commit to name
        assert "git_commit" not in version
    assert config["checkpoints"] == []
    assert all(line["plays"][0]["hands"][0]["options"]["head_rule"] == "led_card" for line in lines_of(out))


def test_margin_plot_fits_long_agent_specs(tmp_path):
    """Checkpoint specs with long paths still leave room for the plot (no collapsed layout)."""
    import warnings

    from agents.arena.report import write_plot

    long_a = "checkpoint:runs/some-long-run-name/checkpoints/update_000200.pt"
    long_b = "checkpoint:runs/some-long-run-name/checkpoints/update_000100.pt"
    pairing = {"a": long_a, "b": long_b, "margin": {"estimate": -10.0, "low": -20.0, "high": 0.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_plot({"pairings": [pairing], "confidence": 0.95}, tmp_path / "margins.png")
    assert (tmp_path / "margins.png").stat().st_size > 0


PARALLEL_TORCH_JOB = '''
import torch


def play(job):
    """A job whose first PyTorch operation is large enough to run on OpenMP threads."""
    torch.manual_seed(job)
    matrix = torch.randn(1500, 1500)
    return [{"job": job, "threads": torch.get_num_threads(), "sum": float((matrix @ matrix + matrix * 3).sum())}]
'''


def test_arena_workers_survive_multithreaded_pytorch_work_in_the_parent(tmp_path):
    """A forked worker of a process that ran multi-threaded PyTorch hangs at its first parallel
    operation (as a trainer's evaluations and a validated checkpoint agent would); spawned ones do not.
    Each worker runs PyTorch on one thread, since the pool already uses the cores."""
    (tmp_path / "parallel_job.py").write_text(PARALLEL_TORCH_JOB)
    script = (
        "import torch\n"
        "torch.set_num_threads(2)\n"
        "matrix = torch.randn(1500, 1500)\n"
        "print(float((matrix @ matrix).sum() + (matrix * 3).sum()) != 0)\n"
        "from agents.arena.workers import execute\n"
        "from parallel_job import play\n"
        "lines = [line for lines in execute([1, 2, 3, 4], 2, play=play) for line in lines]\n"
        "print(sorted(line['job'] for line in lines), {line['threads'] for line in lines})\n"
    )
    path = os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "[1,", "2,", "3,", "4]", "{1}"]


# ------------------------------------------------------------------------------ the other games' seat rotations


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_arena_plays_every_seat_rotation(variant, tmp_path: Path):
    """A deal is played once per seat A can take: 3 plays in cutthroat, 2 in the two-handed game,
    all on the same cards, with A's margin its score minus the mean of the others'."""
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=6, seed=3)
    summary = run_arena(config, tmp_path, workers=1, progress_every=0)
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    seats = SEATS_OF[variant]
    for line in lines:
        plays = line["plays"]
        assert [play["a_team"] for play in plays] == list(range(seats))
        deals = {json.dumps(play["hands"][0]["deal"]) for play in plays}
        assert len(deals) == 1  # the same cards in every rotation
        expected = np.mean(
            [
                play["hands"][0]["score"][play["a_team"]]
                - (sum(play["hands"][0]["score"]) - play["hands"][0]["score"][play["a_team"]]) / (seats - 1)
                for play in plays
            ]
        )
        assert deal_pair_margin(line) == pytest.approx(expected)
    assert summary["pairings"][0]["deal_pairs"] == 6


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_arena_results_do_not_depend_on_workers(variant, tmp_path: Path):
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=4, games=1, seed=2)
    one = run_arena(config, tmp_path / "one", workers=1, progress_every=0)
    two = run_arena(config, tmp_path / "two", workers=2, progress_every=0)
    assert one["pairings"][0]["margin"] == two["pairings"][0]["margin"]
    assert one["pairings"][0]["games"] == two["pairings"][0]["games"]
