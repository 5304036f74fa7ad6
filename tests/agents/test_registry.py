"""Agent specs (``agents.registry.load_agent``): parameters parsed and refused by name, checkpoint
files refused when missing or unreadable, and PyTorch's absence said plainly."""

from __future__ import annotations

import sys

import pytest

from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from agents.search.pimc import PIMCAgent


def test_load_agent_specs_and_parameters(tmp_path, monkeypatch):
    heuristic = load_agent("heuristic:aggression=1.2,help_meld=80", seed=1)
    assert isinstance(heuristic, HeuristicAgent) and heuristic.aggression == 1.2 and heuristic.help_meld == 80
    pimc = load_agent("pimc:samples=8,budget=0.5")
    assert isinstance(pimc, PIMCAgent) and (pimc.samples, pimc.budget) == (8, 0.5)
    with pytest.raises(ValueError, match="parameters: aggression, help_meld"):
        load_agent("heuristic:boldness=2")
    with pytest.raises(ValueError, match="parameters: evaluate, samples, budget"):
        load_agent("pimc:samples=8,depth=2")
    with pytest.raises(ValueError, match="not found"):
        load_agent(f"checkpoint:{tmp_path / 'missing.pt'}")
    saved = tmp_path / "policy.pt"
    saved.write_bytes(b"")  # an empty file: refused as unreadable, naming the file
    with pytest.raises(ValueError, match=r"policy\.pt is not a readable checkpoint"):
        load_agent(f"checkpoint:{saved},sample=true")
    with pytest.raises(ValueError, match="parameters: sample"):
        load_agent(f"checkpoint:{saved},greedy=true")
    assert load_agent("checkpoint:bundled,sample=true", seed=1).sample
    monkeypatch.setitem(sys.modules, "torch", None)  # PyTorch missing: said plainly
    with pytest.raises(ImportError, match="needs PyTorch"):
        load_agent(f"checkpoint:{saved}")
