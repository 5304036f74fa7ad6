"""The notebooks in notebooks/ run from top to bottom and show what their text promises.

They are stored with their outputs (``python notebooks/regenerate.py`` makes them), so that they
show their tables and plots when browsed. Each is executed here afresh in a fresh ``python3``
kernel (ipykernel, from the dev extras: the kernel runs this interpreter) with small budgets set
through its ``PINOCHLE_NB_*`` environment variables and the working directory in ``tmp_path``, so
nothing is written into the repository. The second and third notebooks need the bundled agent:
when ``agents/bundled/pinochle_ppo.pt`` is missing their tests fail, naming the file, rather than
skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import pinochle_env
from agents.neural.agent import BUNDLED
from tests.helpers import ROOT

NOTEBOOKS = ROOT / "notebooks"
TOUR = NOTEBOOKS / "01_environment_tour.ipynb"
AGENTS = NOTEBOOKS / "02_agents_and_training.ipynb"
OWN = NOTEBOOKS / "03_own_agents_and_data.ipynb"


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


def test_every_notebook_is_tested():
    assert sorted(NOTEBOOKS.glob("*.ipynb")) == sorted([TOUR, AGENTS, OWN])


@pytest.mark.parametrize("path", [TOUR, AGENTS, OWN], ids=lambda path: path.stem)
def test_notebook_stored_with_its_outputs(path):
    """Every code cell ran, in order, and the notebook shows what it printed and plotted."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored as one run from the top (execution counts {counts}): "
        "python notebooks/regenerate.py " + path.name
    )
    assert not [output for cell in code for output in cell.outputs if output["output_type"] == "error"]
    assert sum(bool(cell.outputs) for cell in code) >= len(code) // 2, f"{path.name} shows little output"
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    shown = "".join(str(output) for cell in code for output in cell.outputs)
    developer_paths = [str(ROOT), str(Path.home()) + "/"]  # a temporary run folder may show: it says nothing
    assert not [where for where in developer_paths if where in shown], (
        f"{path.name} shows where the repository lies on the machine it ran on: print paths relative to it"
    )


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


def _require_bundled(notebook: Path) -> None:
    assert BUNDLED.is_file(), (
        f"{BUNDLED} is missing: {notebook.name} plays the bundled agent (checkpoint:bundled). Ship the trained "
        "policy there (copy a run's policy.pt, e.g. after python train.py --config default); this test fails "
        "rather than skips without it"
    )


def test_agents_and_training(tmp_path, monkeypatch):
    _require_bundled(AGENTS)
    out = tmp_path / "out"
    env = {
        "PINOCHLE_NB_DEALS": "4",
        "PINOCHLE_NB_UPDATES": "2",
        "PINOCHLE_NB_DECISIONS": "400",
        "PINOCHLE_NB_OUT": str(out),
        "PINOCHLE_NB_RUN": "",
    }
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


def test_agents_and_training_explains_a_bad_run_directory_and_leaves_no_temporary_folder(tmp_path, monkeypatch):
    """A relative PINOCHLE_NB_RUN that names no run is refused naming the paths it tried (beside the
    notebook and under the repository root); without PINOCHLE_NB_OUT its outputs went to a temporary
    folder, which is gone when the kernel is."""
    _require_bundled(AGENTS)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    env = {"PINOCHLE_NB_DEALS": "1", "PINOCHLE_NB_OUT": "", "PINOCHLE_NB_RUN": "runs/no-such-run"}
    with pytest.raises(Exception, match="is not a training run directory") as error:
        _execute(AGENTS, tmp_path, monkeypatch, **env)
    assert str(ROOT / "runs" / "no-such-run") in str(error.value)
    assert str(tmp_path / "runs" / "no-such-run") in str(error.value)
    assert not list((tmp_path / "tmp").glob("pinochle-notebook-*")), "the notebook left its temporary folder behind"


def test_own_agents_and_data(tmp_path, monkeypatch):
    _require_bundled(OWN)
    env = {"PINOCHLE_NB_DEALS": "4", "PINOCHLE_NB_STEPS": "40", "PINOCHLE_NB_HANDS": "12"}
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    text = _text(_execute(OWN, tmp_path, monkeypatch, **env))
    assert "highcard:prefer_trump=false prefer_trump = False" in text  # registered, with a typed parameter
    assert "highcard vs random over 4 deal pairs:" in text  # played in the arena
    assert "hands; team margin per hand" in text  # the training loop on BatchedGames ran
    assert "'observation': (" in text and "decisions with a choice" in text  # to_arrays
    assert "agreement with the heuristic:" in text
    assert "the policy's top choices:" in text and "the agent plays:" in text
    assert not list((tmp_path / "tmp").glob("pinochle-notebook-*")), "the notebook left its temporary folder behind"
    assert [path.name for path in tmp_path.iterdir()] == ["tmp"], "the notebook wrote into its working directory"
