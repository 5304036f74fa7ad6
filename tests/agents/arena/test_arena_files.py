"""The arena's command line and files: ``config.json`` written whole or not at all, a damaged or
missing one, a folder in place of ``results.jsonl``, an unusable out folder or another command's run
folder named in one line, a full disk stopping a run in one line with its pairs kept, and a --help
that lists what it takes."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agents.arena import CONFIG, RESULTS, ArenaConfig, run_arena, tournament
from agents.arena.cli import main
from pinochle_env.files import RUN_FILES

TWO = ("random", "mix:play=random,default=random")


def _interrupt_half_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill in the middle of writing a file, whichever way it is written: a plain write stops
    after half its text, a write through a temporary file before the rename."""

    def half_written(path: Path, text: str, *args: object, **kwargs: object) -> int:
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text[: len(text) // 2])
        raise KeyboardInterrupt

    def no_rename(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", half_written)
    monkeypatch.setattr(os, "replace", no_rename)


def test_a_kill_while_config_json_is_written_leaves_a_run_that_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    config = ArenaConfig(agents=TWO, deals=1)
    run_arena(config, out)
    written = (out / CONFIG).read_text()
    with monkeypatch.context() as patch:
        _interrupt_half_way(patch)
        with pytest.raises(KeyboardInterrupt):
            run_arena(config, out, resume=True)
    assert (out / CONFIG).read_text() == written
    assert run_arena(ArenaConfig(agents=TWO, deals=2), out, resume=True)["pairings"][0]["deal_pairs"] == 2


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ('{"agents": ["random", "heur', "is damaged (Unterminated string"),
        ('{"agents": ["random"], "rules": {}, "deals": "ten"}', "is damaged (deals missing or of the wrong kind)"),
        ("[1, 2]", "is damaged (a JSON list, not an object)"),
        ("\udcff", "is damaged ("),
    ],
)
def test_a_damaged_config_json_is_named_on_resume(tmp_path: Path, capsys, damage: str, message: str) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / CONFIG).write_bytes(damage.encode("utf-8", "surrogateescape"))
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", "--out", str(out)])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and f"{out / CONFIG} {message}" in said and "Traceback" not in said


def test_resuming_a_folder_without_a_run_says_so(tmp_path: Path, capsys) -> None:
    """It once said "need at least two agent specs"."""
    with pytest.raises(SystemExit):
        main(["--resume", "--out", str(tmp_path)])
    assert f"nothing to resume in {tmp_path}: no {CONFIG}" in capsys.readouterr().err


def test_a_folder_in_place_of_results_jsonl_is_one_line(tmp_path: Path, capsys) -> None:
    """--resume and --compare ended in an IsADirectoryError traceback, and a new run said the folder
    "already holds results: pass --resume"."""
    out = tmp_path / "run"
    main([*TWO, "--deals", "2", "--out", str(out)])
    (out / RESULTS).unlink()
    (out / RESULTS).mkdir()
    cannot = f"{out / RESULTS}: cannot read the results (Is a directory)"
    for argv, message in [
        (["--resume", "--out", str(out)], cannot),
        (["--compare", str(out), str(out)], cannot),
        ([*TWO, "--deals", "2", "--out", str(out)], f"{out / RESULTS} is not a file: move it aside"),
    ]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        said = capsys.readouterr().err
        assert exit_info.value.code == 2 and message in said and "Traceback" not in said


def test_a_config_json_of_the_wrong_kind_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="agents, hand_cap missing or of the wrong kind"):
        ArenaConfig.from_dict(json.loads('{"agents": "random", "rules": {}, "hand_cap": 1.5}'))


def test_an_out_path_that_is_not_a_folder_is_refused_before_any_play(tmp_path: Path, capsys) -> None:
    """It ended in a FileExistsError traceback."""
    taken = tmp_path / "taken"
    taken.write_text("a file")
    for out in (taken, taken / "run"):
        with pytest.raises(SystemExit) as exit_info:
            main([*TWO, "--deals", "1", "--out", str(out)])
        said = capsys.readouterr().err
        assert exit_info.value.code == 2 and f"--out {out}: {taken} is not a folder" in said


