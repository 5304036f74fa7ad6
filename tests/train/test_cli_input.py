"""``train.py`` refuses a bad command line in one line naming the value, before anything runs: an
output folder that cannot be made, networks that cannot fit in memory, a seed out of range, a
preset that is not text, a checkpoint count below 0, a run name that would leave the output folder,
periodic evaluations of no deal pairs, another command's run folder (pinochle-iterate too), a folder
given as the config, a rule switch without a name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pinochle_train import cli, iteration

TINY = ["--config", "smoke", "--workers", "0", "--updates", "1", "--final-eval-deals", "0"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out-dir", "{file}"], "--out-dir {file}: {file} is not a folder"),
        (["--out-dir", "{file}/runs"], "is not a folder"),
        (["--hidden", "100000000"], "config hidden=[100000000], critic_hidden=[64]: the networks do not fit in memory"),
        (["--seed", str(2**64)], f"config seed={2**64} must be in [0, {2**64 - 1}]"),
        (["--config", "{binary}"], "binary.toml: not a TOML file (not UTF-8 text)"),
        (["--keep-checkpoints", "-1"], "config keep_checkpoints=-1 must be >= 0"),
        (["--eval-every", "1", "--eval-deals", "0"], "config eval_deals=0 must be >= 1 with eval_every=1"),
        (["--run-name", "/etc"], "run_name '/etc' is not a folder name"),
        (["--run-name", "../beside"], "run_name '../beside' is not a folder name"),
        (["--run-name", "/etc/"], "run_name '/etc/' is not a folder name"),
    ],
)
def test_a_bad_command_line_is_one_line_naming_the_value(tmp_path: Path, capsys, argv, message) -> None:
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00binary")
    places = {"file": str(tmp_path / "file"), "binary": str(tmp_path / "binary.toml")}
    where = [] if "--out-dir" in argv else ["--out-dir", str(tmp_path / "runs")]
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*TINY, *where, *(arg.format(**places) for arg in argv)])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and message.format(**places) in said and "Traceback" not in said


def test_without_tensorboard_training_and_expert_iteration_name_the_extra_before_running(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # what a missing package looks like to import
    assert cli.main([*TINY, "--out-dir", str(tmp_path / "runs")]) == 2
    said = capsys.readouterr().err
    assert "training needs TensorBoard; install the train extra" in said and "pinochle-rl[train]" in said
    with pytest.raises(SystemExit) as exit_info:
        iteration.main(["--out-dir", str(tmp_path / "runs"), "--iterations", "1"])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and "expert iteration needs TensorBoard; install the train extra" in said
    assert not (tmp_path / "runs").exists()


def _refuse_to_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that gets past its checks fails the test at once, before it writes anything (without
    the checks, it trained, or ran expert iteration, in the other command's folder)."""

    def went_on(*args: object, **kwargs: object) -> None:
        raise AssertionError("the command went on into another command's run folder")

    monkeypatch.setattr("pinochle_train.trainer.Trainer", went_on)
    monkeypatch.setattr(iteration, "ExpertIteration", went_on)


def _listing(folder: Path) -> list[Path]:
    return sorted(path.relative_to(folder) for path in folder.rglob("*"))


def test_another_commands_run_folder_is_refused_in_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """train.py and pinochle-iterate pointed at an arena run's folder (as the run's folder, or the folder
    of runs), or at each other's, wrote their config.toml, checkpoints and TensorBoard events among its
    files; train.py --resume of an arena run said only "no checkpoints/update_*.pt"."""
    from agents.arena import ArenaConfig, run_arena
    from agents.arena.cli import PROG as ARENA
    from pinochle_env.files import RUN_FILES

    assert set(RUN_FILES) == {cli.PROG, ARENA, iteration.PROG}  # the names the commands call themselves
    _refuse_to_go_on(monkeypatch)
    arena, trained = tmp_path / "arena", tmp_path / "trained"
    run_arena(ArenaConfig(agents=("random", "random"), deals=1), arena)
    (trained / "checkpoints").mkdir(parents=True)
    (trained / "checkpoints" / "update_000001.pt").write_bytes(b"weights")
    held = {arena: "pinochle-arena run (results.jsonl, summary.json)", trained: "train.py run (checkpoints)"}
    before = {folder: _listing(folder) for folder in held}
    for command, argv, folder, hint in [
        (cli.main, [*TINY, "--out-dir", str(tmp_path), "--run-name", "arena"], arena, "pick another --run-name"),
        (cli.main, [*TINY, "--out-dir", str(arena), "--run-name", "mine"], arena, "pick another --run-name"),
        (cli.main, ["--resume", str(arena)], arena, ""),
        (iteration.main, ["--out-dir", str(tmp_path), "--run-name", "trained"], trained, "pick another --run-name"),
        (iteration.main, ["--out-dir", str(tmp_path), "--run-name", "arena"], arena, "pick another --run-name"),
        (iteration.main, ["--out-dir", str(arena)], arena, "pick another --run-name"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            command(argv)
        said = capsys.readouterr().err
        refused = f"{folder} holds a {held[folder]}, not a {'train.py' if command is cli.main else 'pinochle-iterate'}"
        assert exit_info.value.code == 2 and refused in said and hint in said and "Traceback" not in said, argv
    assert {folder: _listing(folder) for folder in held} == before
    assert not (arena / "mine").exists()


def test_a_folder_given_as_the_config_is_named_as_one(tmp_path: Path, capsys) -> None:
    """``--config /tmp`` said "config '/tmp' not found (as a file, ...)" of a folder that is there."""
    for command in (cli.main, iteration.main):
        with pytest.raises(SystemExit) as exit_info:
            command(["--config", str(tmp_path), "--out-dir", str(tmp_path / "runs")])
        said = capsys.readouterr().err
        assert exit_info.value.code == 2 and f"config {str(tmp_path)!r} is a folder, not a TOML file" in said
    assert not (tmp_path / "runs").exists()


def test_a_rule_without_a_name_is_one_line(tmp_path: Path, capsys) -> None:
    """``--rule =`` said "unknown rule switch ; known switches: ..."."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*TINY, "--out-dir", str(tmp_path / "runs"), "--rule", "="])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and "train.py: error: no rule switch named before '=' (NAME=VALUE)" in said
