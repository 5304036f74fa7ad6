"""Pool jobs for the arena's worker-failure tests (tests/agents/arena/test_arena.py).

The tests run them in a fresh interpreter whose spawned workers import them by name, so they live
in a module of their own that imports nothing but the standard library: not in the test module,
which would make every worker import pytest, NumPy and the test helpers first.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def _send_half_a_result() -> None:
    """In a pool worker: write the first bytes of a result message (a 1,000-byte message's first 4)
    to the worker's end of the pool's result pipe."""
    import struct

    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:  # concurrent.futures.process._process_worker's
        frame = frame.f_back
    pipe = frame.f_locals["result_queue"]._writer
    os.write(pipe.fileno(), struct.pack("!i", 1000) + b"half")


def die_halfway_through_sending(job: float) -> float:
    """A pool job that sends half a result and then kills its own worker: the moment at which
    SIGKILL left a run waiting for ever."""
    _send_half_a_result()
    os.kill(os.getpid(), signal.SIGKILL)
    return job


def send_half_then_wait(job: float) -> float:
    """A pool job whose first worker sends half a result and then waits, as a worker does while the
    reader drains a large result; the other only waits."""
    if job == 1.0:
        _send_half_a_result()
    time.sleep(60)
    return job


def wait_a_minute(job: float) -> float:
    """A pool job that only waits, as a long one plays."""
    time.sleep(60)
    return job
