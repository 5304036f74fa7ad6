"""Expert iteration (pinochle_train.iteration): the stages of an iteration, the records, continuing a
run, the labels of earlier iterations, and recipes refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pinochle_train import iteration
from pinochle_train.config import build_config, load_preset
from pinochle_train.labels import LabelsError, labels_identity, load_earlier_labels, save_chunk

pytestmark = pytest.mark.usefixtures("search_kernel")

#: A recipe small enough for the suite: the bundled network's shape (it starts from the bundled agent),
#: a handful of hands labelled by a small guided search, tiny gate and report.
RECIPE = """
workers = 0
updates = 0
hidden = [256, 256]
critic_hidden = [256, 256]
critic_input = "state"
features = "partnership"
policy_head = "cards"
learning_rate = 0.0001
minibatch_size = 256
imitation_hands = 6
imitation_epochs = 1
imitation_temperature = 10.0
eval_every = 0
final_eval_deals = 0

[iteration]
iterations = 1
start = "bundled"
teacher = "guided:checkpoint={policy},prior=2,samples=2,budget=0.1"
history = 2
gate_deals = 3
opponents = ["heuristic"]
opponent_deals = 2

[rules]
"""


def _recipe(tmp_path: Path, text: str = RECIPE) -> str:
    path = tmp_path / "recipe.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_iterations_record_every_stage_and_a_second_command_continues(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    arguments = ["--config", recipe, "--out-dir", str(tmp_path / "runs"), "--run-name", "ei"]
    assert iteration.main(arguments) == 0
    folder = tmp_path / "runs" / "ei"
    lines = [json.loads(line) for line in (folder / "iterations.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [0, 1]
    start, first = lines
    assert start["policy"].endswith("pinochle_ppo.pt") and [row["opponent"] for row in start["report"]] == ["heuristic"]
    assert first["teacher"] == f"guided:checkpoint={start['policy']},prior=2,samples=2,budget=0.1"
    assert first["gate"]["opponent"] == f"checkpoint:{start['policy']}" and first["gate"]["deal_pairs"] == 3
    assert first["accepted"] == (first["gate"]["margin"]["estimate"] >= 0)
    assert first["accepted_policy"] == (first["policy"] if first["accepted"] else start["policy"])
    assert first["labels"] > 0 and first["fit"]["cross_entropy"] > 0
    assert first["report"][0]["deal_pairs"] == 2 and 0 <= first["report"][0]["sides"]["a"]["declared"] <= 1
    assert list((folder / "tensorboard").glob("events.out.tfevents.*"))
    stamp = (folder / "iteration_01" / "policy.pt").stat().st_mtime_ns

    # A second command with more iterations does only the new one, from the accepted policy, fitting
    # the first iteration's labels too.
    assert iteration.main([*arguments, "--iterations", "2"]) == 0
    lines = [json.loads(line) for line in (folder / "iterations.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [0, 1, 2]
    assert (folder / "iteration_01" / "policy.pt").stat().st_mtime_ns == stamp
    second = build_config(load_preset(str(folder / "iteration_02" / "config.toml")))
    assert second.initial_policy == lines[1]["accepted_policy"]
    assert second.imitation_label_folders == [str(folder / "iteration_01" / "labels")]
    assert lines[2]["labels"] < lines[2]["fit"]["decisions"]  # its own labels and the first iteration's

    # Stopped after the second iteration's stages but before its line was written: the same command
    # (with another worker count, which the recipe leaves to each command) continues its trainer run
    # and evaluations from their folders, playing and fitting nothing again.
    results = folder / "iterations.jsonl"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines[:2]))
    stamp = (folder / "iteration_02" / "policy.pt").stat().st_mtime_ns
    assert iteration.main([*arguments, "--iterations", "2", "--workers", "1"]) == 0
    again = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[2]["workers"] == 0 and again[2]["workers"] == 1
    assert (folder / "iteration_02" / "policy.pt").stat().st_mtime_ns == stamp
    assert again[2]["fit"] == {} and again[2]["seconds"]["labels_and_fit"] < lines[2]["seconds"]["labels_and_fit"]
    for key in ("teacher", "policy", "accepted", "accepted_policy", "labels", "gate", "report"):
        assert again[2][key] == lines[2][key], key


def test_a_changed_recipe_and_bad_settings_are_refused_by_name(tmp_path: Path, capsys) -> None:
    arguments = ["--out-dir", str(tmp_path / "runs"), "--run-name", "ei"]
    folder = tmp_path / "runs" / "ei"
    folder.mkdir(parents=True)
    (folder / "recipe.toml").write_text(RECIPE, encoding="utf-8")
    for text, message in [
        (RECIPE.replace("gate_deals = 3", "gate_deals = 5"), "only iterations may change"),
        (RECIPE.replace("history = 2", "histories = 2"), "[iteration] unknown key histories"),
        (RECIPE.replace("checkpoint={policy}", "checkpoint=bundled"), "naming the accepted policy as {policy}"),
        (RECIPE.replace("gate_deals = 3", "gate_deals = 0"), "gate_deals=0 must be an integer >= 1"),
        (RECIPE.replace('start = "bundled"', 'start = "nosuch.pt"'), "nosuch.pt"),
        (RECIPE.replace("[iteration]", "[iterate]"), "needs an [iteration] table"),
        (RECIPE.replace("hidden = [256, 256]", "hidden = [128]"), "recipe 'bundled''s network: hidden"),
        (RECIPE.replace('opponents = ["heuristic"]', 'opponents = "heuristic"'), "must be a list of agent specs"),
        (RECIPE.replace('opponents = ["heuristic"]', 'opponents = ["bogus"]'), "bad agent spec 'bogus'"),
        (RECIPE.replace("gate_deals = 3", 'gate_deals = 3\ngate_margin = "x"'), "gate_margin='x' must be a number"),
        (RECIPE.replace('teacher = "guided', "teacher = 5\n#"), "teacher=5 must be an agent spec"),
    ]:
        with pytest.raises(SystemExit) as stop:
            iteration.main(["--config", _recipe(tmp_path, text), *arguments])
        assert stop.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        iteration.main(["--config", _recipe(tmp_path), "--out-dir", str(tmp_path / "a,b")])
    assert "may not contain ','" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        iteration.main(["--config", _recipe(tmp_path), "--out-dir", str(tmp_path / "runs"), "--run-name", "/etc"])
    assert "--run-name '/etc' is not a folder name" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        iteration.main(["--config", _recipe(tmp_path), *arguments, "--workers", "-1"])
    assert "--workers must be at least 0, got -1" in capsys.readouterr().err


def test_a_command_refused_by_the_lock_leaves_the_recipe_copy_alone(tmp_path: Path, capsys) -> None:
    """The run's recipe.toml was written before the folder's lock was taken: a second command,
    refused because the run still went, had already written its recipe over the run's (or a
    recipe.toml into a folder whose first command had not written one yet)."""
    from pinochle_env.files import folder_held

    folder = tmp_path / "runs" / "ei"
    arguments = ["--config", _recipe(tmp_path), "--out-dir", str(tmp_path / "runs"), "--run-name", "ei"]
    stored = RECIPE.replace("iterations = 1", "iterations = 3")  # a setting a continuing command may change
    for before in (None, stored):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "recipe.toml").unlink(missing_ok=True)
        if before is not None:
            (folder / "recipe.toml").write_text(before, encoding="utf-8")
        with folder_held(folder), pytest.raises(SystemExit) as stop:  # the other command, still running
            iteration.main(arguments)
        assert stop.value.code == 2 and f"{folder} is in use by another process" in capsys.readouterr().err
        if before is None:
            assert not (folder / "recipe.toml").exists()
        else:
            assert (folder / "recipe.toml").read_text(encoding="utf-8") == before


def test_earlier_labels_must_share_the_runs_layout(tmp_path: Path) -> None:
    """imitation_label_folders: a folder made under another critic input (or rules, encoder, format)
    is refused, naming it; one made alike is read, chunk rows stacked."""
    _, base = iteration.read_recipe(_recipe(tmp_path))
    config = build_config(base | {"imitate": "heuristic"})
    identity = labels_identity(config)
    rows = 5
    chunk = {
        "observation": np.zeros((rows, 3), np.float16), "critic_input": np.zeros((rows, 4), np.float16),
        "action_mask": np.ones((rows, 2), np.uint8), "action": np.zeros(rows, np.int64),
        "returns": np.zeros(rows, np.float32), "card_values": np.full((rows, 24), np.nan, np.float32),
        "call_values": np.full((rows, 2), np.nan, np.float32),
    }  # fmt: skip
    for name, changes in [("alike", {"teacher": "pimc", "seed": 7}), ("other", {"critic_input": "observation"})]:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "labels.json").write_text(json.dumps(identity | changes), encoding="utf-8")
        save_chunk(folder / "chunk_00000.npz", chunk)
    [alike] = load_earlier_labels([str(tmp_path / "alike")], identity)
    assert len(alike["action"]) == rows
    with pytest.raises(LabelsError, match="other holds labels made with another critic_input"):
        load_earlier_labels([str(tmp_path / "alike"), str(tmp_path / "other")], identity)
    with pytest.raises(LabelsError, match=r"no labels\.json"):
        load_earlier_labels([str(tmp_path / "missing")], identity)


def test_a_plain_kill_stops_a_run_like_ctrl_c(tmp_path: Path, monkeypatch, capsys) -> None:
    """SIGTERM (a plain ``kill``) during the run ends it through Ctrl-C's path: the "run the same
    command again" line and status 130, not a silent death by the signal."""
    import os
    import signal

    def killed(self: iteration.ExpertIteration) -> list:
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the run")

    def ignored(signum: int, frame: object) -> None:  # without the fix, the test fails instead of dying
        pass

    monkeypatch.setattr(iteration.ExpertIteration, "run", killed)
    previous = signal.signal(signal.SIGTERM, ignored)
    try:
        arguments = ["--config", _recipe(tmp_path), "--out-dir", str(tmp_path / "runs"), "--run-name", "ei"]
        assert iteration.main(arguments) == 130
        assert signal.getsignal(signal.SIGTERM) is ignored  # the handler before it is put back
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert "iterate: interrupted; run the same command again to continue" in capsys.readouterr().err


def test_a_full_disk_stops_a_run_in_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """A write the system refuses (a full disk) in any stage ended in a traceback; it stops the run
    in one line naming the file, with the way to go on, as a damaged labels chunk does."""
    import errno

    from pinochle_env.files import WriteFailed

    def full(self: iteration.ExpertIteration) -> list:
        raise WriteFailed(errno.ENOSPC, "No space left on device", str(tmp_path / "runs" / "ei" / "x.npz"))

    monkeypatch.setattr(iteration.ExpertIteration, "run", full)
    arguments = ["--config", _recipe(tmp_path), "--out-dir", str(tmp_path / "runs"), "--run-name", "ei"]
    assert iteration.main(arguments) == 1
    said = capsys.readouterr().err.strip()
    assert said == (
        f"iterate: stopped: cannot write {tmp_path / 'runs' / 'ei' / 'x.npz'}: No space left on device "
        "(run the same command again to continue, once that is fixed)"
    )
