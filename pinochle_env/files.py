"""Output files: writing one whole or not at all (what the trainer's checkpoints and labels and the
arena's ``config.json`` are written with, so that a process killed in the middle of a write never
leaves a file that cannot be read, and a Ctrl-C or SIGTERM during one takes effect once it is
written), a write the system refuses (a full disk) as one error naming the file
(:class:`WriteFailed`), SIGTERM stopping a long run the way Ctrl-C does (so that its results are kept),
whether an output folder can be made (checked before a run starts, not when its first file is
written), one process at a time in a run's folder, and which command's run a folder holds (so that
no command writes in another's). Here, at the bottom of the layers, so that code
without PyTorch can use it."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

#: The signals a write holds back until it is done: Ctrl-C, and a plain ``kill``.
INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """Inside the block, SIGTERM (a plain ``kill``) raises ``KeyboardInterrupt`` as Ctrl-C does, so
    that a long run stopped either way ends through the same path (workers stopped, finished work
    kept, a "continue with --resume" line); the handler before it is put back after."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM (:data:`INTERRUPTS`) back until the block ends, then deliver the
    first that came to the handler that was in place: a write finishes before a run stops.

    Without it, an interrupt that lands inside ``torch.save`` makes PyTorch's zip writer fail on
    its way out (``RuntimeError: unexpected pos``), and the run ends with that traceback instead
    of its "continue with --resume" line. Only the main thread can set signal handlers, so
    elsewhere (and where a handler was not set from Python) the block runs as it is.
    """
    previous = {number: signal.getsignal(number) for number in INTERRUPTS}
    if threading.current_thread() is not threading.main_thread() or None in previous.values():
        yield
        return
    pending: list[int] = []
    for number in INTERRUPTS:
        signal.signal(number, lambda received, frame: pending.append(received))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if pending:
            signal.raise_signal(pending[0])


class WriteFailed(OSError):
    """A file the system would not write, or not whole (a full disk, a quota, a read-only mount):
    ``filename`` names it, ``strerror`` gives the system's reason, and ``note`` (added by a caller
    that knows) what was kept and how to go on. A run that meets one stops as an interruption
    does, its output so far kept, and says so in one line instead of a traceback."""

    def __init__(self, errno: int | None, strerror: str, filename: str, note: str = "") -> None:
        super().__init__(errno, strerror, filename)
        self.note = note

    @classmethod
    def of(cls, path: str | os.PathLike, error: OSError, note: str = "") -> WriteFailed:
        """The failure to write ``path`` that the system reported as ``error``."""
        return cls(error.errno, error.strerror or str(error), str(path), note)

    def noted(self, note: str) -> WriteFailed:
        """The same failure, with ``note`` saying what was kept and how to go on."""
        return WriteFailed(self.errno, self.strerror or "", self.filename, note)

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}" + (f"; {self.note}" if self.note else "")


@contextmanager
def writing(path: str | os.PathLike) -> Iterator[None]:
    """Inside the block (the writing of ``path``), a write the system refuses (an ``OSError``, or
    the error a writer raised while handling one: :func:`_refusal`) is a :class:`WriteFailed` naming
    ``path``; any other error passes unchanged."""
    try:
        yield
    except WriteFailed:
        raise
    except Exception as error:
        refusal = _refusal(error)
        if refusal is None:
            raise
        raise WriteFailed.of(path, refusal) from error


def _refusal(error: Exception) -> OSError | None:
    """The system's refusal behind ``error``, raised by a write: ``error`` itself, or the ``OSError``
    a ``RuntimeError`` was raised while handling (PyTorch's writer, whose stream refused, fails on
    its way out with "unexpected pos"); None for any other error (a bug is not a full disk)."""
    seen: BaseException | None = error
    while isinstance(seen, RuntimeError):
        seen = seen.__context__
    return seen if isinstance(seen, OSError) else None


def write_atomically(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> Path:
    """Have ``write`` fill a temporary file beside ``path``, flush it to disk and rename it over
    ``path``: a reader, or a run killed mid-write, never sees half a file; a Ctrl-C or SIGTERM
    during the write takes effect once the file is in place (:func:`interrupts_deferred`). A write
    the system refuses (a full disk) is a :class:`WriteFailed` naming ``path``, which is left as
    it was (the temporary file removed)."""
    with interrupts_deferred(), writing(path):
        return _write_atomically(Path(path), write)


def _write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> Path:
    """:func:`write_atomically`'s steps: the temporary file, its flush to disk, the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return path


