"""What the arena and the trainer share about where work runs: CPUs, Ray, durations, the code version.

(The trainer imports these from here: it sits above the agents and may use them, while nothing
here imports the trainer.)
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import subprocess
from pathlib import Path
from typing import Any

from ..extras import require_extra

#: Where jobs run: ``local`` (this process or a process pool) or ``ray`` (Ray tasks or actors on a cluster).
BACKENDS = ("local", "ray")


def usable_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the system has one, as in containers)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def format_duration(seconds: float) -> str:
    """Seconds as H:MM:SS ('?' when unknown)."""
    if seconds == float("inf"):
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def import_ray() -> Any:
    """The ``ray`` module, imported on first use: the local backend never needs Ray."""
    require_extra("ray", "the ray backend")
    import ray

    return ray


def connect_ray(address: str) -> Any:
    """Ray, connected to the cluster at ``address`` (``auto`` or HOST:PORT) or, when empty, to a new
    local instance. A process connects once: later calls (the trainer's rollouts, then its
    evaluations) reuse the first connection."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address or "local", logging_level=logging.WARNING)
    return ray


#: The source tree's root, above the ``agents`` package (a git checkout's top level in a clone;
#: site-packages when installed).
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def code_version() -> dict[str, Any]:
    """What code is running: the package version, and in a git clone its commit and whether tracked
    files differ from it (``git_dirty``). Only a repository whose top level is this source tree
    counts, so an installed package inside someone else's repository reports no commit."""
    try:
        version = importlib.metadata.version("pinochle-rl")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    found: dict[str, Any] = {"package_version": version}
    try:
        head = _git("rev-parse", "--show-toplevel", "HEAD").split()
        if len(head) == 2 and Path(head[0]).resolve() == SOURCE_ROOT:
            found["git_commit"] = head[1]
            found["git_dirty"] = bool(_git("status", "--porcelain", "--untracked-files=no").strip())
    except (OSError, subprocess.SubprocessError):  # no git, or not a repository
        pass
    return found


def _git(*args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(SOURCE_ROOT), *args], capture_output=True, text=True, timeout=20, check=True
    )
    return result.stdout


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
