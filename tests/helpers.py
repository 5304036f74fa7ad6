"""Helpers and constants shared by test files in several folders (``from tests.helpers import ...``).

pytest puts the repository root on the import path (``pythonpath`` in pyproject.toml, as
``python -m pytest`` does anyway), so every test file, however deep, imports this module by that
name (``tests`` has no ``__init__.py``: it is no package of the project, and Python reads it as a
namespace package). Fixtures live in ``tests/conftest.py``; what is written here is plain
Python: the repository's folders, constants and small functions that several test files once held
each a copy of.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import decide
from agents.heuristic import HeuristicAgent
from pinochle_env import Game, Rules, new_game

#: The repository root (the checkout, or an unpacked sdist): what the tests read and run from.
ROOT = Path(__file__).resolve().parents[1]
#: Recorded data the tests replay (``tests/data/``, written by the scripts beside it).
DATA = ROOT / "tests" / "data"


# ---------------------------------------------------------------------------------------------- heuristic hands


def start_of_play(rules: Rules, seed: int) -> Game:
    """A heuristic hand at its first card (a played hand: the seed is moved on past thrown-in ones)."""
    while True:
        game = new_game(rules, np.random.default_rng(seed))
        agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
        while not game.hand_over and game.phase.decision != "play":
            game.apply(decide(agents[game.to_act], game))
        if not game.hand_over:
            return game
        seed += 1000


def after_auction(rules: Rules, seed: int) -> tuple[Game, list[HeuristicAgent]]:
    """A hand right after its auction, played so far by four heuristic bots with one seed (so
    one tie-break order, as the kernel's simulation uses)."""
    game = Game(rules, np.random.default_rng(seed))
    agents = [HeuristicAgent(seed) for _ in range(4)]
    while game.phase.decision == "auction":
        game.apply(decide(agents[game.to_act], game))
    return game, agents


def play_views(rules: Rules, seeds: range):
    """Views of the seat to act at card decisions of heuristic hands (every third one)."""
    for seed in seeds:
        game = start_of_play(rules, seed)
        agents = [HeuristicAgent(seed + s) for s in range(rules.num_seats)]
        count = 0
        while not game.hand_over:
            if count % 3 == 0:
                yield game, game.view(game.to_act)
            count += 1
            game.apply(decide(agents[game.to_act], game))
