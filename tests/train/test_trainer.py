"""The trainer: smoke run through the README command, resume equivalence, masks, checkpoints, config errors."""

from __future__ import annotations

import copy
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from agents.arena import ArenaConfig, ArenaError, run_arena
from agents.base import decide
from agents.neural.checkpoints import CheckpointError, load_checkpoint, save_checkpoint
from agents.neural.network import masked_logits
from agents.registry import load_agent
from pinochle_env import Game, Rules
from pinochle_train import cli
from pinochle_train.backends import InProcessBackend
from pinochle_train.checkpointing import restore, training_state
from pinochle_train.config import TrainConfig, build_config
from pinochle_train.evaluate import spec_slug
from pinochle_train.labels import LabelsError
from pinochle_train.rollout import gae, sample
from pinochle_train.trainer import Trainer
from tests.helpers import ROOT

#: A tiny deterministic single-process configuration for in-process runs.
TINY = [
    "--config", "smoke", "--workers", "0", "--games-per-worker", "4", "--decisions-per-update", "150",
    "--final-eval-deals", "0", "--log-every", "100",
]  # fmt: skip


def run_cli(args: list[str]) -> int:
    return cli.main(args)


def tensors_equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_readme_main_job_in_smoke_form(tmp_path: Path) -> None:
    """``python train.py --config smoke``: events file, checkpoints, policy export, evaluation table."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--config", "smoke", "--out-dir", str(tmp_path), "--run-name", "s"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    run = tmp_path / "s"
    assert list(run.glob("events.out.tfevents.*"))
    assert "margin per hand" in result.stderr and "heuristic" in result.stderr
    assert "update 3/3" in result.stderr and "dec/s" in result.stderr
    payload = load_checkpoint(run / "checkpoints" / "update_000003.pt")
    assert payload["counters"]["update"] == 3 and payload["config"]["updates"] == 3
    assert {"policy", "critic", "optimizer", "pool", "rng"} <= payload.keys()
    assert (run / "evaluation.txt").read_text().startswith("final evaluation")
    # The TensorBoard file holds the per-phase losses and hand statistics.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    expected = {"losses/policy_loss/play", "losses/entropy/auction", "losses/explained_variance/all"}
    assert expected | {"hands/contract", "throughput/decisions_per_s"} <= tags


def test_a_run_without_updates_is_the_warm_start_alone(tmp_path: Path, capsys) -> None:
    """updates = 0: the imitation warm start, its checkpoint (update 0) and policy export, then the
    final evaluation; resuming it trains nothing."""
    warm = ["--imitate", "heuristic", "--imitation-hands", "6", "--updates", "0", "--final-eval-deals", "2"]
    assert run_cli([*TINY, *warm, "--out-dir", str(tmp_path), "--run-name", "w"]) == 0
    said = capsys.readouterr().err
    run = tmp_path / "w"
    assert "the warm start alone" in said and "imitation: done" in said and "final evaluation" in said
    assert [path.name for path in (run / "checkpoints").glob("*.pt")] == ["update_000000.pt"]
    payload = load_checkpoint(run / "checkpoints" / "update_000000.pt")
    assert payload["counters"]["imitated"] and payload["counters"]["update"] == 0
    assert (run / "policy.pt").is_file() and (run / "evaluation.txt").read_text().startswith("final evaluation")
    assert run_cli(["--resume", str(run)]) == 0
    assert "nothing to train" in capsys.readouterr().err


def test_initial_policy_starts_the_run_from_another_runs_weights(tmp_path: Path, capsys) -> None:
    """initial_policy: the run's policy starts as that checkpoint's; a network of another shape is
    refused with the difference named, not a traceback."""
    small = {"workers": 0, "hidden": [16], "critic_hidden": [16]}
    exported = _policy_export(tmp_path)
    first = load_checkpoint(exported)["policy"]
    started = Trainer(build_config({**small, "initial_policy": str(exported), "seed": 5}), tmp_path / "a")
    assert tensors_equal({k: v.cpu() for k, v in started.policy.state_dict().items()}, first)
    fresh = Trainer(build_config({**small, "seed": 5}), tmp_path / "b")
    assert not tensors_equal({k: v.cpu() for k, v in fresh.policy.state_dict().items()}, first)
    with pytest.raises(SystemExit):
        run_cli([*TINY, "--hidden", "24", "--initial-policy", str(exported), "--out-dir", str(tmp_path)])
    said = capsys.readouterr().err
    assert "initial_policy" in said and "hidden" in said and "Traceback" not in said


def test_an_initial_policy_may_come_with_another_critic(tmp_path: Path) -> None:
    """initial_policy loads the policy alone: a checkpoint whose critic has other layers or another
    input was refused, naming critic_hidden and critic_input_size. A policy whose weights do not fit
    the network its metadata names (a crafted file) is refused in one line, not load_state_dict's."""
    other_critic = {"workers": 0, "hidden": [16], "critic_hidden": [8], "critic_input": "observation"}
    payload = training_state(Trainer(build_config(other_critic), tmp_path / "o"))
    initial = save_checkpoint(payload, tmp_path / "o.pt")
    small = {"workers": 0, "hidden": [16], "critic_hidden": [16], "initial_policy": str(initial)}
    started = Trainer(build_config(small), tmp_path / "a")
    assert tensors_equal({k: v.cpu() for k, v in started.policy.state_dict().items()}, payload["policy"])
    crafted = save_checkpoint({**payload, "policy": {**payload["policy"], "extra.weight": torch.zeros(2)}}, initial)
    with pytest.raises(ValueError, match=r"its policy does not fit this run's network: has extra extra\.weight"):
        Trainer(build_config({**small, "initial_policy": str(crafted)}), tmp_path / "b")


def test_initial_logit_scale_multiplies_the_initial_policys_logits(tmp_path: Path, capsys) -> None:
    """initial_logit_scale: the run's policy gives the initial policy's logits times the scale (the
    same greedy choices); without an initial policy it is refused by name."""
    small = {"workers": 0, "hidden": [16], "critic_hidden": [16]}
    exported = _policy_export(tmp_path)
    plain = Trainer(build_config({**small, "initial_policy": str(exported)}), tmp_path / "a").policy
    scaled = {**small, "initial_policy": str(exported), "initial_logit_scale": 3.0}
    sharp = Trainer(build_config(scaled), tmp_path / "b")
    observations = torch.rand(5, plain.layers[0].in_features)
    with torch.no_grad():
        assert torch.allclose(sharp.policy(observations), 3.0 * plain(observations), rtol=1e-5, atol=1e-5)
    with pytest.raises(SystemExit):
        run_cli([*TINY, "--initial-logit-scale", "3", "--out-dir", str(tmp_path)])
    said = capsys.readouterr().err
    assert "initial_logit_scale" in said and "initial_policy" in said and "Traceback" not in said


def test_a_later_stage_keeps_saying_its_policy_trained_on_every_rule_set(tmp_path: Path) -> None:
    """sample_rules in a checkpoint: set by the run's own sample_rules or by the initial policy's, so
    that fine-tuning an every-rule-set network under one rule set does not make it warn about the
    others; a policy that never trained on drawn rule sets stays marked as not."""
    small = {"workers": 0, "hidden": [16], "critic_hidden": [16]}
    every = save_checkpoint(
        training_state(Trainer(build_config({**small, "sample_rules": True}), tmp_path / "e")), tmp_path / "e.pt"
    )
    one = _policy_export(tmp_path)
    assert load_checkpoint(one)["sample_rules"] is False
    for initial, own, expected in [(every, False, True), (one, False, False), (one, True, True)]:
        config = build_config({**small, "initial_policy": str(initial), "sample_rules": own})
        assert training_state(Trainer(config, tmp_path / "later"))["sample_rules"] is expected


def test_resume_after_kill_equals_straight_run(tmp_path: Path) -> None:
    """4 updates straight == 2 updates, SIGKILL, resume from the update-2 checkpoint, 2 more (with an
    anchor KL, whose frozen policy the checkpoint must hold)."""
    # The anchor KL's frozen policy and the critic's warm-up must come back with the resume too.
    guided = ["--anchor-kl-coef", "1", "--critic-warmup", "1"]
    where_a = ["--out-dir", str(tmp_path), "--run-name", "a"]
    straight = [*TINY, *guided, "--updates", "4", "--checkpoint-every", "2", *where_a]
    assert run_cli(straight) == 0
    killed = tmp_path / "b"
    where_b = ["--out-dir", str(tmp_path), "--run-name", "b"]
    keep_all = ["--keep-checkpoints", "0"]
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "train.py"),
            *TINY,
            *guided,
            "--updates",
            "400",
            "--checkpoint-every",
            "2",
            *keep_all,
            *where_b,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    middle = killed / "checkpoints" / "update_000002.pt"
    deadline = time.monotonic() + 240
    while not middle.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert middle.exists()
    assert run_cli(["--resume", str(middle), "--updates", "4"]) == 0
    expected = load_checkpoint(tmp_path / "a" / "checkpoints" / "update_000004.pt")
    resumed = load_checkpoint(killed / "checkpoints" / "update_000004.pt")
    for key in ("policy", "critic"):
        assert tensors_equal(expected[key], resumed[key]), key
    assert expected["counters"]["decisions"] == resumed["counters"]["decisions"]
    assert len(expected["pool"]) == len(resumed["pool"]) == 2
    assert tensors_equal(expected["anchor"], resumed["anchor"])


