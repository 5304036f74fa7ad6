"""examples/rllib_ppo.py (the rllib extra, kept out of the test environment: RLlib pins gymnasium):
bad option values get a one-line error before Ray starts (RLlib's modules stubbed here: the checks
run before any of them is used), and without RLlib the example names the extra in one line."""

import sys
import types

import pytest

from tests.helpers import check_example_without, load_example

#: The RLlib modules the example imports from.
RLLIB_MODULES = (
    "ray",
    "ray.rllib",
    "ray.rllib.algorithms",
    "ray.rllib.algorithms.ppo",
    "ray.rllib.core",
    "ray.rllib.core.columns",
    "ray.rllib.core.rl_module",
    "ray.rllib.core.rl_module.multi_rl_module",
    "ray.rllib.core.rl_module.rl_module",
    "ray.rllib.env",
    "ray.rllib.env.wrappers",
    "ray.rllib.env.wrappers.pettingzoo_env",
    "ray.rllib.examples",
    "ray.rllib.examples.rl_modules",
    "ray.rllib.examples.rl_modules.classes",
    "ray.rllib.examples.rl_modules.classes.action_masking_rlm",
)


class _Stub(types.ModuleType):
    """A module whose every name is a class of its own (the example subclasses some)."""

    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


@pytest.fixture
def example(monkeypatch):
    for name in RLLIB_MODULES:
        monkeypatch.setitem(sys.modules, name, _Stub(name))
    return load_example("rllib_ppo")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--iterations", "0"], "--iterations must be at least 1, got 0"),
        (["--batch", "0"], "--batch must be at least 1, got 0"),
        (["--eval-deals", "-3"], "--eval-deals must be at least 1, got -3"),
        (["--seed", "-1"], "--seed must be 0..4294967295, got -1"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_ray_starts(example, argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as raised:
        example.main([*argv, "--out", str(tmp_path)])  # ray.init, a stub's class, would fail on its arguments
    assert raised.value.code == 2 and message in capsys.readouterr().err


def test_without_ray_the_example_names_the_rllib_extra_in_one_line(monkeypatch, capsys):
    check_example_without("rllib_ppo", "ray", "rllib", "Ray", monkeypatch, capsys)
