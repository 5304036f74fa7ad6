"""The code base is ruff-clean (lint and format) and passes the type checker (mypy, configured in
``pyproject.toml``: strict on the typed interface and the generic layers), so neither style nor
types drift between commits."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess:
    executable = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return subprocess.run([executable, *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"])
def test_ruff_clean(args):
    result = _ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean():
    executable = shutil.which("mypy") or str(Path(sys.executable).with_name("mypy"))
    result = subprocess.run([executable], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
