"""The Ray backends on a real cluster: a head node and a second node on this machine (loopback).

Training and an arena match run through ``--ray-address`` in subprocesses (the entry points as a
user runs them) and must give exactly what the local backends give; in each, one Ray worker process
is killed on purpose while it plays, which must cost nothing but time. The cluster is stopped
(``ray stop --force``) however the tests end.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from agents.arena import ArenaConfig, ArenaError, run_arena
from agents.arena import cli as arena_cli
from agents.neural.checkpoints import load_checkpoint
from pinochle_train import cli
from pinochle_train.config import build_config
from pinochle_train.ray_backend import RayBackend
from tests.helpers import ROOT

RAY = Path(sys.executable).parent / "ray"
#: A short training run: 2 workers, 3 updates, each rollout long enough to be killed mid-way.
TRAIN = [
    "--config", "smoke", "--workers", "2", "--updates", "3", "--decisions-per-update", "1200",
    "--final-eval-deals", "0", "--log-every", "100",
]  # fmt: skip
#: An arena match whose jobs (one deal pair each) take about a second, so one can be killed mid-way.
#: pimc's budget is set out of reach: a time budget that cuts sampling short would make the results
#: depend on the machine's load, and the test compares them with a local run.
AGENTS = ("random", "pimc:samples=2,budget=1000")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """The address of a two-node Ray cluster (one CPU each) and the environment its drivers need.

    Ray's token authentication is on, with a token of this cluster only (the environment carries it).
    """
    port = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    node = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--object-store-memory=200000000", "--disable-usage-stats"]
    try:
        for extra in (["--head", f"--port={port}", "--include-dashboard=false"], [f"--address=127.0.0.1:{port}"]):
            subprocess.run([RAY, "start", *extra, *node], env=env, check=True, capture_output=True, timeout=180)
        yield f"127.0.0.1:{port}", env
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=180)


def kill_one(title: str, driver: subprocess.Popen, timeout: float = 240) -> int | None:
    """SIGKILL the first process titled ``title...`` (Ray titles a worker ``ray::<task>`` while it
    runs that task) before ``driver`` exits; its pid, or None if none showed up."""
    deadline = time.monotonic() + timeout
    while driver.poll() is None and time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            try:
                running = entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(title.encode())
            except OSError:  # the process ended meanwhile
                continue
            if running:
                os.kill(int(entry.name), signal.SIGKILL)
                return int(entry.name)
        time.sleep(0.005)
    return None


def run_driver(command: list[str], env: dict[str, str], kill: str) -> tuple[subprocess.CompletedProcess, int | None]:
    """Run a driver to its end, killing one Ray worker titled ``kill`` on the way."""
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as driver:
        killed = kill_one(kill, driver)
        stdout, stderr = driver.communicate(timeout=300)
    return subprocess.CompletedProcess(command, driver.returncode, stdout, stderr), killed


def test_training_on_the_cluster_equals_local_training_despite_a_killed_worker(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    """Same seed, same worker count: the Ray run's checkpoint equals the local one bit for bit,
    although one rollout actor was killed mid-update (and replaced, its share redone)."""
    address, env = cluster
    assert cli.main([*TRAIN, "--out-dir", str(tmp_path), "--run-name", "local"]) == 0
    command = [sys.executable, str(ROOT / "train.py"), *TRAIN, "--out-dir", str(tmp_path), "--run-name", "ray"]
    command += ["--backend", "ray", "--ray-address", address]
    result, killed = run_driver(command, env, "ray::RolloutWorker.collect")
    assert result.returncode == 0, result.stderr
    assert killed is not None, "no rollout actor was seen running"
    assert "2 ray worker(s)" in result.stderr and "update 3/3" in result.stderr
    assert "died in update" in result.stderr and "restarted, redoing its share" in result.stderr
    local = load_checkpoint(tmp_path / "local" / "checkpoints" / "update_000003.pt")
    ray = load_checkpoint(tmp_path / "ray" / "checkpoints" / "update_000003.pt")
    for key in ("policy", "critic"):
        assert local[key].keys() == ray[key].keys()
        assert all(torch.equal(local[key][name], ray[key][name]) for name in local[key]), key
    assert local["counters"]["decisions"] == ray["counters"]["decisions"]
    assert ray["config"]["backend"] == "ray" and ray["config"]["ray_address"] == address


def test_zero_workers_start_one_actor_per_cluster_cpu(
    cluster: tuple[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    address, env = cluster
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    config = build_config({"backend": "ray", "ray_address": address, "workers": 0, "games_per_worker": 2})
    log = io.StringIO()
    backend = RayBackend(config, log)
    try:
        assert len(backend.actors) == 2  # the cluster's two CPUs
        assert "one actor per cluster CPU, 2 actors" in log.getvalue()
    finally:
        backend.close()
        backend.ray.shutdown()


def read_plays(out: Path) -> dict[tuple, list]:
    """Each unit's plays (the hand records: everything but the timing), by unit key; no unit twice."""
    lines = [json.loads(text) for text in (out / "results.jsonl").read_text().splitlines()]
    plays = {(line["kind"], line["a"], line["b"], line["id"]): line["plays"] for line in lines}
    assert len(plays) == len(lines), "a unit was written twice"
    return plays


def test_arena_on_the_cluster_loses_no_deal_to_a_killed_worker_and_resumes(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    """Deal pairs played as Ray tasks are those the local arena plays; a task whose worker is
    killed is run again; a resumed Ray run plays only the missing pairs."""
    address, env = cluster
    run_arena(ArenaConfig(agents=AGENTS, deals=6), tmp_path / "local")
    out = tmp_path / "ray"
    command = [sys.executable, "-m", "agents.arena", *AGENTS, "--out", str(out), "--backend", "ray"]
    command += ["--ray-address", address, "--progress-every", "100"]
    result, killed = run_driver([*command, "--deals", "4"], env, "ray::_play_in")
    assert result.returncode == 0, result.stderr
    assert killed is not None, "no arena task was seen running"
    assert "Ray tasks on 2 CPU(s)" in result.stderr
    assert len(read_plays(out)) == 4
    resume = [*command, "--deals", "6", "--resume"]
    resumed = subprocess.run(resume, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 pairs to play" in resumed.stderr
    assert read_plays(out) == read_plays(tmp_path / "local")
    summaries = [json.loads((path / "summary.json").read_text()) for path in (out, tmp_path / "local")]
    assert summaries[0]["pairings"] == summaries[1]["pairings"]


def test_without_ray_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what a missing package looks like to import
    with pytest.raises(ValueError, match=r'pip install -e "\.\[ray\]"'):
        build_config({"backend": "ray"})
    with pytest.raises(SystemExit):
        arena_cli.main(["random", "heuristic", "--deals", "1", "--backend", "ray", "--out", str(tmp_path / "a")])
    assert 'pip install -e ".[ray]"' in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_ray_settings_need_the_ray_backend(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="ray_address='auto' needs backend=ray"):
        build_config({"ray_address": "auto"})
    config = ArenaConfig(agents=("random", "heuristic"), deals=1)
    with pytest.raises(ArenaError, match="needs --backend ray"):
        run_arena(config, tmp_path / "a", ray_address="auto")
    with pytest.raises(ArenaError, match="allowed: local, ray"):
        run_arena(config, tmp_path / "b", backend="dask")
