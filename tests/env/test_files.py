"""Atomic writes (:mod:`pinochle_env.files`): an interrupt in the middle of one lets it finish first."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from pinochle_env.files import INTERRUPTS, write_atomically

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