def test_another_commands_run_folder_is_refused_before_any_play(tmp_path: Path, capsys) -> None:
    """``--out`` on a train.py run's folder wrote config.json, results.jsonl and the summaries among its
    checkpoints (and on a pinochle-iterate run's, beside its recipe); a --resume said only "no config.json"."""
    train, iterate = tmp_path / "train", tmp_path / "iterate"
    (train / "checkpoints").mkdir(parents=True)
    (train / "checkpoints" / "update_000001.pt").write_bytes(b"weights")
    (train / "config.toml").write_text("updates = 1\n")
    iterate.mkdir()
    (iterate / "recipe.toml").write_text("[iteration]\n")
    for out, other in [(train, "train.py run (checkpoints)"), (iterate, "pinochle-iterate run (recipe.toml)")]:
        before = sorted(path.relative_to(out) for path in out.rglob("*"))
        for argv in ([*TWO, "--deals", "1", "--out", str(out)], ["--resume", "--out", str(out)]):
            with pytest.raises(SystemExit) as exit_info:
                main(argv)
            said = capsys.readouterr().err
            assert exit_info.value.code == 2 and "Traceback" not in said
            assert f"pinochle-arena: error: {out} holds a {other}, not a pinochle-arena one: pick another --out" in said
        assert sorted(path.relative_to(out) for path in out.rglob("*")) == before
    run_arena(ArenaConfig(agents=TWO, deals=1), tmp_path / "arena")  # what marks an arena run is what it writes
    assert all((tmp_path / "arena" / name).is_file() for name in RUN_FILES["pinochle-arena"])


def test_an_empty_out_is_refused_before_any_play(tmp_path: Path, capsys, monkeypatch) -> None:
    """``--out ""`` (an unset variable) was the current folder: the run's files went among its own."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main([*TWO, "--deals", "1", "--out", ""])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and "argument --out: '' names no folder" in said
    assert list(tmp_path.iterdir()) == []


def test_an_out_folder_the_system_will_not_make_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    """It passed the check (a folder that may be written), then mkdir's error was a traceback: as
    under /proc, or on a read-only mount."""
    out = tmp_path / "run"
    make = Path.mkdir

    def refused(path: Path, *args: object, **kwargs: object) -> None:
        if path == out:
            raise OSError(30, "Read-only file system", str(path))
        make(path, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refused)
    with pytest.raises(SystemExit) as exit_info:
        main([*TWO, "--deals", "1", "--out", str(out)])
    said = capsys.readouterr().err
    assert exit_info.value.code == 2 and f"--out {out}: cannot make the folder (Read-only file system)" in said
    assert "Traceback" not in said


def test_help_lists_the_registered_agents_and_the_rule_switches(capsys) -> None:
    """--help named no agent but random, heuristic, pimc:samples=16 and mix:..."""
    with pytest.raises(SystemExit):
        main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    for shown in ("checkpoint:PATH", "bundled-any-rules", "guided (checkpoint, prior", "heuristic (aggression"):
        assert shown in said
    assert "head_rule (winner|highest_led|led_card|trump_lead_only|none)" in said and "max_bid (integer 260.." in said


class _FillsUp:
    """The results file on a disk that fills up: ``room`` writes go through, the next one writes
    half its text (what reached the disk) and is refused, as are those after it."""

    def __init__(self, stream: Any, room: int) -> None:
        self.stream, self.room = stream, room

    def write(self, text: str) -> int:
        if self.room <= 0:
            if self.room == 0:
                self.stream.write(text[: len(text) // 2])
                self.stream.flush()
                self.room -= 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= 1
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def test_a_full_disk_stops_the_run_in_one_line_keeping_the_pairs_written(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was an OSError traceback; it stops as an interruption does: the file and the reason
    named, the pairs written kept (the half-written last one cut on resume), status 1."""
    out = tmp_path / "run"

    def opened(*args: Any, **kwargs: Any) -> _FillsUp:
        return _FillsUp(open(*args, **kwargs), 3)  # the run closes it

    monkeypatch.setattr(tournament, "open", opened, raising=False)
    assert main([*TWO, "--deals", "6", "--workers", "1", "--out", str(out)]) == 1
    said = capsys.readouterr().err
    results = out / RESULTS
    assert (
        f"pinochle-arena: error: cannot write {results}: No space left on device; 3 pairs (3 new) saved in {results}; "
        "continue with --resume\n"
    ) in said
    assert "Traceback" not in said
    assert not results.read_bytes().endswith(b"\n")  # half a line: what the disk took
    monkeypatch.undo()
    assert main(["--resume", "--out", str(out), "--workers", "1"]) == 0
    ids = [json.loads(line)["id"] for line in results.read_text().splitlines()]
    assert sorted(ids) == list(range(6))  # none lost, none repeated


