"""numba's on-disk cache of the kernel stays right when any kernel source changes, and the first
compilation says so before it starts, whatever called the kernel (pinochle_env/kernel/compiling.py).

numba keys a cached function on its own source file only: a caller in one file keeps its compiled
copy of a callee in another file after the callee's file changed. The kernel packages import their
modules inside ``kernel_cache``, whose directory is named after a hash of every kernel source, so
the change makes a new directory and everything compiles afresh. A toy kernel of two files shows
it in fresh interpreters, as a new run on the same machine would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from pinochle_env.kernel import COMPILING_MESSAGE
from tests.helpers import ROOT

TOY_PACKAGE = """
from pathlib import Path

from pinochle_env.kernel.compiling import kernel_cache, watch_compiles

FOLDER = Path(__file__).resolve().parent
watch_compiles(__name__)
with kernel_cache(FOLDER, [FOLDER]):
    from . import caller, callee
"""
CALLER = """
from numba import njit

from .callee import base


@njit(cache=True)
def value():
    return base() + 1
"""
CALLEE = """
from numba import njit


@njit(cache=True)
def base():
    return {base}
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter that finds the toy package, with its own numba cache root."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)


def test_a_callee_changed_in_another_file_compiles_its_caller_afresh(tmp_path: Path) -> None:
    package = tmp_path / "toy_kernel"
    package.mkdir()
    (package / "__init__.py").write_text(TOY_PACKAGE, encoding="utf-8")
    (package / "caller.py").write_text(CALLER, encoding="utf-8")
    (package / "callee.py").write_text(CALLEE.format(base=1), encoding="utf-8")
    code = "import toy_kernel; print(toy_kernel.caller.value())"

    first = _run(code, tmp_path)
    assert first.stdout.strip() == "2" and COMPILING_MESSAGE in first.stderr
    again = _run(code, tmp_path)  # nothing changed: loaded from the cache, so nothing to announce
    assert again.stdout.strip() == "2" and COMPILING_MESSAGE not in again.stderr, again.stderr
    (package / "callee.py").write_text(CALLEE.format(base=10), encoding="utf-8")
    changed = _run(code, tmp_path)  # a stale caller would still return 2
    assert changed.stdout.strip() == "11" and COMPILING_MESSAGE in changed.stderr
    versions = list((tmp_path / "cache").glob("kernel-*/toy_kernel_*"))
    assert len(versions) == 2  # one cache directory per version of the sources


UNCACHED = """
from numba import njit


@njit(cache=False)
def three():
    return 3
"""


def test_a_function_compiled_on_every_run_says_nothing(tmp_path: Path) -> None:
    """A kernel function numba does not cache (as the recursive ``minimax`` reference) compiles on
    every run: the message, which says "first run only", came on every run of the kernel sweep."""
    package = tmp_path / "toy_kernel"
    package.mkdir()
    (package / "__init__.py").write_text(
        TOY_PACKAGE.replace("caller, callee", "caller, callee, uncached"), encoding="utf-8"
    )
    (package / "caller.py").write_text(CALLER, encoding="utf-8")
    (package / "callee.py").write_text(CALLEE.format(base=1), encoding="utf-8")
    (package / "uncached.py").write_text(UNCACHED, encoding="utf-8")
    code = "import toy_kernel; print(toy_kernel.caller.value(), toy_kernel.uncached.three())"

    first = _run(code, tmp_path)
    assert first.stdout.split() == ["2", "3"] and first.stderr.count(COMPILING_MESSAGE) == 1, first.stderr
    again = _run(code, tmp_path)  # the cached function loads, the other compiles again
    assert again.stdout.split() == ["2", "3"] and COMPILING_MESSAGE not in again.stderr, again.stderr


def test_the_kernel_caches_elsewhere_without_changing_other_numba_code(tmp_path: Path) -> None:
    """The cache directory is set only while the kernel's modules are decorated: numba code of the
    user's own keeps numba's setting."""
    code = textwrap.dedent(
        """
        from numba.core import config
        before = config.CACHE_DIR
        import pinochle_env.kernel, agents.search.kernel
        print(repr(before), repr(config.CACHE_DIR))
        """
    )
    shown = _run(code, tmp_path).stdout.split()
    assert shown[0] == shown[1], shown


def test_the_first_solve_says_it_compiles_before_it_does(tmp_path: Path) -> None:
    """From a cold cache, ``solve`` (which does not go through ``compile_kernel``) prints the message
    before its result: on standard error as the compilation starts."""
    code = textwrap.dedent(
        """
        import sys
        from pinochle_env.kernel import solve
        from pinochle_env.kernel.solver import end_positions
        from pinochle_env.rules.switches import Rules
        game = next(end_positions(Rules(), 1, seed=0, most_tricks=1))
        print("solved", solve(game).card, file=sys.stderr)
        """
    )
    lines = _run(code, tmp_path).stderr.splitlines()
    assert lines[0] == COMPILING_MESSAGE and lines[-1].startswith("solved "), lines
    assert np.sum([line == COMPILING_MESSAGE for line in lines]) == 1