def _children(pid: int) -> list[int]:
    return [int(c) for path in Path(f"/proc/{pid}/task").glob("*/children") for c in path.read_text().split()]


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc")
def test_sigterm_stops_training_like_ctrl_c(tmp_path: Path) -> None:
    """A plain ``kill PID`` prints the "continue with --resume" line and stops the rollout workers,
    without a traceback from them."""
    run = tmp_path / "t"
    args = [*TINY, "--workers", "1", "--updates", "1000", "--checkpoint-every", "1"]
    command = [sys.executable, str(ROOT / "train.py"), *args, "--out-dir", str(tmp_path), "--run-name", "t"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = run / "checkpoints" / "update_000001.pt"
    deadline = time.monotonic() + 120
    while not first.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    workers = _children(process.pid)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert first.exists(), stderr
    assert process.returncode == 130, stderr
    assert f"; python train.py --resume {run} continues from the " in stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
    deadline = time.monotonic() + 10
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers and not any(map(_running, workers))


def test_a_rollout_worker_ends_quietly_when_the_trainer_is_gone(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trainer killed mid-collection (its end of the pipe closed): the worker ends at its next
    send or receive, without a BrokenPipeError or EOFError traceback."""
    import multiprocessing

    from pinochle_train.backends import _worker_main

    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the worker's settings, not this process's
    monkeypatch.setattr(torch, "set_num_threads", lambda *args: None)
    config = build_config({"workers": 1, "games_per_worker": 2, "hidden": [16], "critic_hidden": [16]})
    trainer_end, worker_end = multiprocessing.Pipe()
    trainer_end.send(("collect", 0, None, 20))  # no weights: the worker's reply is an error report
    trainer_end.close()  # gone before the reply comes back
    _worker_main(config, 0, worker_end)  # returns instead of raising BrokenPipeError
    trainer_end, worker_end = multiprocessing.Pipe()
    trainer_end.close()
    _worker_main(config, 0, worker_end)  # EOFError at the receive
    captured = capsys.readouterr()
    assert captured.err == captured.out == ""


def test_resume_refuses_changed_settings(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli([*TINY, "--updates", "1", "--out-dir", str(tmp_path), "--run-name", "r"]) == 0
    with pytest.raises(SystemExit):
        run_cli(["--resume", str(tmp_path / "r"), "--learning-rate", "0.1"])
    with pytest.raises(SystemExit):  # the run directory exists: no silent overwrite
        run_cli([*TINY, "--updates", "1", "--out-dir", str(tmp_path), "--run-name", "r"])
    # The evaluation fields may change, eval_opponents included.
    resumed = ["--resume", str(tmp_path / "r"), "--updates", "2", "--eval-opponents", "random"]
    assert run_cli([*resumed, "--final-eval-deals", "1"]) == 0
    assert load_checkpoint(tmp_path / "r" / "checkpoints" / "update_000002.pt")["config"]["eval_opponents"] == [
        "random"
    ]
    assert (tmp_path / "r" / "eval" / "final" / "random").is_dir()

    # A finished run says so instead of planning "updates 3..2", and keeps its evaluation.
    capsys.readouterr()
    assert run_cli([*resumed, "--final-eval-deals", "1"]) == 0
    err = capsys.readouterr().err
    assert "has finished its 2 updates: nothing to train" in err and "3..2" not in err
    assert "its final evaluation is in" in err and "final evaluation," not in err
    for refused, message in [
        (["--updates", "1"], "--updates 1 is below the 2 updates"),
        (["--config", "long"], "--config long would be ignored"),
    ]:
        with pytest.raises(SystemExit):
            run_cli(["--resume", str(tmp_path / "r"), *refused])
        assert message in capsys.readouterr().err


def test_every_agent_spec_is_checked_before_training(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A bad evaluation opponent stops the run before its first update, not at the final evaluation."""
    where = ["--out-dir", str(tmp_path), "--run-name", "n"]
    for spec, message in [
        ("nope", "eval_opponents: bad agent spec 'nope': unknown agent 'nope'"),
        ("random,pimc:evaluate=heuristic", "bad agent spec 'pimc:evaluate=heuristic': pimc:evaluate=heuristic plays"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            run_cli([*TINY, "--eval-opponents", spec, "--rule", "variant=cutthroat", *where])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "n").exists()

    # A spec keeps the commas of its parameters: only a known agent name after a comma starts the next.
    mixed = "mix:play=pimc:samples=2,budget=0.1,default=random,checkpoint:bundled,sample=true"
    for text, specs in [
        ("pimc:samples=2,budget=0.1,heuristic, random", ["pimc:samples=2,budget=0.1", "heuristic", "random"]),
        (mixed, ["mix:play=pimc:samples=2,budget=0.1,default=random", "checkpoint:bundled,sample=true"]),
    ]:
        args = cli.build_parser().parse_args([*TINY, "--eval-opponents", text, *where])
        assert cli.resolve(args)[0].eval_opponents == specs


def test_a_run_whose_weights_turn_non_finite_stops_keeping_the_last_good_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pinochle_train import trainer as trainer_module

    real_update = trainer_module.ppo_update
    calls = []

    def diverging_update(policy, *args, **kwargs):
        statistics = real_update(policy, *args, **kwargs)
        calls.append(1)
        if len(calls) == 2:  # what an overflowing step leaves behind
            with torch.no_grad():
                next(policy.parameters()).fill_(float("nan"))
            statistics["policy_loss"]["all"] = float("nan")
        return statistics

    monkeypatch.setattr(trainer_module, "ppo_update", diverging_update)
    args = [*TINY, "--updates", "3", "--checkpoint-every", "1", "--final-eval-deals", "2"]
    assert run_cli([*args, "--out-dir", str(tmp_path), "--run-name", "d"]) == 1
    err = capsys.readouterr().err
    run = tmp_path / "d"
    assert "stopped at update 2: not finite: policy_loss=nan, policy weights" in err
    assert f"the last good checkpoint is {run / 'checkpoints' / 'update_000001.pt'}" in err
    assert "Traceback" not in err and "final evaluation" not in err
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["update_000001.pt"]
    kept = load_checkpoint(run / "policy.pt")["policy"]
    assert tensors_equal(kept, load_checkpoint(run / "checkpoints" / "update_000001.pt")["policy"])
    assert all(torch.isfinite(tensor).all() for tensor in kept.values())


def test_only_the_latest_checkpoints_are_kept(tmp_path: Path) -> None:
    args = [*TINY, "--updates", "4", "--checkpoint-every", "1", "--keep-checkpoints", "2"]
    assert run_cli([*args, "--out-dir", str(tmp_path), "--run-name", "k"]) == 0
    kept = sorted(path.name for path in (tmp_path / "k" / "checkpoints").iterdir())
    assert kept == ["update_000003.pt", "update_000004.pt"]


def test_the_warm_starts_checkpoint_is_never_pruned(tmp_path: Path) -> None:
    """keep_checkpoints keeps the latest ones and the warm start's (update 0), so that what the
    self-play added can always be measured against it (it was pruned like the others)."""
    warm = ["--imitate", "heuristic", "--imitation-hands", "6", "--updates", "3", "--checkpoint-every", "1"]
    assert run_cli([*TINY, *warm, "--keep-checkpoints", "1", "--out-dir", str(tmp_path), "--run-name", "w"]) == 0
    kept = sorted(path.name for path in (tmp_path / "w" / "checkpoints").iterdir())
    assert kept == ["update_000000.pt", "update_000003.pt"]


def test_eta_comes_from_the_recent_updates_and_counts_the_evaluations() -> None:
    """A slow start does not bend the ETA (the mean of all updates would say 80 x 5.5 s); the
    evaluations still to come are timed from the last periodic one."""
    from pinochle_train.trainer import _Progress

    config = build_config(
        {"workers": 0, "updates": 100, "eval_every": 50, "eval_deals": 30, "final_eval_deals": 200, "hidden": [8]}
    )
    history = [{"decisions": 100, "samples": 80, "seconds": s} for s in [10.0] * 10 + [1.0] * 10]
    trainer = SimpleNamespace(config=config, counters={"update": 20}, history=history, evaluations=[])
    progress = _Progress(trainer)  # type: ignore[arg-type]
    assert progress.eta() == (pytest.approx(80.0), False)  # no evaluation timed yet
    # A periodic evaluation: 30 deal pairs against 3 opponents in 45 s, 0.5 s a pair.
    trainer.evaluations = [{"update": 10, "rows": [], "seconds": 45.0, "pairs": 90}]
    # 80 updates, the evaluation at update 50, the final one: 200 pairs against 2 opponents.
    assert progress.eta() == (pytest.approx(80.0 + 45.0 + 200 * 2 * 0.5), True)
    trainer.counters["update"] = 100
    assert progress.eta() == (pytest.approx(200.0), True)  # only the final evaluation is left


def test_rollout_respects_masks_and_counts() -> None:
    config = build_config({"workers": 0, "games_per_worker": 6, "decisions_per_update": 300, "hidden": [32]})
    trainer = Trainer(config, Path("unused"))
    (samples,) = InProcessBackend(config).collect(0, trainer.weights(), config.decisions_per_update)
    assert len(samples) >= 300
    assert samples.action_mask[np.arange(len(samples)), samples.action].all()
    assert (samples.action_mask.sum(axis=1) > 1).all()  # forced decisions are not trained
    assert np.isfinite(samples.log_prob).all() and (samples.log_prob <= 0).all()
    assert np.allclose(samples.returns, samples.advantage + samples.value)
    assert samples.decisions > len(samples)
    assert len(samples.hand_stats) > 0


def test_masked_actions_are_never_sampled() -> None:
    rng = np.random.default_rng(0)
    logits = torch.zeros(2000, 6)
    logits[:, 0] = 50.0  # the network strongly prefers action 0, which the mask forbids
    mask = torch.ones(2000, 6, dtype=torch.uint8)
    mask[:, 0] = 0
    mask[:1000, 1:5] = 0  # half the rows: only action 5 is legal
    probabilities = torch.softmax(masked_logits(logits, mask), dim=1).numpy()
    assert (probabilities[:, 0] == 0).all()
    chosen = sample(probabilities, rng)
    assert (chosen != 0).all() and (chosen[:1000] == 5).all()
    assert set(chosen[1000:].tolist()) == {1, 2, 3, 4, 5}


def test_gae_with_a_reward_only_at_the_end() -> None:
    values = np.array([0.5, 0.2, -0.1], dtype=np.float32)
    # lambda = 1: every advantage is reward - value; lambda = 0: one-step differences.
    assert np.allclose(gae(values, 1.0, 1.0), [0.5, 0.8, 1.1])
    assert np.allclose(gae(values, 1.0, 0.0), [-0.3, -0.3, 1.1])
    assert np.allclose(gae(values, 1.0, 0.5), [-0.3 + 0.5 * (-0.3 + 0.5 * 1.1), -0.3 + 0.5 * 1.1, 1.1])


def _policy_export(tmp_path: Path, name: str = "c.pt", rules: dict | None = None) -> Path:
    config = build_config({"workers": 0, "hidden": [16], "critic_hidden": [16], "rules": rules or {}})
    return save_checkpoint(training_state(Trainer(config, tmp_path)), tmp_path / name)


def test_checkpoint_agent_plays_legal_moves_in_the_arena(tmp_path: Path) -> None:
    import hashlib
    import json

    path = _policy_export(tmp_path)
    spec = f"checkpoint:{path}"
    summary = run_arena(ArenaConfig(agents=(spec, "random"), deals=2), tmp_path / "arena")
    assert summary["pairings"][0]["deal_pairs"] == 2
    # config.json records the file's hash, and a resume refuses a file that changed since.
    recorded = json.loads((tmp_path / "arena" / "config.json").read_text())["checkpoints"]
    assert recorded == [{"spec": spec, "file": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}]
    from pinochle_train.evaluate import evaluate

    evaluate(path, ["random"], Rules(), 1, 0, tmp_path / "eval", 1)
    changed = load_checkpoint(path)
    next(iter(changed["policy"].values())).add_(1.0)
    save_checkpoint(changed, path)  # other weights in the same file
    with pytest.raises(ValueError, match=r"checkpoint changed since the run began: .*c\.pt"):
        run_arena(ArenaConfig(agents=(spec, "random"), deals=3), tmp_path / "arena", resume=True)
    # The trainer's evaluation of a policy that trained on since starts afresh rather than mixing.
    (row,) = evaluate(path, ["random"], Rules(), 2, 0, tmp_path / "eval", 1)
    assert row["deal_pairs"] == 2
    assert json.loads((tmp_path / "eval" / "random" / "config.json").read_text())["checkpoints"][0]["sha256"] == (
        hashlib.sha256(path.read_bytes()).hexdigest()
    )
    sampler = load_agent(f"checkpoint:{path},sample=true", seed=1)
    assert sampler.sample


def test_mismatched_and_corrupt_checkpoints_are_refused(tmp_path: Path) -> None:
    good = _policy_export(tmp_path)
    # Trained with max_bid=500 (a smaller observation and action space): refused before any play
    # of a default game (the agent's check_rules), naming the sizes that differ.
    small = _policy_export(tmp_path, "small.pt", {"max_bid": 500})
    with pytest.raises(ArenaError, match=r"observation_size: checkpoint \d+, this game .*num_actions"):
        run_arena(ArenaConfig(agents=(f"checkpoint:{small}", "random"), deals=1), tmp_path / "m")
    assert not (tmp_path / "m").exists()
    # ... and the other way round.
    with pytest.raises(ArenaError, match="max_bid=500"):
        run_arena(
            ArenaConfig(agents=(f"checkpoint:{good}", "random"), deals=1, rules=Rules(max_bid=500)), tmp_path / "s"
        )
    assert not (tmp_path / "m").exists() and not (tmp_path / "s").exists()
    # A cutthroat policy in the partnership arena: a usage error at start-up, not a traceback mid-run.
    from agents.arena.cli import main as arena_main

    cutthroat = _policy_export(tmp_path, "cut.pt", {"variant": "cutthroat"})
    with pytest.raises(SystemExit) as exit_info:
        arena_main([f"checkpoint:{cutthroat}", "random", "--deals", "1", "--out", str(tmp_path / "c")])
    assert exit_info.value.code == 2 and not (tmp_path / "c").exists()
    # A text file is not a checkpoint.
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint\n")
    with pytest.raises(CheckpointError, match=r"notes\.pt is not a checkpoint: not a file torch\.save wrote"):
        load_agent(f"checkpoint:{text}")
    # Weights that contradict the recorded sizes.
    lying = save_checkpoint({**load_checkpoint(good), "observation_size": 999}, tmp_path / "lying.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        load_agent(f"checkpoint:{lying}")
    old = save_checkpoint({**load_checkpoint(good), "encoder_version": -1}, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="encoder version -1"):
        load_checkpoint(old)
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(good.read_bytes()[:5000])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        load_agent(f"checkpoint:{corrupt}")
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="not a pinochle-rl checkpoint"):
        load_checkpoint(foreign)
    with pytest.raises(ValueError, match="not found"):
        load_agent(f"checkpoint:{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match=r"holds no policy\.pt and no checkpoints/update_"):
        load_agent(f"checkpoint:{(tmp_path / 'empty').mkdir() or tmp_path / 'empty'}")
    # A run with other rules or another network cannot resume from it.
    trainer = Trainer(build_config({"workers": 0, "hidden": [16], "critic_hidden": [16]}), tmp_path)
    with pytest.raises(CheckpointError, match=r"observation_size.*rules"):
        restore(trainer, load_checkpoint(small))
    wider = Trainer(build_config({"workers": 0, "hidden": [32], "critic_hidden": [16]}), tmp_path)
    with pytest.raises(CheckpointError, match=r"hidden: checkpoint \[16\], this run \[32\]"):
        restore(wider, load_checkpoint(good))


def test_a_run_directory_is_a_checkpoint_spec(tmp_path: Path) -> None:
    """``checkpoint:runs/<run>`` takes the run's policy.pt, or else its latest training checkpoint
    (what ``--resume`` takes)."""
    run = tmp_path / "run"
    _policy_export(run / "checkpoints", "update_000001.pt")
    latest = _policy_export(run / "checkpoints", "update_000002.pt")
    assert load_agent(f"checkpoint:{run}").path == latest
    policy = _policy_export(run, "policy.pt")
    assert load_agent(f"checkpoint:{run}").path == policy
    summary = run_arena(ArenaConfig(agents=(f"checkpoint:{run}", "random"), deals=1), tmp_path / "arena")
    assert summary["pairings"][0]["deal_pairs"] == 1


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _policy_export(tmp_path)
    before = path.read_bytes()

    def crash(payload, stream, *args, **kwargs):
        stream.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint({"anything": 1}, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_config_errors_name_the_key(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(ValueError, match="unknown config key learnin_rate"):
        build_config({"learnin_rate": 0.1})
    with pytest.raises(ValueError, match="critic_input='board'"):
        build_config({"critic_input": "board"})
    with pytest.raises(ValueError, match="head_rule"):
        build_config({"rules": {"head_rule": "sometimes"}})
    preset = tmp_path / "bad.toml"
    preset.write_text("updates = 2\nbogus = 1\n")
    with pytest.raises(SystemExit) as exit_info:
        run_cli(["--config", str(preset), "--out-dir", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "unknown config key bogus" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()  # refused before anything ran
    for name, value, message in [
        ("learning_rate", float("inf"), "learning_rate=inf must be a finite number"),
        ("entropy_coef", float("nan"), "entropy_coef=nan must be a finite number"),
        ("learning_rate", 5.0, "learning_rate=5.0 must be at most 1"),
        ("clip_range", -0.1, "clip_range=-0.1 must be > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            build_config({name: value})
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--learning-rate", "inf"])
    rules = tmp_path / "rules.toml"
    rules.write_text("updates = 2\nrules = 5\n")
    with pytest.raises(SystemExit):
        run_cli(["--config", str(rules), "--out-dir", str(tmp_path)])
    assert "rules = 5 must be a table of rule switches" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"updates='5' must be an integer"):
        build_config({"updates": "5"})
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--seed", "-1"])
    assert f"seed=-1 must be in [0, {2**64 - 1}]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--epochs", "two"])
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--rule", "max_bid=255"])


def test_each_group_of_fields_checks_its_own() -> None:
    """The fields are declared in groups by role, each a dataclass that checks its own fields, naming
    the field and what it allows; a config is every group's fields in one flat table (as presets,
    a run's config.toml and checkpoints hold it), and --help has a section per group."""
    import dataclasses
    import re

    from pinochle_train.config import GROUPS, NetworkConfig, PPOConfig, RulesConfig, RunConfig

    for group in GROUPS.values():
        group().check()  # every group's defaults are good on their own
    for bad, message in [
        (RunConfig(device="tpu"), "device='tpu'; allowed: auto, cpu, cuda"),  # type: ignore[arg-type]
        (PPOConfig(clip_range=-0.1), "clip_range=-0.1 must be > 0"),
        (PPOConfig(updates=2.5), "updates=2.5 must be an integer"),  # type: ignore[arg-type]
        (NetworkConfig(policy_head="cards"), "policy_head=cards needs features = partnership"),
        (RulesConfig(rules_preset="nosuch"), "rules_preset='nosuch'; allowed: default, pagat, casual (or empty)"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            bad.check()
    names = [field.name for group in GROUPS.values() for field in dataclasses.fields(group)]
    assert list(TrainConfig().to_dict()) == names and len(set(names)) == len(names) == 53
    text = cli.build_parser().format_help()
    assert all(f"\n{title}:\n" in text for title in GROUPS)


def test_the_configs_choices_are_those_of_the_layers_that_define_them() -> None:
    """A Literal field written out in the config has the values its own layer defines."""
    from typing import get_args

    from agents.arena.runtime import BACKENDS
    from agents.neural.network import POLICY_HEADS
    from pinochle_env import PRESETS
    from pinochle_train.config import Backend, PolicyHead, RulesPreset

    assert get_args(Backend) == BACKENDS and get_args(PolicyHead) == POLICY_HEADS
    assert get_args(RulesPreset) == ("", *PRESETS)


def test_help_documents_every_field(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        run_cli(["--help"])
    text = capsys.readouterr().out
    for name in TrainConfig().to_dict():
        if name != "rules":
            assert f"--{name.replace('_', '-')}" in text, name
    assert "head_rule" in text and "--rule" in text
    # A bare run uses the default preset: the help says so and shows its values, not the built-in ones.
    from pinochle_train.config import load_preset

    assert "Without --config a run uses the 'default' preset" in " ".join(text.split())
    updates = load_preset("default")["updates"]
    updates_help = " ".join(text[text.index("\n  --updates INT") :].split("--decisions-per-update")[0].split())
    assert updates != TrainConfig().updates and updates_help.endswith(f"(default: {updates})"), updates_help
    assert "--backend {local,ray}" in text and "--device {auto,cpu,cuda}" in text


def test_rules_preset_then_rule_switches() -> None:
    """``--rules-preset NAME`` starts the rules from a named rule set; the [rules] table and --rule
    change switches over it; the run's config records both and the rules played."""
    from pinochle_env import PRESETS
    from pinochle_train.config import to_toml

    args = cli.build_parser().parse_args(
        ["--config", "smoke", "--rules-preset", "casual", "--rule", "counting=classic"]
    )
    config, _, _ = cli.resolve(args)
    assert config.rules_preset == "casual" and config.rules == {"counting": "classic"}
    assert config.rule_set() == PRESETS["casual"].replace(counting="classic")
    text = to_toml(config)
    assert 'rules_preset = "casual"' in text and 'head_rule = "none"' in text  # the rules played, as a comment
    assert build_config({**config.to_dict()}).rule_set() == config.rule_set()
    with pytest.raises(ValueError, match="rules_preset='nosuch'"):
        build_config({"rules_preset": "nosuch"})
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--rules-preset", "nosuch"])


def test_presets_are_valid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every preset builds, and every expert-iteration recipe (which the trainer refuses, naming
    pinochle-iterate); a later stage of a pipeline (initial_policy) needs its earlier stage's run,
    refused with a message until it exists (here the bundled agent stands in for it)."""
    from agents.neural.agent import BUNDLED
    from pinochle_train.config import CONFIG_DIR, load_preset
    from pinochle_train.iteration import ExpertIteration, read_recipe

    monkeypatch.chdir(tmp_path)
    files = sorted(CONFIG_DIR.glob("*.toml"))
    recipes = [path for path in files if "iteration" in load_preset(str(path))]  # pinochle-iterate's
    assert recipes, "no expert-iteration recipe"
    for path in recipes:
        with pytest.raises(ValueError, match=r"expert-iteration recipe .* run it with pinochle-iterate"):
            build_config(load_preset(str(path)))
        ExpertIteration(*read_recipe(str(path)), tmp_path / "ei", None)  # builds every iteration's trainer config
    presets = [load_preset(str(path)) for path in files if path not in recipes]
    stages = [values for values in presets if values.get("initial_policy")]
    assert stages, "no preset of a pipeline's later stage"
    with pytest.raises(ValueError, match=r"initial_policy=.*train that one first"):
        build_config(stages[0])
    for values in stages:
        Path(values["initial_policy"]).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(BUNDLED, Path(values["initial_policy"]) / "policy.pt")
    for values in presets:
        build_config(values)


def test_checkpoint_agents_in_pinochle_play(tmp_path: Path) -> None:
    """``pinochle-play --partner checkpoint:PATH``: a person plays a hand with trained partners."""
    import io

    from agents.terminal import PlaySession, parse_options

    path = _policy_export(tmp_path)
    spec = f"checkpoint:{path}"
    options = parse_options(["--partner", spec, "--opponents", spec, "--hands", "1", "--seed", "1"])
    out = io.StringIO()

    def first_legal_move(prompt: str) -> str:
        game = session.game
        return game.layout.to_string(game.legal_actions()[0])

    session = PlaySession(options, first_legal_move, out)
    records = session.run()
    assert len(records) == 1 and "hands finished: 1" in out.getvalue()
    assert session.agents[2].name == spec


@pytest.mark.parametrize("variant", ["partnership", "cutthroat", "two_hand"])
def test_imitation_data_of_every_variant_pays_each_seat_its_own_margin(variant: str) -> None:
    """The warm start plays the configured game (not a 4-seat partnership game), and each decision's
    return is its seat's margin (own team's score minus the mean of the others'), not a seat % 2 sign."""
    from pinochle_env.games.kit import margins
    from pinochle_env.records import to_arrays
    from pinochle_train.imitation import chunk_arrays, play_records

    config = build_config({"workers": 0, "imitate": "heuristic", "imitation_hands": 4, "rules": {"variant": variant}})
    data = chunk_arrays((config, 0, 4, None))
    played = play_records(config.imitate, config.rule_set(), 4, [config.seed, 2**31 + 1, 0])
    records, labels, card_values = played.records, played.actions, played.card_values
    assert {record["variant"] for record in records} == {variant}
    arrays = to_arrays(records, config.reward_scale)
    np.testing.assert_array_equal(labels, arrays["action"])  # the teacher played: its labels are the actions
    assert card_values.shape == (len(labels), 24) and np.isnan(card_values).all()  # the heuristic values nothing
    assert np.isnan(played.call_values).all()  # no auction simulated unless asked
    teams = config.rule_set().teams
    expected = (
        np.array(
            [
                margins(records[hand]["score"], teams)[seat]
                for hand, seat in zip(arrays["hand"], arrays["seat"], strict=True)
            ]
        )
        / config.reward_scale
    )
    keep = arrays["action_mask"].sum(axis=1) > 1
    assert len(data["returns"]) == keep.sum() > 0
    np.testing.assert_allclose(data["returns"], expected[keep], rtol=1e-6)


def test_imitation_with_sample_rules_plays_each_chunk_under_its_own_rule_set() -> None:
    """With ``sample_rules`` the warm start's chunks draw rule sets (seeded), and their arrays stack."""
    from pinochle_train.imitation import chunk_arrays, chunk_rules

    config = build_config({"workers": 0, "imitate": "heuristic", "imitation_hands": 2, "sample_rules": True})
    drawn = [chunk_rules(config, chunk) for chunk in range(6)]
    assert len(set(drawn)) > 1 and drawn == [chunk_rules(config, chunk) for chunk in range(6)]
    assert chunk_rules(build_config({"workers": 0}), 3) == build_config({"workers": 0}).rule_set()
    sizes = {chunk_arrays((config, chunk, 1, None))["observation"].shape[1] for chunk in range(3)}
    assert len(sizes) == 1


def _small_chunks(monkeypatch, hands: int = 2) -> None:
    """Chunks of ``hands`` imitation hands, for the config's count of chunks and the warm start's play alike."""
    from pinochle_train import config as config_module
    from pinochle_train import imitation, labels

    for module in (config_module, imitation, labels):
        monkeypatch.setattr(module, "CHUNK_HANDS", hands)


def test_imitation_labels_are_kept_chunk_by_chunk_and_read_back(tmp_path: Path, monkeypatch) -> None:
    """With a labels folder each chunk is written as it is played; a later call reads the chunks
    there and plays only the missing one (a warm start interrupted midway), with the same arrays as
    a run without the folder; a folder made with other settings is refused; load_labels reads it."""
    from pinochle_train import imitation, labels

    _small_chunks(monkeypatch)
    config = build_config({"workers": 0, "imitate": "heuristic", "imitation_hands": 6})
    folder = tmp_path / "labels"
    first = imitation.collect_imitation_data(config, folder=folder)
    assert sorted(path.name for path in folder.iterdir()) == [
        "chunk_00000.npz", "chunk_00001.npz", "chunk_00002.npz", "labels.json"
    ]  # fmt: skip
    (folder / "chunk_00001.npz").unlink()
    played: list[int] = []
    original = imitation.chunk_arrays
    monkeypatch.setattr(imitation, "chunk_arrays", lambda job: played.append(job[1]) or original(job))
    again = imitation.collect_imitation_data(config, folder=folder)
    plain = imitation.collect_imitation_data(config)
    assert played == [1, 0, 1, 2]  # the missing chunk, then every chunk without a folder
    for key in labels.LABEL_KEYS:
        np.testing.assert_array_equal(again[key], first[key])
        np.testing.assert_array_equal(plain[key], first[key])
    identity, stacked = labels.load_labels(folder)
    assert identity["teacher"] == "heuristic" and identity["chunk_hands"] == 2
    np.testing.assert_array_equal(stacked["action"], first["action"])
    other = build_config({"workers": 0, "imitate": "heuristic", "imitation_hands": 6, "seed": 1})
    with pytest.raises(ValueError, match=r"other settings \(not this run's: seed\)"):
        imitation.collect_imitation_data(other, folder=folder)
    (folder / "chunk_00002.npz").write_bytes(b"not a chunk")
    with pytest.raises(ValueError, match=r"chunk_00002\.npz is not a chunk of imitation labels"):
        imitation.collect_imitation_data(config, folder=folder)


def test_a_warm_start_resumed_with_another_hand_count_refuses_its_labels(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture
) -> None:
    """imitation_hands edited in the config.toml of a run stopped in its warm start: the resume read
    the chunks there as the new count's, the last one holding 1 hand where 2 belong. labels.json
    records the teacher's hands, so the folder is refused in one line, naming them."""
    from pinochle_train import imitation
    from pinochle_train.config import to_toml

    _small_chunks(monkeypatch)
    values = {
        "workers": 0, "imitate": "heuristic", "imitation_hands": 3, "imitation_epochs": 1, "updates": 0,
        "hidden": [16], "critic_hidden": [16], "final_eval_deals": 0, "out_dir": str(tmp_path), "run_name": "r",
    }  # fmt: skip
    run = tmp_path / "r"
    imitation.collect_imitation_data(build_config(values), folder=run / "labels")  # chunks of 2 and 1 hands
    (run / "config.toml").write_text(to_toml(build_config({**values, "imitation_hands": 4})), encoding="utf-8")
    assert run_cli(["--resume", str(run)]) == 1
    said = capsys.readouterr().err
    assert "labels made with other settings (not this run's: teacher_hands)" in said and "Traceback" not in said
    assert not (run / "checkpoints").exists()


def test_a_labels_folder_from_before_teacher_hands_was_recorded_is_still_read(tmp_path: Path, monkeypatch) -> None:
    """labels.json recorded the teacher's hands only beside auction-only hands; a folder written so
    (every run's warm start before) was refused as "made with other settings (teacher_hands)", which
    stopped a resume from a checkpoint whose cloning loss reads it. It is read as it was."""
    from pinochle_train import imitation
    from pinochle_train.labels import LABELS_INFO, labels_identity, open_labels

    _small_chunks(monkeypatch)
    values = {"workers": 0, "imitate": "random", "imitation_hands": 3}
    config = build_config(values)
    folder = tmp_path / "labels"
    data = imitation.collect_imitation_data(config, folder=folder)
    old = {key: value for key, value in labels_identity(config).items() if key != "teacher_hands"}
    (folder / LABELS_INFO).write_text(json.dumps(old, indent=2), encoding="utf-8")  # as written before
    open_labels(folder, labels_identity(config))
    again = imitation.collect_imitation_data(config, folder=folder)  # its chunks read, not played
    for key in data:
        np.testing.assert_array_equal(again[key], data[key])
    with pytest.raises(ValueError, match=r"not this run's: seed\)"):  # the rest is still checked
        open_labels(folder, labels_identity(build_config({**values, "seed": 9})))


def test_auction_only_hands_are_the_heuristics_with_the_teachers_bids(tmp_path: Path, monkeypatch) -> None:
    """imitation_auction_hands: chunks after the teacher's, in the first round, of hands the heuristic
    plays; only their auction decisions are kept, each labelled with the teacher's bid there; the
    labels folder records them; a game without an auction refuses them."""
    from pinochle_env.games.kit import variant_kit
    from pinochle_train import imitation
    from pinochle_train.labels import labels_identity, load_labels, open_labels

    _small_chunks(monkeypatch)
    values = {"workers": 0, "imitate": "random", "imitation_hands": 2, "imitation_auction_hands": 3}
    config = build_config(values)
    assert imitation.chunk_rounds(config) == [[0, 1, 2]] and imitation.chunk_sizes(config) == {0: 2, 1: 2, 2: 1}
    teacher_only = imitation.chunk_arrays((config, 0, 2, None))
    auction = imitation.chunk_arrays((config, 1, 2, None))
    card0 = variant_kit(Rules()).layout.card0
    assert (teacher_only["action"] >= card0).any()  # the teacher's own hands: every decision kind
    assert len(auction["action"]) > 0 and (auction["action"] < card0 - 4).all()  # bids, passes only
    # The positions are the heuristic's auctions: the random teacher's labels differ from its bids.
    played = imitation.play_records("random", Rules(), 2, [config.seed, 2**31 + 1, 1], "heuristic", ["auction"])
    records, labels = played.records, played.actions
    kit = variant_kit(Rules())
    decisions = [(game.phase.decision, action) for record in records for game, _, action in kit.decisions(record)]
    assert [kind == "auction" for kind, _ in decisions] == (labels >= 0).tolist()
    actions = np.array([action for _, action in decisions])
    assert (actions[labels >= 0] != labels[labels >= 0]).any()  # the heuristic bid, the random teacher labelled
    folder = tmp_path / "labels"
    data = imitation.collect_imitation_data(config, folder=folder)
    assert load_labels(folder)[0]["auction_hands"] == 3
    # Chunk 1 is an auction-only chunk here and would be a teacher's chunk with more teacher hands.
    more_teacher_hands = build_config({**values, "imitation_hands": 4})
    with pytest.raises(ValueError, match=r"labels made with other settings \(not this run's: teacher_hands\)"):
        open_labels(folder, labels_identity(more_teacher_hands))
    assert len(data["action"]) == len(teacher_only["action"]) + len(auction["action"]) + len(
        imitation.chunk_arrays((config, 2, 1, None))["action"]
    )
    with pytest.raises(ValueError, match=r"imitation_auction_hands=3 needs .* game with an auction"):
        build_config({**values, "rules": {"variant": "two_hand"}})


def test_a_student_plays_the_hands_while_the_teacher_labels_every_decision() -> None:
    """DAgger's hands: the records are the student's play (random here, which the heuristic would
    not play), and each label is the heuristic's choice in that very position."""
    from agents.base import decide
    from pinochle_env.games.kit import variant_kit
    from pinochle_train.imitation import play_records

    played = play_records("heuristic", Rules(), 2, [3], student="random")
    records, labels = played.records, played.actions
    kit = variant_kit(Rules())
    decisions = [(game.clone(), seat, action) for record in records for game, seat, action in kit.decisions(record)]
    assert len(labels) == len(decisions)
    seeds = np.random.default_rng(np.random.SeedSequence([3])).integers(2**31, size=4)  # as each seat's teacher
    teachers = [load_agent("heuristic", int(seed)) for seed in seeds]
    assert all(label == decide(teachers[seat], game) for label, (game, seat, _) in zip(labels, decisions, strict=True))
    assert any(label != action for label, (_, _, action) in zip(labels, decisions, strict=True))


def test_labels_of_a_redealt_hand_are_dropped_with_its_deal(monkeypatch) -> None:
    """Under all_pass = "redeal" a deal every seat passed is abandoned and its record never made: its
    auction's labels go with it, so the labels line up with the recorded decisions (a random student
    passes round often enough)."""
    from pinochle_env.games.partnership.game import Game as PartnershipGame
    from pinochle_env.records import to_arrays
    from pinochle_train.imitation import play_records

    deals = []
    original = PartnershipGame._start_hand
    monkeypatch.setattr(PartnershipGame, "_start_hand", lambda game, *args: deals.append(1) or original(game, *args))
    rules = Rules(all_pass="redeal")
    played = play_records("heuristic", rules, 30, [4], student="random", auction_labels="simulated")
    assert len(deals) > 30  # some deal was passed round and dealt again
    arrays = to_arrays(played.records)
    assert len(played.actions) == len(arrays["action"]) == len(played.card_values) == len(played.call_values)


def test_dagger_rounds_train_a_student_that_plays_the_later_rounds_and_resume(tmp_path: Path, monkeypatch) -> None:
    """``imitation_rounds = 2``: the second round's chunks are played by the policy fitted on the
    first (saved beside the labels, recorded in labels.json), and a run interrupted in the second
    round continues with the student it saved, reading the chunks it has."""
    from pinochle_train import imitation

    _small_chunks(monkeypatch)
    base = {
        "workers": 0, "imitate": "heuristic", "imitation_hands": 8, "imitation_rounds": 2, "updates": 1,
        "games_per_worker": 4, "decisions_per_update": 64, "hidden": [16], "critic_hidden": [16],
        "final_eval_deals": 0,
    }  # fmt: skip
    config = build_config({**base, "out_dir": str(tmp_path), "run_name": "dagger"})
    assert [list(r) for r in imitation.chunk_rounds(config)] == [[0, 1], [2, 3]]
    students: list[object] = []
    original = imitation.chunk_arrays
    monkeypatch.setattr(imitation, "chunk_arrays", lambda job: students.append(job[3]) or original(job))
    Trainer(config, tmp_path / "dagger").run()
    labels = tmp_path / "dagger" / "labels"
    student = labels / "student_01.pt"
    assert students == [None, None, student, student] and student.is_file()
    assert json.loads((labels / "labels.json").read_text())["rounds"] == 2
    (labels / "chunk_00003.npz").unlink()
    students.clear()
    resumed, run_dir, _ = cli.resolve(cli.build_parser().parse_args(["--resume", str(tmp_path / "dagger")]))
    assert run_dir == tmp_path / "dagger"
    assert imitation.collect_imitation_data(resumed, folder=labels)["action"].size > 0
    assert students == [student]  # only the missing chunk, by the saved student
    (labels / "chunk_00003.npz").unlink()
    kept = student.read_bytes()
    student.write_bytes(kept[: len(kept) // 2])  # a damaged student: a traceback from a worker before
    with pytest.raises(LabelsError, match=r"round 2's student cannot play its hands: .*corrupt or truncated"):
        imitation.collect_imitation_data(resumed, folder=labels)
    student.unlink()
    with pytest.raises(LabelsError, match="round 2 needs its student's policy file"):
        imitation.collect_imitation_data(resumed, folder=labels)
    with pytest.raises(ValueError, match="imitation_rounds=5 must be from 1 to the number of chunks"):
        build_config({**base, "imitation_rounds": 5})


def test_resume_of_a_run_stopped_in_its_warm_start_keeps_its_labels(tmp_path: Path) -> None:
    """A run folder with labels but no checkpoint yet: --resume starts it again from its stored
    config (the trainer reads the labels there), and a new run of that name is refused."""
    from pinochle_train.config import to_toml

    config = build_config({"imitate": "heuristic", "imitation_hands": 10, "updates": 7, "out_dir": str(tmp_path)})
    run = tmp_path / "r"
    (run / "labels").mkdir(parents=True)
    (run / "config.toml").write_text(to_toml(config), encoding="utf-8")
    with pytest.raises(ValueError, match="no checkpoints"):  # no chunk played yet: nothing to continue
        cli.resolve(cli.build_parser().parse_args(["--resume", str(run)]))
    (run / "labels" / "chunk_00000.npz").write_bytes(b"")
    resumed, run_dir, payload = cli.resolve(cli.build_parser().parse_args(["--resume", str(run), "--updates", "9"]))
    assert payload is None and run_dir == run
    assert resumed.to_dict() == {**config.to_dict(), "updates": 9}
    with pytest.raises(ValueError, match="already holds a run"):
        cli.resolve(cli.build_parser().parse_args(["--config", "smoke", "--out-dir", str(tmp_path), "--run-name", "r"]))


def test_search_labels_keep_the_card_values_the_search_chose_by() -> None:
    """A search teacher's labels hold its value of every legal card where it searched the card play
    (the label is the best of them), NaN at every other decision; they stack with the chunk."""
    from agents.base import legal_mask
    from pinochle_env.games.kit import variant_kit
    from pinochle_train.imitation import chunk_arrays, play_records

    spec = "mix:auction=heuristic,default=pimc:samples=2"
    played = play_records(spec, Rules(), 1, [5])
    records, labels, card_values = played.records, played.actions, played.card_values
    kit = variant_kit(Rules())
    decisions = [(game.clone(), action) for record in records for game, _, action in kit.decisions(record)]
    card0 = variant_kit(Rules()).layout.card0
    valued = 0
    for (game, _), label, row in zip(decisions, labels, card_values, strict=True):
        legal = np.flatnonzero(legal_mask(game))
        if game.phase.decision == "play" and len(legal) > 1:
            valued += 1
            assert set(np.flatnonzero(~np.isnan(row)) + card0) == set(legal)
            assert row[label - card0] == np.nanmax(row)
        else:
            assert np.isnan(row).all()
    assert valued > 10
    config = build_config({"workers": 0, "imitate": spec, "imitation_hands": 1, "seed": 5})
    data = chunk_arrays((config, 0, 1, None))
    assert data["card_values"].shape == (len(data["action"]), 24) and (~np.isnan(data["card_values"])).any()


def test_the_cloning_loss_takes_the_teachers_choice_or_its_soft_targets() -> None:
    """Temperature 0: the cross-entropy of the teacher's action. Above 0, in a row with card values:
    the cross-entropy of softmax(values / T) over the valued cards (rows without values keep the
    action); a near-zero temperature is the best card's cross-entropy."""
    from pinochle_train.cloning import cloning_loss

    torch.manual_seed(0)
    card0 = 6
    logits = torch.randn(3, 40)
    values = torch.full((3, 24), float("nan"))
    values[1, [2, 5, 9]] = torch.tensor([10.0, 0.0, 4.0])
    no_calls = torch.full((3, 4), float("nan"))
    batch = {"action": torch.tensor([7, card0 + 5, 9]), "card_values": values, "call_values": no_calls}
    hard = torch.nn.functional.cross_entropy(logits, batch["action"])
    assert torch.allclose(cloning_loss(logits, batch, card0, 0.0, 20.0), hard)
    log_p = torch.log_softmax(logits, dim=1)
    target = torch.softmax(torch.tensor([10.0, 0.0, 4.0]) / 5.0, dim=0)
    soft_row = -(target * log_p[1, [card0 + 2, card0 + 5, card0 + 9]]).sum()
    expected = (-log_p[0, 7] + soft_row - log_p[2, 9]) / 3
    assert torch.allclose(cloning_loss(logits, batch, card0, 5.0, 20.0), expected)
    best = (-log_p[0, 7] - log_p[1, card0 + 2] - log_p[2, 9]) / 3  # the best card, not the action (card 5)
    assert torch.allclose(cloning_loss(logits, batch, card0, 1e-4, 20.0), best)
    unvalued = {**batch, "card_values": torch.full((3, 24), float("nan"))}  # a teacher that values nothing
    assert torch.allclose(cloning_loss(logits, unvalued, card0, 5.0, 20.0), hard)


def test_the_cloning_loss_regresses_the_call_logits_on_simulated_values() -> None:
    """A row with simulated call values: the squared error of the call logits' deviations from their
    mean against the values' deviations over value_temperature (weighted), in place of its
    cross-entropy; the logits' common level is free, and logits that match the values cost nothing."""
    from pinochle_train.cloning import REGRESSION_WEIGHT, cloning_loss

    torch.manual_seed(0)
    logits = torch.randn(2, 40)
    calls = torch.full((2, 4), float("nan"))
    calls[1, [0, 2, 3]] = torch.tensor([100.0, -20.0, 40.0])
    batch = {
        "action": torch.tensor([7, 2]),
        "card_values": torch.full((2, 24), float("nan")),
        "call_values": calls,
    }
    log_p = torch.log_softmax(logits, dim=1)
    predicted = logits[1, [0, 2, 3]] - logits[1, [0, 2, 3]].mean()
    target = (calls[1, [0, 2, 3]] - calls[1, [0, 2, 3]].mean()) / 20.0
    expected = (-log_p[0, 7] + REGRESSION_WEIGHT * (predicted - target).square().mean()) / 2
    assert torch.allclose(cloning_loss(logits, batch, 6, 0.0, 20.0), expected)
    fitted = logits.clone()
    fitted[1, [0, 2, 3]] = calls[1, [0, 2, 3]] / 20.0 + 3.0  # the values, shifted: no regression loss
    assert torch.allclose(cloning_loss(fitted, batch, 6, 0.0, 20.0), -torch.log_softmax(fitted, dim=1)[0, 7] / 2)
    masked = fitted.clone()
    masked[1, 1] = -1e9  # a masked call among the columns is no part of the row's loss
    assert torch.allclose(cloning_loss(masked, batch, 6, 0.0, 20.0), -torch.log_softmax(masked, dim=1)[0, 7] / 2)


def test_imitation_warm_start_learns_the_bots_choices(tmp_path: Path) -> None:
    """The bot's hand records become training arrays, and fitting them raises the agreement with it."""
    from pinochle_train.imitation import collect_imitation_data, fit_imitation

    config = build_config(
        {"workers": 0, "imitate": "heuristic", "imitation_hands": 20, "imitation_epochs": 8, "hidden": [64]}
    )
    data = collect_imitation_data(config)
    rows = np.arange(len(data["action"]))
    assert len(rows) > 500 and data["action_mask"][rows, data["action"]].all()
    assert (data["action_mask"].sum(axis=1) > 1).all()  # forced decisions carry nothing to learn
    assert data["critic_input"].shape[1] > data["observation"].shape[1]  # the critic sees all hands
    trainer = Trainer(config, tmp_path)

    def agreement() -> float:
        observation, mask = (torch.from_numpy(data[name]).to(trainer.device) for name in ("observation", "action_mask"))
        with torch.no_grad():
            logits = masked_logits(trainer.policy(observation.float()), mask)
        return float((logits.argmax(dim=1).cpu().numpy() == data["action"]).mean())

    before = agreement()  # on the learner's device (device=auto): the GPU where there is one
    statistics = fit_imitation(trainer.policy, trainer.critic, trainer.optimizer, data, config, trainer.device)
    after = agreement()
    assert after > before + 0.15, (before, after)
    assert statistics["agreement"] > before


@pytest.mark.parametrize("head", ["flat", "cards"])
def test_a_policy_with_derived_features_trains_resumes_and_plays(tmp_path: Path, head: str) -> None:
    """``features=partnership`` (with either policy head): the policy computes its derived features
    itself; its checkpoints and policy export say so, it resumes, and as a ``checkpoint:`` agent it
    plays legal moves."""
    from agents.neural.network import CardPolicy, FeaturePolicy

    arguments = ["--config", "smoke", "--features", "partnership", "--policy-head", head]
    arguments += ["--out-dir", str(tmp_path), "--run-name", "f"]
    assert cli.main([*arguments, "--updates", "1", "--final-eval-deals", "0"]) == 0
    assert cli.main(["--resume", str(tmp_path / "f"), "--updates", "2", "--final-eval-deals", "0"]) == 0
    export = load_checkpoint(tmp_path / "f" / "policy.pt")
    assert export["features"] == "partnership" and export["policy_head"] == head  # the export says so
    checkpoint = load_checkpoint(tmp_path / "f" / "checkpoints" / "update_000002.pt")
    assert checkpoint["features"] == "partnership" and checkpoint["counters"]["update"] == 2
    agent = load_agent(f"checkpoint:{tmp_path / 'f' / 'policy.pt'}", seed=0)
    assert isinstance(agent.policy, CardPolicy if head == "cards" else FeaturePolicy)
    game = Game(Rules(), np.random.default_rng(3))
    while not game.hand_over:
        game.apply(decide(agent, game))  # decide() refuses an illegal action
    with pytest.raises(ValueError, match="features=partnership needs the partnership game"):
        build_config({"features": "partnership", "rules": {"variant": "cutthroat"}})
    with pytest.raises(ValueError, match="policy_head=cards needs features = partnership"):
        build_config({"policy_head": "cards"})


def test_the_card_head_scores_every_card_type_with_the_same_network(monkeypatch) -> None:
    """The card-centred head adds to each card action's logit a score that depends on the card
    only through what it means now: two card types given the same card features get the same score,
    different ones different scores, and the other actions' logits are the flat head's."""
    from agents.neural.network import build_policy
    from pinochle_env.actions import ActionLayout
    from pinochle_env.games.kit import variant_kit

    kit = variant_kit(Rules())
    torch.manual_seed(0)
    policy = build_policy(kit.spec.size, [32], ActionLayout().size, "partnership", kit.spec, head="cards")
    torch.nn.init.normal_(policy.score.weight)  # scores well away from 0
    x = torch.from_numpy(kit.make_encoder().observation(Game(Rules(), np.random.default_rng(1)), 0))[None]
    card0, layer = policy.card0, policy.features
    real = layer.card_features
    with torch.no_grad():
        flat = policy.mlp(layer(x))
        scores = (policy(x) - flat)[0]
        monkeypatch.setattr(layer, "card_features", lambda parts: torch.cat([real(parts)[:, 17:18]] * 24, dim=1))
        alike = (policy(x) - flat)[0]
    assert torch.equal(scores[:card0], torch.zeros(card0)) and torch.equal(scores[card0 + 24 :], torch.zeros(2))
    assert len({round(v, 4) for v in scores[card0 : card0 + 24].tolist()}) > 12  # the cards differ
    assert alike[card0 : card0 + 24].tolist() == pytest.approx([scores[card0 + 17].item()] * 24, abs=1e-6)


def test_sampled_rules_give_each_rollout_its_own_rule_set_seen_in_the_observation() -> None:
    """sample_rules: the rules of a rollout depend on (seed, update, worker) only, differ between
    rollouts, and the observations the policy learns from carry them (the "rules" piece)."""
    from pinochle_env.games.kit import variant_kit
    from pinochle_env.games.partnership.encoding import rule_values
    from pinochle_train.rollout import RolloutWorker, rollout_rules

    config = build_config(
        {"workers": 0, "games_per_worker": 4, "decisions_per_update": 60, "hidden": [16], "sample_rules": True}
    )
    drawn = [rollout_rules(config, update, worker) for update in range(6) for worker in range(2)]
    assert drawn == [rollout_rules(config, update, worker) for update in range(6) for worker in range(2)]
    assert len(set(drawn)) == len(drawn) and all(rules.max_bid == config.rule_set().max_bid for rules in drawn)
    assert rollout_rules(build_config({"workers": 0}), 3, 1) == Rules()  # without it: the config's rules
    worker = RolloutWorker(config, 0)
    weights = Trainer(config, Path("unused")).weights()
    piece = variant_kit(Rules()).spec.piece("rules").slice
    for update in (0, 1):
        samples = worker.collect(update, weights, config.decisions_per_update)
        assert worker.games.rules == rollout_rules(config, update, 0)
        expected = np.array(rule_values(worker.games.rules), dtype=np.float32)
        assert np.allclose(samples.observation[:, piece], expected, atol=1e-3)  # the target score's fraction too


def test_the_behaviour_cloning_loss_keeps_the_policy_near_the_imitated_agent(tmp_path: Path) -> None:
    """imitation_coef: a PPO update with the cloning loss leaves the policy closer to the imitated
    agent's decisions (lower cross-entropy on them) than the same update without it."""
    from pinochle_train.cloning import CLONED_KEYS
    from pinochle_train.imitation import collect_imitation_data
    from pinochle_train.ppo import Guides, ppo_update
    from pinochle_train.trainer import minibatch_rng

    base = {"workers": 0, "games_per_worker": 8, "decisions_per_update": 400, "hidden": [32], "epochs": 4}
    base |= {"imitate": "heuristic", "imitation_hands": 10, "minibatch_size": 128, "learning_rate": 3e-3}
    data = collect_imitation_data(build_config(base))
    teacher = {name: torch.from_numpy(data[name]) for name in CLONED_KEYS}

    def cross_entropy_after(coef: float) -> float:
        torch.manual_seed(0)
        config = build_config({**base, "imitation_coef": coef})
        trainer = Trainer(config, tmp_path / f"c{coef}")
        (samples,) = InProcessBackend(config).collect(0, trainer.weights(), config.decisions_per_update)
        statistics = ppo_update(
            trainer.policy,
            trainer.critic,
            trainer.optimizer,
            samples,
            config,
            minibatch_rng(0, 0),
            trainer.device,
            Guides(teacher),
        )
        assert ("imitation" in statistics) == (coef > 0)
        with torch.no_grad():
            logits = masked_logits(trainer.policy(teacher["observation"].float()), teacher["action_mask"])
            return float(torch.nn.functional.cross_entropy(logits, teacher["action"]))

    assert cross_entropy_after(10.0) < cross_entropy_after(0.0) - 0.05


def _one_update(tmp_path: Path, overrides: dict, fit_policy: bool = True) -> tuple[Trainer, dict, Any, dict]:
    """A small trainer after one PPO update on its own samples (with the policy it started from as
    the anchor where ``anchor_kl_coef`` is set), its networks' weights before, the samples and the
    update's statistics."""
    from pinochle_train.ppo import Guides, ppo_update
    from pinochle_train.trainer import minibatch_rng

    base = {"workers": 0, "games_per_worker": 8, "decisions_per_update": 400, "hidden": [32], "epochs": 4}
    torch.manual_seed(0)
    config = build_config({**base, "minibatch_size": 128, "learning_rate": 3e-3, **overrides})
    trainer = Trainer(config, tmp_path / json.dumps(overrides).strip("{}").replace('"', "").replace(": ", "="))
    networks = {"policy": trainer.policy, "critic": trainer.critic}
    before = {name: {k: v.clone() for k, v in network.state_dict().items()} for name, network in networks.items()}
    (samples,) = InProcessBackend(config).collect(0, trainer.weights(), config.decisions_per_update)
    guides = Guides(anchor=copy.deepcopy(trainer.policy).requires_grad_(False))
    rng = minibatch_rng(0, 0)
    statistics = ppo_update(
        trainer.policy, trainer.critic, trainer.optimizer, samples, config, rng, trainer.device, guides, fit_policy
    )
    return trainer, before, samples, statistics


def test_the_anchor_kl_keeps_the_policy_near_where_self_play_began(tmp_path: Path) -> None:
    """anchor_kl_coef: after the same update, the policy's KL divergence from the policy it started
    from, on the update's decisions, is smaller with the anchor term than without it."""
    from pinochle_train.ppo import anchor_kl

    def divergence(coef: float) -> float:
        trainer, before, samples, statistics = _one_update(tmp_path, {"anchor_kl_coef": coef, "entropy_coef": 0.0})
        assert ("anchor_kl" in statistics) == (coef > 0)
        start = copy.deepcopy(trainer.policy)
        start.load_state_dict(before["policy"])
        batch = {"observation": torch.from_numpy(samples.observation), "mask": torch.from_numpy(samples.action_mask)}
        with torch.no_grad():
            log_probs = torch.log_softmax(masked_logits(trainer.policy(batch["observation"].float()), batch["mask"]), 1)
            return float(anchor_kl(log_probs, start, batch).mean())

    free, anchored = divergence(0.0), divergence(30.0)
    assert anchored < 0.5 * free, (free, anchored)


def test_the_critics_warm_up_fits_the_value_network_alone(tmp_path: Path) -> None:
    """critic_warmup: an update that does not fit the policy leaves its weights as they were and
    still moves the critic's; the trainer fits the policy from update ``critic_warmup`` on."""
    trainer, before, _, _ = _one_update(tmp_path, {}, fit_policy=False)
    assert tensors_equal(before["policy"], trainer.policy.state_dict())
    assert not tensors_equal(before["critic"], trainer.critic.state_dict())
    trainer, before, _, _ = _one_update(tmp_path, {"seed": 1}, fit_policy=True)
    assert not tensors_equal(before["policy"], trainer.policy.state_dict())


def test_a_critic_warm_up_as_long_as_the_run_is_refused() -> None:
    with pytest.raises(ValueError, match="critic_warmup=5 must be below updates=5"):
        build_config({"updates": 5, "critic_warmup": 5})


def test_the_inputs_learned_from_are_those_the_policy_decided_on(tmp_path: Path) -> None:
    """PPO's samples and the imitation labels keep the observations' fractions (tricks won / 12,
    trick points / 250, the scores, the target score; uint8 storage once made them all 0), and the
    learner's log-probability of each sampled action on the stored inputs is the behaviour
    policy's: the first epoch's ratios are 1."""
    from pinochle_train.imitation import chunk_arrays

    config = build_config({"workers": 0, "games_per_worker": 4, "decisions_per_update": 300, "hidden": [32]})
    trainer = Trainer(config, tmp_path)
    (samples,) = InProcessBackend(config).collect(0, trainer.weights(), config.decisions_per_update)
    policy = trainer.policy  # the network the samples were drawn with
    observation = torch.from_numpy(samples.observation).float()
    with torch.no_grad():
        log_probs = torch.log_softmax(masked_logits(policy(observation), torch.from_numpy(samples.action_mask)), 1)
    chosen = log_probs[torch.arange(len(samples)), torch.from_numpy(samples.action)]
    assert torch.allclose(chosen, torch.from_numpy(samples.log_prob), atol=1e-5)
    fractions = (observation > 0) & (observation < 1)
    assert bool(fractions.any(dim=0).sum() >= 3), "tricks, trick points and the target score seen"
    critic_fractions = (samples.critic_input > 0) & (samples.critic_input < 1)
    assert critic_fractions.any()
    labels = chunk_arrays((build_config({"imitate": "heuristic", "imitation_hands": 4}), 0, 4, None))
    assert ((labels["observation"] > 0) & (labels["observation"] < 1)).any(axis=0).sum() >= 3


def test_a_periodic_evaluation_cut_short_is_played_on_resume(tmp_path: Path, monkeypatch) -> None:
    """Its checkpoint is written first, so a Ctrl-C during the evaluation at update 1 resumed at
    update 2: that evaluation kept its few pairs and no TensorBoard point, for good."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from pinochle_train import trainer as trainer_module

    evaluate = trainer_module.evaluate
    asked: list[str] = []

    def interrupted_once(checkpoint, *args, **kwargs):
        asked.append(Path(checkpoint).name)
        if len(asked) == 1:
            raise KeyboardInterrupt
        return evaluate(checkpoint, *args, **kwargs)

    monkeypatch.setattr(trainer_module, "evaluate", interrupted_once)
    arguments = [*TINY, "--updates", "2", "--eval-every", "1", "--eval-deals", "2", "--eval-opponents", "random"]
    assert run_cli([*arguments, "--out-dir", str(tmp_path), "--run-name", "e"]) == 130
    run = tmp_path / "e"
    assert run_cli(["--resume", str(run)]) == 0
    assert asked == ["update_000001.pt", "update_000001.pt"]  # played again on resume, before update 2
    results = run / "eval" / "update_000001" / "random" / "results.jsonl"
    assert len(results.read_text().splitlines()) == 2
    events = EventAccumulator(str(run))
    events.Reload()
    assert [event.step for event in events.Scalars("eval/margin/random")] == [1]


def test_the_final_evaluation_plays_the_run_against_its_warm_start(tmp_path: Path, capsys) -> None:
    """final_eval_warm_start_deals: the final policy against the run's update-0 checkpoint on the
    reserved deals (a row of evaluation.json, the warm_start TensorBoard tag), also in a periodic
    evaluation; a resumed finished run keeps it; without a warm start it is refused."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from pinochle_train.evaluate import RESERVED_SEED

    warm = ["--imitate", "heuristic", "--imitation-hands", "6", "--imitation-epochs", "1", "--updates", "2"]
    evaluations = ["--final-eval-deals", "0", "--final-eval-warm-start-deals", "3", "--eval-every", "1"]
    evaluations += ["--eval-deals", "2"]
    assert run_cli([*TINY, *warm, *evaluations, "--out-dir", str(tmp_path), "--run-name", "w"]) == 0
    run = tmp_path / "w"
    (row,) = json.loads((run / "evaluation.json").read_text())
    assert row["opponent"] == f"checkpoint:{run / 'checkpoints' / 'update_000000.pt'}" and row["deal_pairs"] == 3
    stored = json.loads((run / "eval" / "final_vs_warm_start" / spec_slug(row["opponent"]) / "config.json").read_text())
    assert stored["seed"] == RESERVED_SEED + 0
    events = EventAccumulator(str(run))
    events.Reload()
    steps = [event.step for event in events.Scalars("eval/margin/warm_start")]
    assert steps == [1, 2]  # the periodic evaluation at update 1, the final one at update 2
    capsys.readouterr()
    assert run_cli(["--resume", str(run)]) == 0
    assert "its final evaluation is in" in capsys.readouterr().err
    with pytest.raises(ValueError, match="final_eval_warm_start_deals=3 needs a warm start"):
        build_config({"final_eval_warm_start_deals": 3})


def test_a_run_without_updates_needs_a_warm_start(tmp_path: Path) -> None:
    """updates = 0 without a warm start trains nothing and writes no policy: refused before the run
    starts, naming it (it used to end in a traceback at the final evaluation, policy.pt missing)."""
    with pytest.raises(ValueError, match="updates=0 needs a warm start"):
        build_config({"updates": 0})
    with pytest.raises(SystemExit) as stopped:
        run_cli([*TINY, "--updates", "0", "--out-dir", str(tmp_path), "--run-name", "none"])
    assert stopped.value.code == 2 and not (tmp_path / "none").exists()
    build_config({"updates": 0, "imitate": "heuristic", "imitation_hands": 1})


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="a device the system refuses every write to")
def test_a_full_disk_stops_training_in_one_line_with_the_checkpoints_whole(tmp_path: Path, capsys, monkeypatch) -> None:
    """A checkpoint the disk refuses (written to /dev/full: the system's ENOSPC, then PyTorch's
    "unexpected pos", then TensorBoard's flush) ended in that chained traceback; it is one line
    naming the file and how --resume continues, the checkpoints before it whole."""
    from pinochle_env import files

    def full_for_update_2(path: Path, mode: str) -> Any:
        return open("/dev/full" if ".update_000002.pt." in str(path) else path, mode)

    monkeypatch.setattr(files, "open", full_for_update_2, raising=False)
    run = tmp_path / "f"
    arguments = [*TINY, "--updates", "3", "--checkpoint-every", "1", "--out-dir", str(tmp_path), "--run-name", "f"]
    assert run_cli(arguments) == 1
    said = capsys.readouterr().err
    refused = run / "checkpoints" / "update_000002.pt"
    assert said.splitlines()[-1] == (
        f"train: stopped: cannot write {refused} (No space left on device); python train.py --resume {run} "
        "continues from the last checkpoint, update_000001.pt"
    )
    assert "Traceback" not in said
    assert sorted(path.name for path in (run / "checkpoints").iterdir()) == ["update_000001.pt"]
    assert load_checkpoint(run / "checkpoints" / "update_000001.pt")["counters"]["update"] == 1
    monkeypatch.undo()
    assert run_cli(["--resume", str(run)]) == 0
    assert load_checkpoint(run / "checkpoints" / "update_000003.pt")["counters"]["update"] == 3


def test_tensorboard_events_the_disk_refuses_stop_training_in_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    """TensorBoard's writer thread printed its traceback, and the run ended in another, with no file
    named; the run stops in one line naming the events file."""
    from tensorboard.compat.tensorflow_stub.io import gfile

    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(gfile.LocalFileSystem, "append", refused)  # every event after the file's first
    run = tmp_path / "t"
    assert run_cli([*TINY, "--updates", "2", "--out-dir", str(tmp_path), "--run-name", "t"]) == 1
    said = capsys.readouterr().err
    last = said.splitlines()[-1]
    assert last.startswith(f"train: stopped: cannot write {run / 'events.out.tfevents.'}"), said
    assert "(No space left on device); " in last
    assert "Traceback" not in said and "Exception in thread" not in said


def test_an_evaluation_leaves_the_training_random_state_as_it_found_it(tmp_path: Path) -> None:
    """With one worker a periodic evaluation plays in the trainer's process, where every checkpoint
    agent it loads drew its initial weights from PyTorch's global generator, whose state the
    checkpoints save: an evaluation cut off and resumed (fewer loads) left another state than an
    uninterrupted one, and the run's later checkpoints saved it. Whatever it plays, the state after
    is the state before."""
    config = build_config({"workers": 1, "eval_deals": 3, "eval_opponents": ["random"], "hidden": [16]})
    trainer = Trainer(config, tmp_path / "run")
    trainer.counters["update"] = 1
    checkpoint = trainer.save()
    writer = SimpleNamespace(add_scalar=lambda *args: None)
    played = tmp_path / "run" / "eval" / "update_000001" / "random" / "results.jsonl"
    for cut in (None, 1):  # a whole evaluation; one cut off after its first pair, resumed
        if cut is not None:
            played.write_text("".join(played.read_text().splitlines(keepends=True)[:cut]))
        before = torch.get_rng_state()
        trainer._periodic_evaluation(writer, checkpoint)
        assert torch.equal(torch.get_rng_state(), before), cut
    assert len(played.read_text().splitlines()) == 3


def test_in_process_rollouts_leave_the_training_random_state_as_they_found_it(tmp_path: Path) -> None:
    """workers=0: the rollout worker's networks, and a pool opponent's, drew their initial weights
    (replaced at once) from PyTorch's global generator, whose state the checkpoints save; a resumed
    run makes its worker again, so its later checkpoints saved another state than an uninterrupted
    run's."""
    from pinochle_train.rollout import to_numpy

    config = build_config({"workers": 0, "games_per_worker": 2, "decisions_per_update": 40, "hidden": [16]})
    trainer = Trainer(config, tmp_path / "run")
    trainer.pool = [to_numpy(trainer.policy.state_dict())]
    before = torch.get_rng_state()
    InProcessBackend(config).collect(0, trainer.weights(), config.decisions_per_update)
    assert torch.equal(torch.get_rng_state(), before)
