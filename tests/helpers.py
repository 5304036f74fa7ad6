"""Helpers and constants shared by test files in several folders (``from tests.helpers import ...``).

pytest puts the repository root on the import path (``pythonpath`` in pyproject.toml, as
``python -m pytest`` does anyway), so every test file, however deep, imports this module by that
name (``tests`` has no ``__init__.py``: it is no package of the project, and Python reads it as a
namespace package). Fixtures live in ``tests/conftest.py``; what is written here is plain
Python: the repository's folders, constants and small functions that several test files once held
each a copy of.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from agents.base import decide
from agents.extras import install_hint
from agents.heuristic import HeuristicAgent
from pinochle_env import Game, Rules, new_game
from pinochle_env.engine import IllegalActionError
from pinochle_env.games.partnership.game import Phase
from pinochle_env.games.registry import GAMES

#: The repository root (the checkout, or an unpacked sdist): what the tests read and run from.
ROOT = Path(__file__).resolve().parents[1]


def load_example(script: str) -> ModuleType:
    """The example script ``examples/<script>.py`` imported as a module (its ``main`` not run):
    the examples are scripts, not a package."""
    spec = importlib.util.spec_from_file_location(f"{script}_example", ROOT / "examples" / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_example_without(script: str, module: str, extra: str, needs: str, monkeypatch, capsys) -> None:
    """Loading ``examples/<script>.py`` with ``module`` missing ends as the console scripts end
    without their extra: status 2 and one line, naming the script once (it said
    ``maskable_ppo.py: error: examples/maskable_ppo.py needs ...``), saying that it ``needs`` the
    module and how to install the extra."""
    monkeypatch.setitem(sys.modules, module, None)  # what a missing package looks like to import
    with pytest.raises(SystemExit) as raised:
        load_example(script)
    said = capsys.readouterr().err
    assert raised.value.code == 2  # a usage error
    assert said == f"{script}.py: error: this example needs {needs}; {install_hint(extra)}\n"
    assert f'pip install "pinochle-rl[{extra}]"' in said


#: Recorded data the tests replay (``tests/data/``, written by the scripts beside it).
DATA = ROOT / "tests" / "data"
#: Every game but the default one (whose generic behaviour most tests check): a game added to the
#: registry runs the tests parametrized on these without an edit.
OTHER_GAMES = tuple(name for name in GAMES if name != "partnership")
#: The seats of each game.
SEATS_OF = {name: len(game.teams) for name, game in GAMES.items()}
#: The deal of the rules' hand-record example (docs/rules.md; dealer 3).
S8_DEAL = [
    ["KS", "QS", "TH", "JH", "9H", "9H", "TD", "JD", "TC", "QC", "9C", "9C"],
    ["QS", "JS", "9S", "9S", "KH", "JH", "QD", "QD", "JD", "AC", "AC", "QC"],
    ["AS", "TS", "KS", "AH", "TH", "QH", "TD", "KD", "KD", "9D", "KC", "JC"],
    ["AS", "TS", "JS", "AH", "KH", "QH", "AD", "AD", "9D", "TC", "KC", "JC"],
]


# ---------------------------------------------------------------------------------------------- bots' hands

#: Rule sets covering every head_rule, simultaneous passing, 3 and 0 cards passed, every
#: throw-in mode, free raises, a low bid cap, and the other switches at least once.
BOT_RULES = {
    "default": Rules(),
    "highest_led-simultaneous": Rules(head_rule="highest_led", pass_mode="simultaneous"),
    "led_card-3-always": Rules(head_rule="led_card", pass_count=3, throw_in="always", counting="ak10_kq5"),
    "trump_lead_only-0-never": Rules(head_rule="trump_lead_only", pass_count=0, throw_in="never", must_overtrump=False),
    "none-any-300": Rules(
        head_rule="none", bid_raises="any", max_bid=300, pass_with_help=False, all_pass="redeal", run_extras="reuse"
    ),
    "classic-simultaneous-3": Rules(
        counting="classic",
        pass_mode="simultaneous",
        pass_count=3,
        save_meld="trick",
        save_meld_applies_to="both",
        run_extras="royal_in_run",
        target_score=500,
    ),
}


def play_hand(game: Game, agents: list) -> list[int]:
    """Play the hand in progress to its end with ``decide`` (which checks legality); the actions taken."""
    actions = []
    while not game.hand_over:
        action = decide(agents[game.to_act], game)
        game.apply(action)
        actions.append(action)
    return actions


def play_random(game, rng: np.random.Generator, stop=None, check=None) -> list[int]:
    """Random legal actions (``rng.choice`` of the legal ones) until the hand ends, or ``stop(game)``,
    calling ``check(game)`` before each; the actions taken. Any game's engine."""
    actions = []
    while not game.hand_over and not (stop is not None and stop(game)):
        if check is not None:
            check(game)
        actions.append(int(rng.choice(game.legal_actions())))
        game.apply(actions[-1])
    return actions


def replay_actions(rules: Rules, dealer: int, deal: list[list[int]], actions: list[int]) -> Game | None:
    """The game after ``actions`` on ``deal``, or None if one of them is illegal there."""
    game = Game(rules, np.random.default_rng(0), dealer=dealer, deal=deal)
    try:
        for action in actions:
            game.apply(action)
    except IllegalActionError:
        return None
    return game


# No hidden state: a deal that differs only in cards the seat cannot see gets the same decision.


def recorded_hand(rules: Rules, seed: int) -> tuple[Game, list[int], list[Phase]]:
    """A heuristic hand: the finished game, its actions and the phase of each."""
    game = Game(rules, np.random.default_rng(seed))
    agents = [HeuristicAgent(seed + s) for s in range(4)]
    actions, phases = [], []
    while not game.hand_over:
        phases.append(game.phase)
        actions.append(decide(agents[game.to_act], game))
        game.apply(actions[-1])
    return game, actions, phases


def hidden_swap(original: Game, at: Game, rng: np.random.Generator) -> list[list[int]] | None:
    """The deal with one card swapped between two seats other than the one to act (cards they still hold)."""
    others = [s for s in range(4) if s != at.to_act]
    a, b = (int(s) for s in rng.choice(others, 2, replace=False))
    deal = [list(hand) for hand in original.deal]
    held_a = [c for c in set(deal[a]) if at.hands[a][c]]
    held_b = [c for c in set(deal[b]) if at.hands[b][c] and c not in held_a]
    if not held_a or not held_b:
        return None
    x, y = int(rng.choice(held_a)), int(rng.choice(held_b))
    deal[a][deal[a].index(x)], deal[b][deal[b].index(y)] = y, x
    return deal


def check_same_decisions(make_agent, rules: Rules, seeds: range, points: int, phases=None) -> int:
    """Decisions at random points of recorded hands are unchanged by hidden swaps; how many were compared."""
    compared = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        original, actions, decided_in = recorded_hand(rules, seed)
        candidates = [k for k, phase in enumerate(decided_in) if phases is None or phase in phases]
        for k in rng.choice(candidates, min(points, len(candidates)), replace=False):
            at = replay_actions(rules, original.dealer, original.deal, actions[:k])
            for _ in range(6):
                deal = hidden_swap(original, at, rng)
                alt = replay_actions(rules, original.dealer, deal, actions[:k]) if deal else None
                if alt is None or alt.view(at.to_act) != at.view(at.to_act) or alt.hands == at.hands:
                    continue
                first, second = make_agent(seed), make_agent(seed)
                assert decide(first, at) == decide(second, alt), f"seed {seed}, decision {k}"
                compared += 1
    return compared


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
