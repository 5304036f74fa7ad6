"""The layers import one way: ``pinochle_env`` -> ``agents`` -> ``pinochle_train``, never back, and
the web app (``pinochle_web``) sits on the agents, never on the trainer.

Read statically from the source (every import, also those inside functions, so a lazy import
cannot hide a cycle), and checked dynamically in fresh interpreters: importing the environment
loads neither the agents, the trainer, PyTorch nor numba, and importing the bots loads neither the
trainer nor PyTorch.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACKAGES = ("pinochle_env", "agents", "pinochle_train", "pinochle_web")
#: What each package may not import (besides the layers above it).
FORBIDDEN = {
    "pinochle_env": {"agents", "pinochle_train", "pinochle_web", "torch", "tensorboard"},
    "agents": {"pinochle_train", "pinochle_web", "tensorboard"},
    "pinochle_train": {"pinochle_web"},
    "pinochle_web": {"pinochle_train", "tensorboard"},
}
#: Only these modules may import PyTorch in the agents layer: the neural policy and its format.
TORCH_IN_AGENTS = "agents.neural"


def _modules() -> dict[str, Path]:
    """Every module of the three packages by dotted name (a package by its ``__init__``)."""
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The modules ``name`` imports, resolved to dotted names (a ``from X import y`` where ``X.y`` is
    a module counts as importing ``X.y``, else ``X``)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in MODULES else target)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_a_layer_above_it(package: str) -> None:
    bad = [
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] in FORBIDDEN[package]
    ]
    assert not bad, "\n".join(bad)


def test_only_the_neural_agents_import_torch() -> None:
    bad = [
        module
        for module, targets in GRAPH.items()
        if module.startswith("agents") and not module.startswith(TORCH_IN_AGENTS)
        if any(target.split(".")[0] == "torch" for target in targets)
    ]
    assert not bad, f"modules of the agents layer outside {TORCH_IN_AGENTS} import torch: {bad}"


def test_no_import_cycles_between_modules() -> None:
    """No module reaches itself through the imports of the project's modules (lazy ones included)."""
    project = {name: {t for t in targets if t in MODULES and t != name} for name, targets in GRAPH.items()}
    done: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycles.append([*path[path.index(module) :], module])
            return
        if module in done:
            return
        for target in sorted(project[module]):
            visit(target, [*path, module])
        done.add(module)

    for module in sorted(project):
        visit(module, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles[:10])


def _loaded_after(statement: str) -> set[str]:
    """Top-level package names in ``sys.modules`` after running ``statement`` in a fresh interpreter."""
    code = f"import sys\n{statement}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(result.stdout.split())


def test_importing_the_environment_loads_no_agents_trainer_torch_or_numba() -> None:
    loaded = _loaded_after("import pinochle_env, pinochle_env.records, pinochle_env.games.kit")
    assert not loaded & {"agents", "pinochle_train", "torch", "tensorboard", "numba"}, loaded


def test_importing_the_bots_and_arena_loads_no_trainer_or_torch() -> None:
    loaded = _loaded_after(
        "import agents.registry, agents.arena, agents.heuristic, agents.search.pimc, agents.terminal"
    )
    assert not loaded & {"pinochle_train", "torch", "tensorboard"}, loaded
