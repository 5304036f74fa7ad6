"""The notebooks in notebooks/ run from top to bottom and show what their text promises.

Each notebook is executed in a fresh ``python3`` kernel (ipykernel, from the dev extras: the
kernel runs this interpreter) with small budgets set through its ``PINOCHLE_NB_*`` environment
variables and the working directory in ``tmp_path``, so nothing is written into the repository.
The second notebook needs the bundled agent: when ``agents/bundled/pinochle_ppo.pt`` is missing
its test fails, naming the file, rather than skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import pinochle_env
from agents.neural.agent import BUNDLED

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TOUR = NOTEBOOKS / "01_environment_tour.ipynb"
AGENTS = NOTEBOOKS / "02_agents_and_training.ipynb"


def _execute(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> nbformat.NotebookNode:
    """``path`` executed in a fresh kernel whose environment holds ``env`` and whose cwd is ``tmp_path``."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # The kernel imports this checkout, and draws figures with the inline backend (PNG outputs) even
    # where the caller's environment selects another matplotlib backend.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = nbformat.read(path, as_version=4)
    resources = {"metadata": {"path": str(tmp_path)}}  # the kernel's working directory
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources=resources).execute()
    return notebook


def _text(notebook: nbformat.NotebookNode) -> str:
    """Every printed stream and plain-text result of the executed notebook, in order."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                parts.append(output["text"])
            elif "data" in output:
                parts.append(output["data"].get("text/plain", ""))
    return "\n".join(parts)


def _images(notebook: nbformat.NotebookNode) -> list[str]:
    return [
        output["data"]["image/png"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "data" in output and "image/png" in output["data"]
    ]


@pytest.mark.parametrize("path", [TOUR, AGENTS], ids=lambda path: path.stem)
def test_notebook_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code), (
        f"{path.name} is stored with outputs; strip them (outputs [] and execution_count null)"
    )
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_environment_tour(tmp_path, monkeypatch):
    notebook = _execute(TOUR, tmp_path, monkeypatch)
    text = _text(notebook)
    raw = pinochle_env.env().unwrapped
    assert f"describe(0) = {raw.describe(0)}" in text  # one entry named
    assert raw.describe().splitlines()[1] in text  # the table of pieces
    assert "phase: auction" in text  # the deal, rendered before any action
    assert "player_2: bid 250" in text  # the auction, with action_to_string
    assert "meld player 3:" in text  # the meld, rendered
    assert "last trick (led by p" in text  # a trick, rendered
    assert "starts with the acting player's observation: True" in text  # state()
    assert "hand result:" in text  # the hand played out
    assert "agents: ['player_0', 'player_1']  actions: 43" in text  # the two-handed game
    assert "after trick" in text and " melds " in text  # its meld turns, from the hand record
    assert not list(tmp_path.iterdir()), "the tour writes no files"


def test_agents_and_training(tmp_path, monkeypatch):
    assert BUNDLED.is_file(), (
        f"{BUNDLED} is missing: {AGENTS.name} plays the bundled agent (checkpoint:bundled). Ship the trained "
        "policy there (copy a run's policy.pt, e.g. after python train.py --config default); this test fails "
        "rather than skips without it"
    )
    out = tmp_path / "out"
    env = {"PINOCHLE_NB_DEALS": "4", "PINOCHLE_NB_UPDATES": "2", "PINOCHLE_NB_OUT": str(out), "PINOCHLE_NB_RUN": ""}
    notebook = _execute(AGENTS, tmp_path, monkeypatch, **env)
    text = _text(notebook)
    assert "checkpoint:bundled <- " in text
    assert "margin per hand" in text  # the evaluation table
    assert "checkpoint:bundled, 4 deal pairs per opponent" in text
    table = text[text.index("margin per hand") :].splitlines()
    assert table[1].split()[:2] == ["heuristic", "4"] and table[2].split()[:2] == ["random", "4"]
    assert "entropy/all" in text and "decisions_per_s" in text  # the run's scalar tags
    assert len(_images(notebook)) == 2  # the deal-pair margins and the training scalars
    for opponent in ("heuristic", "random"):
        assert (out / "arena" / opponent / "results.jsonl").is_file()
    assert (out / "runs" / "nb" / "policy.pt").is_file()