def write_text_atomically(path: str | os.PathLike, text: str) -> Path:
    """:func:`write_atomically` of ``text`` in UTF-8."""
    return write_atomically(path, lambda stream: stream.write(text.encode("utf-8")))


def run_name_problem(name: str) -> str:
    """Why ``name`` cannot name a run's folder inside an output folder (empty when it can): it must
    be one folder name, so that the run stays inside (``/etc``, ``../x`` or ``a/b`` would not)."""
    bare = name.rstrip("/")  # a folder written as one ("runs/", as a shell completes it)
    if bare in ("", ".", "..") or Path(bare).name != bare or "\\" in bare:
        return f"{name!r} is not a folder name (no path: the run's folder goes inside the output folder)"
    return ""


def folder_problem(path: str | os.PathLike) -> str:
    """Why ``path`` cannot serve as an output folder, made if missing (empty when it can): the
    nearest part of it that exists must be a folder this process may write in."""
    existing = Path(path).absolute()
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"the folder {existing} cannot be written"
    return ""


#: The commands that write a run's folder, each with files (or folders) that its runs hold at their
#: top once begun and the others' never do: what tells one command's run from another's
#: (:func:`run_owners`). Here, below the commands, so that each knows the others' runs without
#: importing them (and PyTorch with the trainer).
RUN_FILES: dict[str, tuple[str, ...]] = {
    "train.py": ("checkpoints", "labels", "policy.pt"),
    "pinochle-arena": ("results.jsonl", "summary.json"),
    "pinochle-iterate": ("recipe.toml", "iterations.jsonl"),
}


def run_owners(folder: str | os.PathLike) -> list[str]:
    """The commands of :data:`RUN_FILES` whose files ``folder`` holds at its top (none for a folder
    that is missing, empty or no run's)."""
    return [command for command, names in RUN_FILES.items() if _held(folder, names)]


def _held(folder: str | os.PathLike, names: tuple[str, ...]) -> list[str]:
    """Those of ``names`` that are in ``folder`` (a path that cannot be looked at holds nothing)."""
    return [name for name in names if os.path.lexists(os.path.join(folder, name))]


def foreign_run_problem(folder: str | os.PathLike, command: str) -> str:
    """Why ``command`` (a key of :data:`RUN_FILES`) may not write in ``folder`` (empty when it may):
    the folder holds another command's run and none of ``command``'s own. Writing there would mix
    the two runs' files, and one command's resume or summary could write over the other's results
    (an arena's ``config.json`` beside a training run's ``config.toml``). A folder holding the
    command's own files stays its own, so that every command resumes its runs as before."""
    owners = run_owners(folder)
    if not owners or command in owners:
        return ""
    other = owners[0]
    return f"{folder} holds a {other} run ({', '.join(_held(folder, RUN_FILES[other]))}), not a {command} one"


#: The file in a run's folder that the process writing there holds locked (:func:`folder_held`).
LOCK_FILE = ".lock"


class FolderBusy(RuntimeError):
    """Another process holds the run's folder (:func:`folder_held`)."""


@contextmanager
def folder_held(folder: str | os.PathLike) -> Iterator[None]:
    """Hold ``folder`` (made if missing) for this process while the block runs, else raise
    :class:`FolderBusy`: two commands on one run (a ``--resume`` started while the run still goes,
    or twice at once) would each play what the other plays, appending the same results twice and
    writing over each other's checkpoints. The lock is the operating system's on ``.lock`` in the
    folder, so it goes with its process however that ends (a SIGKILL included); the file stays."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    stream = open(path / LOCK_FILE, "a+b")  # noqa: SIM115 (closed below, which releases the lock)
    try:
        try:
            _lock(stream.fileno())
        except OSError:
            raise FolderBusy(
                f"{path} is in use by another process (the same run started or resumed twice): "
                "wait for it to end, or stop it, then continue"
            ) from None
        yield
    finally:
        stream.close()


def _lock(descriptor: int) -> None:
    """Lock the open file ``descriptor`` without waiting (``OSError`` where another holds it)."""
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
