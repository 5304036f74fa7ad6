"""The games are plug-ins: generic code asks a game's kit and never names a game.

No module outside ``pinochle_env/games/`` compares a variant with a game's name or keys a table on
game names: a game's name appears there only in prose (docstrings) and in the few public values
listed in :data:`ALLOWED` (each with why). Adding a game is then a new folder and one registry entry
(docs/adding_a_variant.md), and every declaration the generic layers read is checked here.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil

import numpy as np
import pytest

import pinochle_env
from agents.heuristic import HeuristicAgent
from agents.heuristic.games import heuristic_rules
from agents.search.kernel import POLICIES
from agents.terminal.tables import Table
from pinochle_env import Rules
from pinochle_env.games.kit import margins, variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.kernel import SearchAdapter, adapter_for
from tests.helpers import ROOT

PACKAGES = ("pinochle_env", "agents", "pinochle_train", "pinochle_web")
#: (file, game name) -> why the name may stand there as a value.
ALLOWED = {
    ("pinochle_train/config.py", "partnership"): "the config value features = 'partnership' names the "
    "partnership game's derived features (its Literal choices, and the policy head that needs them)",
    ("agents/neural/features.py", "partnership"): "the same public value, as a checkpoint records it",
}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module and its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def game_names_in_code() -> list[tuple[str, int, str]]:
    """(file, line, name) of every string constant equal to a game's name outside the games' folder."""
    names = set(GAMES)
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith("pinochle_env/games/"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value in names and id(node) not in skip:
                    found.append((relative, node.lineno, node.value))
    return found


def test_no_module_outside_the_games_names_a_game():
    unexplained = [f"{path}:{line}: {name!r}" for path, line, name in game_names_in_code()
                   if (path, name) not in ALLOWED]  # fmt: skip
    assert not unexplained, "generic code names games (ask the game's kit instead):\n" + "\n".join(unexplained)
    assert {(path, name) for path, _, name in game_names_in_code()} == set(ALLOWED), "an allowance no longer used"


def test_the_check_finds_a_game_name_where_there_is_one(tmp_path, monkeypatch):
    """The search would see a comparison or a table key (and not a docstring)."""
    package = tmp_path / "agents"
    package.mkdir()
    (package / "bad.py").write_text(
        '"""A docstring may say cutthroat."""\nSIZES = {"cutthroat": 3}\n', encoding="utf-8"
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert game_names_in_code() == [("agents/bad.py", 2, "cutthroat")]


@pytest.mark.parametrize("variant", list(GAMES))
def test_every_game_declares_what_the_generic_layers_read(variant):
    """The kit's references resolve: the search adapter, the heuristic's rules, the terminal and web
    tables; and what they declare holds together."""
    rules = Rules(variant=variant)
    kit = variant_kit(rules)
    assert kit.description and kit.layout.size > 0
    adapter = adapter_for(rules)
    assert isinstance(adapter, SearchAdapter)
    assert 0 < adapter.solve_from <= adapter.total_tricks
    game = kit.new_game(np.random.default_rng(0))
    assert len(game.deal[0]) == adapter.hand_size  # the cards dealt each seat
    module = heuristic_rules(rules)
    assert callable(module.act) and module.PLAY_OUT_POLICY in POLICIES and isinstance(module.COMPILED_BIDDING, bool)
    assert issubclass(pkgutil.resolve_name(kit.terminal_table), Table)
    assert callable(pkgutil.resolve_name(kit.web_table))
    assert importlib.import_module(kit.heuristic) is module
    view = game.view(game.to_act)
    legal = game.legal_actions()
    mask = np.zeros(kit.layout.size, dtype=np.int8)
    mask[legal] = 1
    assert HeuristicAgent(0).act(view, mask) in legal  # the heuristic plays the game through its module


# ---------------------------------------------------------------------------------------------- every game


@pytest.mark.parametrize("variant", list(GAMES))
@pytest.mark.parametrize("max_bid", [500, 1000])
def test_each_kit_declares_the_action_layout_its_engine_plays(variant, max_bid):
    """The generic layers read a game's actions from its kit (no throwaway game); the engine agrees."""
    applies = GAMES[variant].switches is None or "max_bid" in GAMES[variant].switches
    rules = Rules(variant=variant, **({"max_bid": max_bid} if applies else {}))
    kit = variant_kit(rules)
    game = kit.new_game(np.random.default_rng(0))
    assert kit.layout == game.layout and kit.layout.size == game.layout.size
    assert pinochle_env.env(**rules.to_dict()).action_space("player_0").n == kit.layout.size


def test_partnership_engine_refuses_a_variant_rule_set():
    with pytest.raises(ValueError, match=r"use pinochle_env\.new_game"):
        pinochle_env.Game(Rules(variant="cutthroat"))


@pytest.mark.parametrize("variant", list(GAMES))
def test_engines_refuse_rules_and_generators_of_another_type(variant):
    """new_game("cutthroat") was an AttributeError ('str' object has no attribute 'variant'),
    new_game({"variant": "cutthroat"}) "unhashable type: 'dict'", and new_game(rules, 5) an
    AttributeError on the first draw; each is a TypeError naming what the engine takes."""
    engine = type(variant_kit(Rules(variant=variant)).new_game(np.random.default_rng(0)))
    for make in (pinochle_env.new_game, engine):
        for rules in (variant, {"variant": variant}):
            with pytest.raises(TypeError, match=r"rules must be a Rules, such as Rules\(variant='cutthroat'\)"):
                make(rules)
        for rng in (5, np.random.RandomState(5)):
            with pytest.raises(TypeError, match=r"rng must be a numpy Generator, such as np\.random\.default_rng"):
                make(Rules(variant=variant), rng)


def test_margins_formula():
    assert margins([120, -40], (0, 1, 0, 1)) == [160, -160, 160, -160]
    assert margins([90, 30, -30], (0, 1, 2)) == [90, 0, -90]
    assert sum(margins([250, 11, 7], (0, 1, 2))) == pytest.approx(0)
