"""Execute the notebooks with their default budgets and store them with their outputs.

The notebooks are committed with outputs, so that they show their tables and plots when browsed;
run this after a change that alters what they show (the bundled agent, the trainer, the env):

    python notebooks/regenerate.py                 # every notebook (a few minutes on 2 cores)
    python notebooks/regenerate.py 02_agents_and_training.ipynb

Each runs in a fresh ``python3`` kernel whose working directory is a temporary folder, with this
checkout first on its path; outputs need not match byte for byte from one run to the next (timings,
throughput), and the tests execute the notebooks afresh with small budgets whatever is stored.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def regenerate(path: Path) -> float:
    """Execute ``path`` and write it back with its outputs; the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    os.environ.pop("MPLBACKEND", None)  # the inline backend: plots become PNG outputs
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pinochle-notebook-") as folder:
        client = NotebookClient(
            notebook, timeout=3600, kernel_name="python3", record_timing=False, resources={"metadata": {"path": folder}}
        )
        client.execute()
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="notebook file names in notebooks/ (default: all)")
    args = parser.parse_args(argv)
    paths = [HERE / name for name in args.notebooks] or sorted(HERE.glob("*.ipynb"))
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    for path in paths:
        print(f"{path.name}: executing", file=sys.stderr, flush=True)
        print(f"{path.name}: stored with outputs ({regenerate(path):.0f} s)", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
