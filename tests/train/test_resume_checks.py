"""``--resume`` refuses what it cannot continue safely, with one line naming the file and why: a
checkpoint outside a run's folder, a damaged latest checkpoint, a crafted training state, damaged
warm-start labels; and a resumed evaluation reports the deals it was asked for."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.neural.checkpoints import load_checkpoint, save_checkpoint
from pinochle_env import Rules
from pinochle_train import cli
from pinochle_train.checkpointing import find_resume, restore, training_state
from pinochle_train.config import build_config, to_toml
from pinochle_train.evaluate import evaluate
from pinochle_train.labels import LABEL_KEYS, LabelsError, load_chunk, save_chunk, stack_chunks
from pinochle_train.trainer import Trainer

SMALL = {"workers": 0, "hidden": [16], "critic_hidden": [16]}


def _trainer(run_dir: Path) -> Trainer:
    return Trainer(build_config(SMALL), run_dir)


def _training_checkpoint(path: Path, update: int = 3) -> Path:
    """A training checkpoint of a small network at ``update``, written to ``path``."""
    state = training_state(_trainer(path.parent))
    return save_checkpoint({**state, "counters": {**state["counters"], "update": update}}, path)


def test_a_checkpoint_outside_a_runs_folder_is_refused_and_its_folder_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``--resume saved/update_000003.pt`` once took ``saved``'s parent for the run and overwrote
    its config.toml and policy.pt."""
    checkpoint = _training_checkpoint(tmp_path / "saved" / "update_000003.pt")
    (tmp_path / "config.toml").write_text("mine\n")
    (tmp_path / "policy.pt").write_bytes(b"mine")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--resume", str(checkpoint), "--updates", "4"])
    assert exit_info.value.code == 2
    said = capsys.readouterr().err
    assert f"--resume {checkpoint}: a checkpoint outside a run's checkpoints/ folder" in said
    assert "Traceback" not in said
    assert (tmp_path / "config.toml").read_text() == "mine\n" and (tmp_path / "policy.pt").read_bytes() == b"mine"


def test_a_runs_checkpoints_folder_resumes_the_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _training_checkpoint(run / "checkpoints" / "update_000002.pt", update=2)
    found = find_resume(run / "checkpoints")
    assert found.run_dir == run and found.updates_done == 2


def test_a_damaged_latest_checkpoint_names_the_one_before_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    previous = _training_checkpoint(run / "checkpoints" / "update_000002.pt", update=2)
    latest = run / "checkpoints" / "update_000004.pt"
    latest.write_bytes(previous.read_bytes()[:3000])
    expected = rf"corrupt or truncated.*the checkpoint before it can be resumed: --resume {previous}"
    with pytest.raises(ValueError, match=expected):
        find_resume(run)
    assert find_resume(previous).updates_done == 2


def test_a_checkpoint_from_another_run_is_refused_not_taken_over(tmp_path: Path) -> None:
    """A cutthroat run's checkpoint copied into a partnership run as update_000006.pt was resumed:
    the run went on under its config (another game), overwrote the run's checkpoints and pruned the
    rest. Named for another update than it holds, or with another game or network than the run's
    config.toml, it is refused."""
    run = tmp_path / "run"
    _training_checkpoint(run / "checkpoints" / "update_000002.pt", update=2)
    (run / "config.toml").write_text(to_toml(build_config(SMALL)))
    assert find_resume(run).updates_done == 2  # the run's own
    foreign = tmp_path / "other" / "checkpoints" / "update_000002.pt"
    state = training_state(
        Trainer(build_config({**SMALL, "hidden": [8], "rules": {"variant": "cutthroat"}}), foreign.parent.parent)
    )
    save_checkpoint({**state, "counters": {**state["counters"], "update": 2}}, foreign)
    copied = run / "checkpoints" / "update_000006.pt"
    copied.write_bytes(foreign.read_bytes())
    with pytest.raises(ValueError, match="it holds update 2, not the one its name says: not this run's checkpoint"):
        find_resume(run)
    copied.rename(run / "checkpoints" / "update_000002.pt")  # the same name as the run's own: its config differs
    with pytest.raises(ValueError, match=r"its hidden, rules differ from the run's config\.toml: not this run's"):
        find_resume(run)


def test_a_trimmed_config_of_a_run_with_checkpoints_is_named_as_lacking_fields(tmp_path: Path) -> None:
    """A run's config.toml with fields deleted by hand was said to "differ" from its checkpoint's
    config; it lacks them, and the refusal (it cannot tell the checkpoint is the run's own) says so."""
    run = tmp_path / "run"
    _training_checkpoint(run / "checkpoints" / "update_000002.pt", update=2)
    config = to_toml(build_config(SMALL))
    kept = [line for line in config.splitlines() if not line.startswith(("learning_rate =", "critic_input ="))]
    (run / "config.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    lacking = (
        r"the run's config\.toml lacks critic_input, learning_rate, so the checkpoint cannot be checked as this run's"
    )
    with pytest.raises(ValueError, match=lacking) as refused:
        find_resume(run)
    assert "differ" not in str(refused.value)
    (run / "config.toml").write_text(config, encoding="utf-8")
    assert find_resume(run).updates_done == 2


