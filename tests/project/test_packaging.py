"""The distributions hold what they need: the wheel every module, the training presets (from the
top-level ``configs/``), the bundled agent and the ``py.typed`` markers; the sdist everything its
tests, notebooks, benchmarks and examples read. Both are built here, without build isolation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACKAGES = ("pinochle_env", "agents", "pinochle_train", "pinochle_web")
#: What the sdist must hold besides the packages.
SDIST_FOLDERS = ("tests", "configs", "docs", "notebooks", "benchmarks", "examples")
#: The modules outside the packages: the trainer's script, the console scripts' entry points.
TOP_MODULES = ("train.py", "pinochle_commands.py")
SDIST_FILES = ("README.md", "LICENSE", "CITATION.cff", "CHANGELOG.md", *TOP_MODULES, "pyproject.toml", ".ci/run")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _source_files(folder: str) -> list[str]:
    """Files under ``folder`` of the checkout, as paths relative to it (no caches, no run outputs)."""
    return sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts
    )


#: What a build leaves out of its copy of the checkout: version control, environments, outputs, caches.
_NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv*", ".ci-venv", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)


def _build(kind: str, out: Path) -> Path:
    """Build a ``wheel`` or ``sdist`` of a copy of the checkout (a build writes into its source tree)."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCES)
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return out / result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build("wheel", tmp_path_factory.mktemp("wheel"))


def test_the_package_list_names_every_package_of_the_tree() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert on_disk <= listed, f"pyproject.toml [tool.setuptools] packages lacks {sorted(on_disk - listed)}"
    assert listed - on_disk == {"agents.bundled", "pinochle_train.configs"}


def test_wheel_holds_every_module_the_presets_the_bundled_agent_and_type_markers(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {path for package in PACKAGES for path in _source_files(package) if path.endswith(".py")}
    modules.add("pinochle_commands.py")  # train.py is the checkout's script, not the wheel's
    assert modules <= names, sorted(modules - names)
    presets = {f"pinochle_train/configs/{path.name}" for path in (ROOT / "configs").glob("*.toml")}
    assert len(presets) >= 5 and presets <= names, sorted(presets - names)
    assert {f"{package}/py.typed" for package in PACKAGES} <= names
    bundled = {
        f"agents/bundled/pinochle_ppo{suffix}.{ext}"
        for suffix in ("", "_cutthroat", "_two_hand")
        for ext in ("pt", "json")
    }
    assert bundled <= names, sorted(bundled - names)


def test_presets_load_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """Unpacked on its own (not the checkout), the wheel's trainer finds and builds every preset, and
    pinochle-iterate every expert-iteration recipe."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import pathlib, shutil, pinochle_train, pinochle_train.config as c, pinochle_train.iteration as i\n"
        "from agents.neural.agent import BUNDLED\n"
        "print(pinochle_train.__file__)\n"
        "for path in sorted(c.CONFIG_DIR.glob('*.toml')):\n"
        "    values = c.load_preset(path.stem)\n"
        "    if 'iteration' in values:  # an expert-iteration recipe (pinochle-iterate's)\n"
        "        i.ExpertIteration(*i.read_recipe(path.stem), pathlib.Path('ei'), None); print('preset', path.stem)\n"
        "        continue\n"
        "    if values.get('initial_policy'):  # a later stage: the bundled agent stands in for the earlier one\n"
        "        pathlib.Path(values['initial_policy']).mkdir(parents=True, exist_ok=True)\n"
        "        shutil.copyfile(BUNDLED, pathlib.Path(values['initial_policy']) / 'policy.pt')\n"
        "    c.build_config(values); print('preset', path.stem)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith(str(site)), lines[0]  # the wheel's copy, not the checkout's
    assert {line.split()[1] for line in lines[1:]} == {path.stem for path in (ROOT / "configs").glob("*.toml")}


def test_sdist_holds_what_its_tests_notebooks_benchmarks_and_examples_need(tmp_path: Path) -> None:
    sdist = _build("sdist", tmp_path)
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    wanted = {path for folder in (*PACKAGES, *SDIST_FOLDERS) for path in _source_files(folder)}
    wanted |= set(SDIST_FILES)
    assert top.startswith("pinochle_rl-")
    assert wanted <= names, sorted(wanted - names)[:20]


def test_every_console_script_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    import pinochle_env

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for name, target in scripts.items():
        module, function = target.split(":")
        with pytest.raises(SystemExit) as exit_info:
            getattr(importlib.import_module(module), function)(["--version"])
        assert exit_info.value.code == 0, name
        assert capsys.readouterr().out.strip() == f"pinochle-rl {pinochle_env.__version__}", name
