"""The code base is ruff-clean (lint and format), so style never drifts between commits."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    executable = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return subprocess.run([executable, *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"])
def test_ruff_clean(args):
    result = _ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr
