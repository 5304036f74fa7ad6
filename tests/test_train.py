"""The trainer: smoke run through the README command, resume equivalence, masks, checkpoints, config errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.arena import ArenaConfig, ArenaError, run_arena
from agents.neural.checkpoints import CheckpointError, load_checkpoint, save_checkpoint
from agents.neural.network import masked_logits
from agents.registry import load_agent
from pinochle_env import Rules
from pinochle_train import cli
from pinochle_train.backends import InProcessBackend
from pinochle_train.config import TrainConfig, build_config
from pinochle_train.rollout import gae, sample
from pinochle_train.trainer import Trainer

REPO = Path(__file__).resolve().parent.parent
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
        [sys.executable, str(REPO / "train.py"), "--config", "smoke", "--out-dir", str(tmp_path), "--run-name", "s"],
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


def test_resume_after_kill_equals_straight_run(tmp_path: Path) -> None:
    """4 updates straight == 2 updates, SIGKILL, resume from the update-2 checkpoint, 2 more."""
    straight = [*TINY, "--updates", "4", "--checkpoint-every", "2", "--out-dir", str(tmp_path), "--run-name", "a"]
    assert run_cli(straight) == 0
    killed = tmp_path / "b"
    where_b = ["--out-dir", str(tmp_path), "--run-name", "b"]
    keep_all = ["--keep-checkpoints", "0"]
    process = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "train.py"),
            *TINY,
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


def test_resume_refuses_changed_settings(tmp_path: Path) -> None:
    assert run_cli([*TINY, "--updates", "1", "--out-dir", str(tmp_path), "--run-name", "r"]) == 0
    with pytest.raises(SystemExit):
        run_cli(["--resume", str(tmp_path / "r"), "--learning-rate", "0.1"])
    with pytest.raises(SystemExit):  # the run directory exists: no silent overwrite
        run_cli([*TINY, "--updates", "1", "--out-dir", str(tmp_path), "--run-name", "r"])


def test_only_the_latest_checkpoints_are_kept(tmp_path: Path) -> None:
    args = [*TINY, "--updates", "4", "--checkpoint-every", "1", "--keep-checkpoints", "2"]
    assert run_cli([*args, "--out-dir", str(tmp_path), "--run-name", "k"]) == 0
    kept = sorted(path.name for path in (tmp_path / "k" / "checkpoints").iterdir())
    assert kept == ["update_000003.pt", "update_000004.pt"]


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
    return save_checkpoint(Trainer(config, tmp_path).state(), tmp_path / name)


def test_checkpoint_agent_plays_legal_moves_in_the_arena(tmp_path: Path) -> None:
    path = _policy_export(tmp_path)
    summary = run_arena(ArenaConfig(agents=(f"checkpoint:{path}", "random"), deals=2), tmp_path / "arena")
    assert summary["pairings"][0]["deal_pairs"] == 2
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
    # A run with other rules or another network cannot resume from it.
    trainer = Trainer(build_config({"workers": 0, "hidden": [16], "critic_hidden": [16]}), tmp_path)
    with pytest.raises(CheckpointError, match=r"observation_size.*rules"):
        trainer.restore(load_checkpoint(small))
    wider = Trainer(build_config({"workers": 0, "hidden": [32], "critic_hidden": [16]}), tmp_path)
    with pytest.raises(CheckpointError, match=r"hidden: checkpoint \[16\], this run \[32\]"):
        wider.restore(load_checkpoint(good))


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
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--epochs", "two"])
    with pytest.raises(SystemExit):
        run_cli(["--config", "smoke", "--rule", "max_bid=255"])


def test_help_documents_every_field(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        run_cli(["--help"])
    text = capsys.readouterr().out
    for name in TrainConfig().to_dict():
        if name != "rules":
            assert f"--{name.replace('_', '-')}" in text, name
    assert "head_rule" in text and "--rule" in text


def test_presets_are_valid() -> None:
    from pinochle_train.config import CONFIG_DIR, load_preset

    for path in sorted(CONFIG_DIR.glob("*.toml")):
        values = load_preset(str(path))
        build_config(values)


def test_checkpoint_agents_in_pinochle_play(tmp_path: Path) -> None:
    """``pinochle-play --partner checkpoint:PATH``: a person plays a hand with trained partners."""
    import io

    from agents.play import PlaySession, parse_options

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
