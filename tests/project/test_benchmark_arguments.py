"""The benchmark scripts refuse a bad command line in one line (exit 2) before measuring anything:
a traceback, or a run that records garbage (``--cap nan`` did), is no answer to a typing mistake."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.parametrize(
    ("script", "argv", "message"),
    [
        ("pimc_profile.py", ["--spec", "bogus"], "unknown agent 'bogus'"),
        ("pimc_profile.py", ["--rule", "bogus=1"], "bad --rule 'bogus=1'"),
        ("pimc_profile.py", ["--seed", "-1"], "--seed at least 0"),
        ("solver_speed.py", ["--cap", "nan", "--dry-run"], "a finite --cap > 0"),
        ("learning_curve.py", ["--seeds", "0", "-1"], "config seed=-1 must be in"),
        ("learning_curve.py", ["--opponents", "bogus"], "bad agent spec 'bogus'"),
        ("main_job.py", ["--keep", "{file}", "--dry-run"], "is not a folder"),
    ],
)
def test_a_bad_command_line_is_refused_before_anything_runs(tmp_path, script, argv, message):
    (tmp_path / "file").write_text("not a folder")
    arguments = [arg.format(file=tmp_path / "file") for arg in argv]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
