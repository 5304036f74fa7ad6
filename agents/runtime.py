"""What the arena and the trainer share about where work runs: CPUs, Ray, durations.

(The trainer imports these from here: it sits above the agents and may use them, while nothing
here imports the trainer.)
"""

from __future__ import annotations

import logging
import os
from typing import Any

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
    try:
        import ray
    except ImportError:
        raise ImportError('the ray backend needs Ray: pip install -e ".[ray]"') from None
    return ray


def connect_ray(address: str) -> Any:
    """Ray, connected to the cluster at ``address`` (``auto`` or HOST:PORT) or, when empty, to a new
    local instance. A process connects once: later calls (the trainer's rollouts, then its
    evaluations) reuse the first connection."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address or "local", logging_level=logging.WARNING)
    return ray
