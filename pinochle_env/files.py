"""Output files: writing one whole or not at all (what the trainer's checkpoints and labels and the
arena's ``config.json`` are written with, so that a process killed in the middle of a write never
leaves a file that cannot be read), and whether an output folder can be made (checked before a run
starts, not when its first file is written). Here, at the bottom of the layers, so that code
without PyTorch can use it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> Path:
    """Have ``write`` fill a temporary file beside ``path``, flush it to disk and rename it over
    ``path``: a reader, or a run killed mid-write, never sees half a file."""
    path = Path(path)
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