def test_a_resume_from_a_checkpoint_needs_no_initial_policy_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The initial policy's file gone after the run's first checkpoint: --resume refused the run
    ("file not found"), though the checkpoint's weights replace that policy's. It resumes, its
    checkpoints still saying the policy trained on every rule set as the initial one had; a new
    run from the missing file is still refused."""
    initial = save_checkpoint(
        training_state(Trainer(build_config({**SMALL, "sample_rules": True}), tmp_path / "e")), tmp_path / "e.pt"
    )
    tiny = [
        "--config", "smoke", "--workers", "0", "--hidden", "16", "--critic-hidden", "16", "--games-per-worker", "2",
        "--decisions-per-update", "60", "--final-eval-deals", "0", "--out-dir", str(tmp_path),
    ]  # fmt: skip
    assert cli.main([*tiny, "--updates", "1", "--initial-policy", str(initial), "--run-name", "r"]) == 0
    initial.unlink()
    assert cli.main(["--resume", str(tmp_path / "r"), "--updates", "2"]) == 0
    assert load_checkpoint(tmp_path / "r" / "checkpoints" / "update_000002.pt")["sample_rules"] is True
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*tiny, "--updates", "1", "--initial-policy", str(initial), "--run-name", "s"])
    assert exit_info.value.code == 2
    said = capsys.readouterr().err
    assert f"config initial_policy={str(initial)!r}: checkpoint file not found" in said and "Traceback" not in said


def test_a_warm_start_config_lacking_fields_says_the_defaults_fill_them(tmp_path: Path, capsys) -> None:
    """A run stopped in its warm start whose config.toml lacks fields (written before they existed, or
    trimmed by hand): the resume filled them with the trainer's defaults (not the preset's the run
    began from, which is not recorded) and went on, unsaid. It goes on and names them."""
    config = build_config(
        {**SMALL, "imitate": "heuristic", "imitation_hands": 2, "updates": 7, "out_dir": str(tmp_path)}
    )
    run = tmp_path / "r"
    (run / "labels").mkdir(parents=True)
    (run / "labels" / "chunk_00000.npz").write_bytes(b"")
    kept = [line for line in to_toml(config).splitlines() if not line.startswith(("updates =", "learning_rate ="))]
    (run / "config.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    resumed = cli.resolve(cli.build_parser().parse_args(["--resume", str(run)]))[0]
    defaults = build_config({})
    assert (resumed.updates, resumed.learning_rate) == (defaults.updates, defaults.learning_rate)
    assert capsys.readouterr().err == (
        f"train: {run / 'config.toml'} lacks updates, learning_rate (written before they existed, or trimmed): "
        "the trainer's defaults stand in for them\n"
    )
    (run / "config.toml").write_text(to_toml(config), encoding="utf-8")
    assert cli.resolve(cli.build_parser().parse_args(["--resume", str(run)]))[0] == config
    assert capsys.readouterr().err == ""


def _crafted(payload: dict, damage: str) -> dict:
    """The payload with one part damaged as a crafted file that still loads could have it."""
    damaged = dict(payload)
    if damage == "counters":
        damaged["counters"] = {key: value for key, value in payload["counters"].items() if key != "update"}
    elif damage == "policy":
        damaged["policy"] = {**payload["policy"], "extra.weight": torch.zeros(2)}
    elif damage == "shape":
        name = next(iter(payload["critic"]))
        damaged["critic"] = {**payload["critic"], name: torch.zeros(3, 3)}
    elif damage == "rng":
        damaged["rng"] = {**payload["rng"], "torch": torch.zeros(5, dtype=torch.uint8)}
    elif damage == "pool":
        damaged["pool"] = [{"weight": torch.zeros(2)}]
    return damaged


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("counters", r"counters hold update=None, not a count"),
        ("policy", r"policy does not fit this run.s network: has extra extra\.weight"),
        ("shape", r"critic does not fit this run.s network: .* has shape \[3, 3\]"),
        ("rng", r"does not fit this run"),
        ("pool", r"opponent pool entry 0 does not fit"),
    ],
)
def test_a_crafted_training_state_is_refused_before_it_is_used(tmp_path: Path, damage: str, message: str) -> None:
    good = load_checkpoint(_training_checkpoint(tmp_path / "run" / "checkpoints" / "update_000003.pt"))
    with pytest.raises(ValueError, match=message):
        restore(_trainer(tmp_path / "other"), _crafted(good, damage))


def test_a_resumed_evaluation_with_fewer_deals_counts_only_those(tmp_path: Path) -> None:
    """An evaluation resumed with fewer deals reported the deal pairs and win rate of every line of
    its results file, and the margin of the deals asked for."""
    checkpoint = _training_checkpoint(tmp_path / "run" / "checkpoints" / "update_000001.pt", update=1)
    where = {"rules": Rules(), "seed": 0, "out": tmp_path / "eval", "workers": 1}
    evaluate(checkpoint, ["random"], deals=3, **where)
    row = evaluate(checkpoint, ["random"], deals=1, **where)[0]
    assert row["deal_pairs"] == 1 and row["win_rate"]["n"] == 1
    # The same checkpoint under another spelling of its path (a run resumed from another folder):
    # its deal pairs were counted twice, 6 of 3, the win rate's interval over duplicated deals.
    elsewhere = Path(os.path.relpath(checkpoint))
    row = evaluate(elsewhere, ["random"], deals=3, **where)[0]
    assert row["deal_pairs"] == 3 and row["win_rate"]["n"] == 3


def test_damaged_warm_start_labels_are_named_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A truncated labels.json ended --resume in a JSONDecodeError traceback, a truncated chunk in BadZipFile."""
    config = build_config({**SMALL, "imitate": "heuristic", "imitation_hands": 2, "out_dir": str(tmp_path)})
    run = tmp_path / "r"
    (run / "labels").mkdir(parents=True)
    (run / "config.toml").write_text(to_toml(config), encoding="utf-8")
    chunk = run / "labels" / "chunk_00000.npz"
    save_chunk(chunk, {key: np.zeros(3) for key in LABEL_KEYS})
    (run / "labels" / "labels.json").write_text('{"format": 3, "teac')
    assert cli.main(["--resume", str(run)]) == 1
    said = capsys.readouterr().err
    assert f"{run / 'labels' / 'labels.json'} cannot be read (" in said and "Traceback" not in said
    chunk.write_bytes(chunk.read_bytes()[:100])
    with pytest.raises(LabelsError, match=r"chunk_00000\.npz is not a chunk of imitation labels \(.*\): delete it"):
        load_chunk(chunk)


