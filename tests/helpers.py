"""Helpers and constants shared by test files in several folders (``from tests.helpers import ...``).

pytest puts the repository root on the import path (``pythonpath`` in pyproject.toml, as
``python -m pytest`` does anyway), so every test file, however deep, imports this module by that
name (``tests`` has no ``__init__.py``: it is no package of the project, and Python reads it as a
namespace package). What is written here is plain Python: the repository's folders, constants
and small functions that several test files once held each a copy of.
"""

from __future__ import annotations

from pathlib import Path

#: The repository root (the checkout, or an unpacked sdist): what the tests read and run from.
ROOT = Path(__file__).resolve().parents[1]
#: Recorded data the tests replay (``tests/data/``, written by the scripts beside it).
DATA = ROOT / "tests" / "data"
