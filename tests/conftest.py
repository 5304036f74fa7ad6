"""Fixtures shared by the whole suite; the plain helpers and constants are in ``helpers.py``
(``from tests.helpers import ...``).

- ``search_kernel``: the compiled search kernel, compiled (or loaded from numba's cache) once per
  run. A module that calls the kernel asks for it with
  ``pytestmark = pytest.mark.usefixtures("search_kernel")``, so that the first compilation of a
  fresh checkout (a minute or more) shows in that fixture's setup, not in whichever test called the
  kernel first.
- ``bundled_agent``: ``checkpoint:bundled``, greedy, loaded once per run and shared by the tests
  that play or question it.
- ``torch_threads`` (every test): PyTorch's thread count put back after a test that changed it (an
  example run in this process sets it), since a training run's results are bit-exact only for a
  given thread count and the trainer's tests compare runs in this process with runs in others.
- ``run_interrupts``: Ctrl-C and SIGTERM each raising ``KeyboardInterrupt``, as in ``train.py``
  (Ctrl-C too where the suite was started with it ignored, as a shell starts its background jobs),
  the handlers before them put back after the test.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def search_kernel() -> None:
    """Every entry point of the game's kernel and the search wing's, compiled or loaded from numba's
    cache (:func:`agents.search.kernel.compile_search_kernel`)."""
    from agents.search.kernel import compile_search_kernel

    compile_search_kernel()


@pytest.fixture(scope="session")
def bundled_agent():
    """The bundled agent, ``load_agent("checkpoint:bundled", seed=0)``: greedy, so its seed never
    matters, and it turns to the policy of whatever game it is asked about (every ``act``,
    ``probabilities`` and ``check_rules`` picks the game's policy first), so tests can share it.
    A test that needs ``sample=true`` or another seed loads its own."""
    from agents.registry import load_agent

    return load_agent("checkpoint:bundled", seed=0)


@pytest.fixture(autouse=True)
def torch_threads() -> Iterator[None]:
    """PyTorch's intra-op thread count as it was before the test (where PyTorch is loaded)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None and before is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)


@pytest.fixture
def run_interrupts() -> Iterator[None]:
    """Ctrl-C and SIGTERM raising ``KeyboardInterrupt`` during the test, as in ``train.py``
    (:func:`pinochle_env.files.sigterm_as_ctrl_c`)."""
    from pinochle_env.files import sigterm_as_ctrl_c

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    with sigterm_as_ctrl_c():
        yield
    signal.signal(signal.SIGINT, previous)
