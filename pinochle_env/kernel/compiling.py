"""Compiling the search kernel once per machine, with numba's on-disk cache kept right by construction.

numba's cache (``cache=True``) keys a compiled function on its own source file only, so a jitted
function that calls one in another file would keep a stale copy of its callee after the callee's
file changed. Each kernel package (the game's, :mod:`pinochle_env.kernel.compiled`, and the search
wing's, :mod:`agents.search.kernel.compiled`) therefore imports its modules inside
:func:`kernel_cache`, which points numba's cache at a directory named after a hash of the sources
of every kernel module the package can reach: change any of them and the next run compiles afresh,
into a new directory. The directories sit under ``NUMBA_CACHE_DIR`` where that is set, else in the
kernel package's own ``__pycache__`` (as numba's default cache does) where it can be written, else
in the user's cache folder (``~/.cache/pinochle-rl``); one is about 8 MB. Delete them freely: the
next run compiles again.

The first compilation in a process prints :data:`COMPILING_MESSAGE` on standard error as it
starts, whatever called the kernel (:func:`watch_compiles`: a numba event listener); a cached
function only loads, which prints nothing. A function numba does not cache (the recursive
reference ``minimax``, under a second) compiles on every run, and its compilation prints nothing
either: the message's "first run only" would not hold for it. :func:`compile_kernel` compiles (or
loads) every entry point of the game's kernel up front, as a driver does before it starts worker
processes, so that the workers only load.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from numba.core import config, event

COMPILING_MESSAGE = "compiling the search kernel (first run only)"
#: Prefix of the cache directories, one per hash of the kernel sources.
CACHE_PREFIX = "kernel-"


def source_hash(folders: Sequence[Path]) -> str:
    """A hash of the names and contents of every Python source in ``folders``, in a stable order."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(Path(folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root(package: Path) -> Path:
    """Where the cache directories of the kernel package in folder ``package`` go (see the module
    docstring)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given)
    in_tree = package / "__pycache__"
    with contextlib.suppress(OSError):
        in_tree.mkdir(exist_ok=True)
        if os.access(in_tree, os.W_OK):
            return in_tree
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pinochle-rl"


@contextlib.contextmanager
def kernel_cache(package: Path, sources: Sequence[Path]) -> Iterator[Path]:
    """Import the jitted modules of the kernel package in folder ``package`` inside this block:
    their cache goes to a directory keyed on the hash of ``sources`` (the package's folder and every
    kernel folder it calls into), which the block yields.

    numba picks a function's cache directory when the function is decorated, from
    ``numba.config.CACHE_DIR``; the setting is restored on leaving, so that other numba code in the
    process caches where it would have.
    """
    folder = cache_root(package) / f"{CACHE_PREFIX}{source_hash(sources)}"
    previous = config.CACHE_DIR  # type: ignore[attr-defined]  # numba sets its settings at run time
    config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    try:
        yield folder
    finally:
        config.CACHE_DIR = previous  # type: ignore[attr-defined]


class _CompileNotice(event.Listener):
    """Prints :data:`COMPILING_MESSAGE` once per process, when a function of a watched module that
    numba caches starts compiling (one it does not cache compiles on every run: no message)."""

    def __init__(self) -> None:
        self.packages: list[str] = []
        self.said = False

    def on_start(self, ev: event.Event) -> None:
        dispatcher = ev.data["dispatcher"]
        module = getattr(dispatcher.py_func, "__module__", "") or ""
        cached = dispatcher.stats.cache_path is not None  # None: numba's NullCache, cache=False
        if not self.said and cached and module.startswith(tuple(self.packages)):
            self.said = True
            print(COMPILING_MESSAGE, file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


_NOTICE = _CompileNotice()


def watch_compiles(package: str) -> None:
    """Announce compilations of the functions of ``package`` (a module name prefix)."""
    if not _NOTICE.packages:
        event.register("numba:compile", _NOTICE)
    if package not in _NOTICE.packages:
        _NOTICE.packages.append(package)
