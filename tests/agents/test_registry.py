"""Agent specs (``agents.registry.load_agent``): parameters parsed and refused by name, checkpoint
files refused when missing or unreadable, and PyTorch's absence said plainly."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from agents.base import legal_mask
from agents.heuristic import HeuristicAgent
from agents.registry import load_agent
from agents.search.pimc import PIMCAgent
from pinochle_env import Game, Rules


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


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mix:play=heuristic,play=random,default=random", "mix phase play is given twice"),
        ("mix:bid=heuristic,auction=random,default=random", "mix phase auction is given twice"),
        ("pimc:samples=2,samples=3", "parameter samples of agent 'pimc' is given twice"),
        ("pimc:budget=nan", "parameter budget='nan' of agent 'pimc' is not a finite number"),
        ("pimc:budget=inf", "is not a finite number"),
        ("heuristic:aggression=nan", "parameter aggression='nan' of agent 'heuristic' is not a finite number"),
        ("heuristic:aggression=-1", "heuristic parameter aggression must be a number > 0, got -1.0"),
        ("heuristic:help_meld=-5", "heuristic parameter help_meld must be a number >= 0, got -5"),
        ("heuristic:partner_value=-90", "heuristic parameter partner_value must be a number >= 0"),
        ("guided:prior=nan", "is not a finite number"),
        ("pimc:samples", "parameter samples of agent 'pimc' has no value: write samples=VALUE"),
        (None, "an agent spec is text"),
    ],
)
def test_repeated_and_out_of_range_parameters_are_refused(spec, message):
    """A repeated mix phase was taken silently (the last one won, under a name that showed the first),
    nan and negative parameters played on: pimc:budget=nan halved the sampling, aggression=nan never bid."""
    with pytest.raises(ValueError, match=re.escape(message)):
        load_agent(spec)


def test_a_bad_seed_is_refused_by_name():
    """numpy's 'expected non-negative integer' named neither the seed nor the agent."""
    for seed in (-1, True, 1.5):
        with pytest.raises(ValueError, match=re.escape(f"seed must be None or a whole number >= 0, got {seed!r}")):
            load_agent("heuristic", seed)


@pytest.mark.parametrize("spec", ["random", "heuristic", "pimc:samples=2", "checkpoint:bundled"])
def test_an_agent_asked_with_a_mask_that_is_no_mask_says_so(spec):
    """With an all-zero mask heuristic and pimc answered pass and the network action 0; with a mask of
    50 entries the bots played on and the network failed inside PyTorch."""
    game = Game(Rules(), np.random.default_rng(0))
    view, agent = game.view(game.to_act), load_agent(spec, 0)
    with pytest.raises(ValueError, match="the legal mask allows no action"):
        agent.act(view, np.zeros(game.layout.size, np.int8))
    with pytest.raises(ValueError, match=r"one entry per action id \(108\), got shape \(50,\)"):
        agent.act(view, np.ones(50, np.int8))
    assert agent.act(view, list(legal_mask(game))) in game.legal_actions()  # a list is a mask too
