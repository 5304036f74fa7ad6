"""examples/openspiel_policy_gradient.py (the openspiel and train extras): bad option values get a
one-line error before any training, and a missing extra is named in one line."""

import pytest

from tests.helpers import check_example_without, load_example


@pytest.fixture(scope="module")
def example():
    return load_example("openspiel_policy_gradient")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--episodes", "0"], "--episodes must be at least 1, got 0"),
        (["--eval-deals", "0"], "--eval-deals must be at least 1, got 0"),
        (["--seed", "-1"], "--seed must be 0..4294967295, got -1"),
        (["--seed", str(2**32)], f"--seed must be 0..4294967295, got {2**32}"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_training(example, argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(example, "train", lambda *args: pytest.fail("trained with a bad option"))
    with pytest.raises(SystemExit) as raised:
        example.main([*argv, "--out", str(tmp_path)])
    assert raised.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("blocked", "extra", "needs"), [("pyspiel", "openspiel", "OpenSpiel"), ("torch", "train", "PyTorch")]
)
def test_a_missing_extra_is_named_in_one_line(monkeypatch, capsys, blocked, extra, needs):
    check_example_without("openspiel_policy_gradient", blocked, extra, needs, monkeypatch, capsys)
