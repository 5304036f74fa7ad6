"""The console scripts (and ``train.py``) start through :mod:`pinochle_commands`, which imports only the
standard library, so that a Ctrl-C while a command's module loads (numpy, PyTorch: a good part of a
second and more) ends in one line and status 130, not a Python traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from functools import partial
from types import SimpleNamespace

import pytest

import pinochle_commands
from tests.helpers import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
#: What a command's import loads that the entry module must not: the project's packages, their libraries.
HEAVY = ("numpy", "pinochle_env", "agents", "pinochle_train", "pinochle_web", "torch", "pettingzoo")


def test_every_console_script_runs_its_command_through_the_light_module() -> None:
    commands = set()
    for script, target in SCRIPTS.items():
        module, function = target.split(":")
        assert module == "pinochle_commands", f"{script} = {target!r}: not through pinochle_commands"
        entry = getattr(pinochle_commands, function)
        assert isinstance(entry, partial) and entry.func is pinochle_commands.run, script
        assert entry.args == (script.removeprefix("pinochle-"),), f"{script} runs {entry.args}"
        commands.add(entry.args[0])
    assert commands == set(pinochle_commands.COMMANDS)


def test_the_entry_module_and_train_py_import_nothing_heavy() -> None:
    code = "import sys, pinochle_commands, train\nimport json; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = {name.split(".")[0] for name in json.loads(result.stdout)}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("command", sorted(pinochle_commands.COMMANDS))
def test_an_interrupt_while_the_command_loads_says_one_line(command: str, monkeypatch, capsys) -> None:
    def interrupted(name: str) -> None:
        assert name == pinochle_commands.COMMANDS[command]
        raise KeyboardInterrupt

    monkeypatch.setattr(pinochle_commands.importlib, "import_module", interrupted)
    assert pinochle_commands.run(command, ["--version"]) == pinochle_commands.INTERRUPTED == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"{command}: interrupted while loading; nothing was done\n"


def test_the_entry_runs_main_on_the_arguments_and_returns_its_status(monkeypatch) -> None:
    calls = []
    module = SimpleNamespace(main=lambda argv: calls.append(argv) or 7)
    monkeypatch.setattr(pinochle_commands.importlib, "import_module", lambda name: module)
    assert pinochle_commands.arena(["--deals", "3"]) == 7
    assert calls == [["--deals", "3"]]


@pytest.mark.parametrize("command", ["demo", "bot-check"])
def test_an_interrupt_that_main_lets_through_says_one_line(command: str, monkeypatch, capsys) -> None:
    def interrupted(argv: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pinochle_commands.importlib, "import_module", lambda name: SimpleNamespace(main=interrupted))
    assert pinochle_commands.run(command, []) == pinochle_commands.INTERRUPTED
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"{command}: interrupted\n")


#: A console script's wrapper in a fresh interpreter, with a Ctrl-C arriving while numpy is imported
#: (deep in the command's imports, as a real one would), then a finder that no longer interrupts.
WRAPPER = textwrap.dedent(
    """
    import sys

    class Interrupt:
        def find_spec(self, name, path=None, target=None):
            if name == "numpy":
                sys.meta_path.remove(self)
                raise KeyboardInterrupt
            return None

    sys.meta_path.insert(0, Interrupt())
    from pinochle_commands import {function}
    sys.exit({function}())
    """
)


@pytest.mark.parametrize("script", ["pinochle-demo", "pinochle-arena"])
def test_an_interrupt_during_the_imports_ends_the_script_without_a_traceback(script: str) -> None:
    function = SCRIPTS[script].split(":")[1]
    command = [sys.executable, "-c", WRAPPER.format(function=function), "--version"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 130, result.stderr[-3000:]
    assert result.stdout == ""
    assert result.stderr == f"{script.removeprefix('pinochle-')}: interrupted while loading; nothing was done\n"