class _FillsUpMidBatch:
    """The results file on a disk that fills up in the middle of a batch's write: the first batch
    goes through; of the second, its first line and half of the next reach the disk, and the
    write is refused."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.writes = stream, 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes == 1:
            return self.stream.write(text)
        first = text.index("\n") + 1
        self.stream.write(text[: first + (len(text) - first) // 2])
        self.stream.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def test_a_batch_cut_part_way_counts_the_pairs_on_disk(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop line counted whole batches: a batch whose write was refused after some of its
    lines reached the disk was left out ("2 pairs saved" with 3 in the file, all of which
    --resume reads)."""
    out = tmp_path / "run"

    def opened(*args: Any, **kwargs: Any) -> _FillsUpMidBatch:
        return _FillsUpMidBatch(open(*args, **kwargs))  # the run closes it

    monkeypatch.setattr(tournament, "open", opened, raising=False)
    assert main([*TWO, "--deals", "8", "--workers", "1", "--out", str(out)]) == 1  # 4 batches of 2 pairs
    said = capsys.readouterr().err
    results = out / RESULTS
    assert len(tournament.read_results(results, repair=False)) == 3
    assert f"No space left on device; 3 pairs (3 new) saved in {results}; continue with --resume\n" in said


@pytest.mark.parametrize("refused", [CONFIG, "summary.json"])
def test_a_config_or_summary_the_disk_refuses_says_how_to_go_on(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """config.json refused: nothing to resume, so it says to start again (and leaves no file);
    a summary refused: every pair is kept, and --resume writes it."""
    out = tmp_path / "run"
    if refused == CONFIG:
        monkeypatch.setattr(os, "fsync", _refuse)
        hint = "nothing was played yet: start the run again (there is nothing to --resume)"
    else:
        monkeypatch.setattr(tournament, "write_json", _refuse)
        hint = f"2 pairs (2 new) saved in {out / RESULTS}; continue with --resume"
    assert main([*TWO, "--deals", "2", "--workers", "1", "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert f"pinochle-arena: error: cannot write {out / refused}: No space left on device; {hint}\n" in said
    assert "Traceback" not in said
    assert not list(out.glob(".*.tmp"))
    monkeypatch.undo()
    if refused == CONFIG:
        assert not (out / CONFIG).exists()
    else:
        assert main(["--resume", "--out", str(out)]) == 0
        assert json.loads((out / "summary.json").read_text())["pairings"][0]["deal_pairs"] == 2


def _refuse(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("when", ["loading the agents", "planning", "loading them to resume"])
def test_a_ctrl_c_before_the_first_pair_says_how_to_go_on(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """A Ctrl-C after start-up but before the first progress line ended the run (status 130) with no
    line; before config.json was written, --resume then said "nothing to resume"."""
    out = tmp_path / "run"
    resume = when == "loading them to resume"
    if resume:
        assert main([*TWO, "--deals", "1", "--out", str(out)]) == 0
    monkeypatch.setattr(tournament, "plan_jobs" if when == "planning" else "validate", _interrupt)
    command = ["--resume", "--deals", "2"] if resume else [*TWO, "--deals", "2"]
    capsys.readouterr()
    assert main([*command, "--workers", "1", "--out", str(out)]) == 130
    said = capsys.readouterr().err
    if when == "loading the agents":
        hint = "nothing was played yet: start the run again (there is nothing to --resume)"
    elif when == "planning":
        hint = f"0 pairs (0 new) saved in {out / RESULTS}; continue with --resume"
    else:
        hint = "nothing new was played; continue with --resume"
    assert said == f"arena: interrupted; {hint}\n"
    assert (out / CONFIG).exists() is (when != "loading the agents")
    if (out / CONFIG).exists():
        monkeypatch.undo()
        assert main(["--resume", "--out", str(out), "--deals", "2"]) == 0


def _interrupt(*args: object) -> None:
    raise KeyboardInterrupt