def test_a_chunk_whose_arrays_do_not_line_up_is_refused(tmp_path: Path) -> None:
    """A chunk whose actions were 3 rows short was fitted, its labels paired with the wrong positions;
    one of the old format (uint8 inputs, their fractions read as 0) was fitted; chunks of different
    widths ended in numpy's concatenate error."""
    good = {
        key: np.zeros((6, 4), np.float16 if key in ("observation", "critic_input") else np.float32)
        for key in LABEL_KEYS
    }
    for damage in ("short", "old format"):
        chunk = dict(good)
        if damage == "short":
            chunk["action"] = chunk["action"][:3]
        else:
            chunk["observation"] = chunk["observation"].astype(np.uint8)
        save_chunk(tmp_path / "chunk_00000.npz", chunk)
        with pytest.raises(LabelsError, match="is not a chunk of imitation labels as this version writes them"):
            load_chunk(tmp_path / "chunk_00000.npz")
    narrow = {key: values[:, :3] for key, values in good.items()}
    with pytest.raises(LabelsError, match="labels of different layouts cannot be fitted together"):
        stack_chunks([good, narrow])


def test_a_run_resumed_while_another_process_holds_it_is_refused(tmp_path: Path, capsys) -> None:
    """Two ``--resume`` of one run at once both trained, evaluated and wrote its checkpoints, the
    evaluations' results appended twice: the second is refused in one line, the run left as it was."""
    from pinochle_env.files import folder_held

    tiny = [
        "--config", "smoke", "--workers", "0", "--hidden", "16", "--critic-hidden", "16", "--games-per-worker", "2",
        "--decisions-per-update", "60", "--final-eval-deals", "0", "--out-dir", str(tmp_path), "--run-name", "r",
    ]  # fmt: skip
    assert cli.main([*tiny, "--updates", "1"]) == 0
    run = tmp_path / "r"
    capsys.readouterr()
    with folder_held(run), pytest.raises(SystemExit) as exit_info:  # the other process, still training
        cli.main(["--resume", str(run), "--updates", "2"])
    assert exit_info.value.code == 2
    said = capsys.readouterr().err
    assert f"{run} is in use by another process" in said and "Traceback" not in said
    assert sorted(path.name for path in (run / "checkpoints").iterdir()) == ["update_000001.pt"]
    assert cli.main(["--resume", str(run), "--updates", "2"]) == 0  # once it has ended, the resume goes on
    assert (run / "checkpoints" / "update_000002.pt").is_file()
