"""Output files (:mod:`pinochle_env.files`): an interrupt in the middle of an atomic write lets it
finish first; a command's run folder is told from another command's."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from pinochle_env.files import INTERRUPTS, foreign_run_problem, run_owners, write_atomically

CONTENT = b"first half|second half"


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_during_a_write_takes_effect_once_the_file_is_in_place(
    tmp_path: Path, number: int, run_interrupts: None
) -> None:
    """Ctrl-C or a plain ``kill`` in the middle of a checkpoint's write: the file is written whole,
    then the interrupt stops the run, and the handlers are as they were."""
    handlers = {n: signal.getsignal(n) for n in INTERRUPTS}

    def write(stream: Any) -> None:
        stream.write(CONTENT[:10])
        signal.raise_signal(number)
        stream.write(CONTENT[10:])

    path = tmp_path / "run" / "update_000001.pt"
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, write)
    assert path.read_bytes() == CONTENT
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left
    assert {n: signal.getsignal(n) for n in handlers} == handlers


def test_a_write_with_no_interrupt_changes_no_handler(tmp_path: Path, run_interrupts: None) -> None:
    handlers = {n: signal.getsignal(n) for n in INTERRUPTS}
    path = write_atomically(tmp_path / "out.bin", lambda stream: stream.write(CONTENT))
    assert path.read_bytes() == CONTENT
    assert {n: signal.getsignal(n) for n in handlers} == handlers


def test_outside_the_main_thread_the_block_runs_as_it_is(tmp_path: Path) -> None:
    """Only the main thread may set handlers: elsewhere nothing is deferred, and nothing fails."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            write_atomically(tmp_path / "thread.bin", lambda stream: stream.write(CONTENT))
        except BaseException as error:  # reported to the test
            errors.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert not errors
    assert (tmp_path / "thread.bin").read_bytes() == CONTENT


def test_a_folder_of_another_commands_run_is_refused_and_ones_own_or_none_taken(tmp_path: Path) -> None:
    """pinochle-arena --out on a train.py run's folder wrote its results beside the checkpoints."""
    train, arena, plain = tmp_path / "train", tmp_path / "arena", tmp_path / "plain"
    (train / "checkpoints").mkdir(parents=True)
    (train / "policy.pt").write_bytes(b"")
    arena.mkdir()
    (arena / "results.jsonl").write_text("")
    plain.mkdir()
    (plain / "notes.txt").write_text("no run")
    assert run_owners(train) == ["train.py"] and run_owners(arena) == ["pinochle-arena"]
    assert run_owners(plain) == run_owners(tmp_path / "missing") == run_owners(plain / "notes.txt") == []
    assert foreign_run_problem(train, "pinochle-arena") == (
        f"{train} holds a train.py run (checkpoints, policy.pt), not a pinochle-arena one"
    )
    assert "holds a pinochle-arena run (results.jsonl)" in foreign_run_problem(arena, "pinochle-iterate")
    for folder in (train, plain, tmp_path / "missing"):
        assert foreign_run_problem(folder, "train.py") == ""
    (train / "results.jsonl").write_text("")  # mixed before the check: each command keeps resuming its own
    assert foreign_run_problem(train, "train.py") == foreign_run_problem(train, "pinochle-arena") == ""
