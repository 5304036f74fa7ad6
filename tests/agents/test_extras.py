"""agents.extras: what each optional extra installs, and the one error that says which to install."""

from __future__ import annotations

import sys

import pytest

from agents.extras import EXTRA_MODULES, missing_extra, require_extra
from tests.helpers import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def test_every_user_facing_extra_of_pyproject_is_known() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRA_MODULES) == set(extras) - {"dev"}


@pytest.mark.parametrize(
    ("extra", "blocked", "needs"),
    [("train", "tensorboard", "TensorBoard"), ("ray", "ray", "Ray"), ("sb3", "sb3_contrib", "sb3-contrib")],
)
def test_a_missing_module_names_the_extra_that_installs_it(monkeypatch, extra, blocked, needs) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)  # what a missing package looks like to import
    with pytest.raises(ImportError) as raised:
        require_extra(extra, "this use")
    message = str(raised.value)
    assert message.startswith(f"this use needs {needs}; install the {extra} extra: ")
    assert f'pip install "pinochle-rl[{extra}]"' in message and f'pip install -e ".[{extra}]"' in message
    assert raised.value.name == blocked and "\n" not in message


def test_an_unknown_extra_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown extra 'gpu'; extras: train, web"):
        require_extra("gpu", "this use")


def test_a_module_that_is_there_but_fails_to_import_keeps_its_own_words() -> None:
    """An installed module of another version ("cannot import name ...") was said to be missing,
    its error dropped: the message pointed at the install, not at what is wrong."""
    error = ImportError("cannot import name 'SummaryWriter' from 'tensorboard'", name="tensorboard")
    message = missing_extra("train", "training", error)
    assert message.startswith(
        "training needs TensorBoard, which fails to import (cannot import name 'SummaryWriter' from 'tensorboard'); "
        "install the train extra: "
    )
    missing = ModuleNotFoundError("No module named 'tensorboard'", name="tensorboard")
    assert missing_extra("train", "training", missing).startswith("training needs TensorBoard; install the train extra")
