"""examples/maskable_ppo.py (the sb3 extra, which the dev extra installs): its self-play run, on a
tiny budget, trains through make_vec_env against copies of the learner and ends with an arena
evaluation; bad option values get a one-line error."""

import json

import pytest

from agents import registry
from tests.helpers import check_example_without, load_example


@pytest.fixture(scope="module")
def example():
    return load_example("maskable_ppo")


def test_self_play_run_trains_against_the_learners_copy_and_evaluates(example, tmp_path, monkeypatch, capsys):
    renewed, deciders = [], {}  # policies given the learner's weights; each PolicyAgent's name -> its policy
    load, act = example.MaskableActorCriticPolicy.load_state_dict, example.PolicyAgent.act

    def renew(policy, *args, **kwargs):
        renewed.append(policy)
        return load(policy, *args, **kwargs)

    def spy(agent, view, mask):
        deciders.setdefault(agent.name.partition(":")[0], agent.policy)  # the arena names it by its spec
        return act(agent, view, mask)

    registry.known_agents()  # the built-in agents registered, then the example's own kept to this test:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(example.MaskableActorCriticPolicy, "load_state_dict", renew)
    monkeypatch.setattr(example.PolicyAgent, "act", spy)
    argv = ["--steps", "256", "--n-steps", "64", "--envs", "2", "--self-play", "128", "--eval-deals", "2"]
    example.main([*argv, "--out", str(tmp_path)])
    assert set(deciders) == {"self-play", "maskable_ppo"}  # the other seats in training; the model in the arena
    assert sum(policy is deciders["self-play"] for policy in renewed) == 2  # 256 steps, a new copy every 128
    assert "trained 256 steps" in capsys.readouterr().out
    hands = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(hands) == 2 and (tmp_path / "model.zip").is_file()


@pytest.mark.parametrize("option", ["--self-play", "--envs", "--steps", "--n-steps", "--eval-deals", "--threads"])
def test_bad_counts_are_refused_in_one_line(example, option, capsys):
    with pytest.raises(SystemExit):
        example.main([option, "0"])
    assert f"{option} must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed must be 0..4294967295, got -1"),
        (["--seed", str(2**32)], f"--seed must be 0..4294967295, got {2**32}"),
        (["--n-steps", "1"], "--n-steps times --envs must be at least 2, got 1 x 1"),
    ],
)
def test_bad_seeds_and_rollouts_are_refused_before_training(example, argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as raised:
        example.main([*argv, "--out", str(tmp_path / "run")])
    assert raised.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # refused before the run's folder, let alone training


def test_without_the_sb3_extra_the_example_names_it_in_one_line(monkeypatch, capsys):
    check_example_without("maskable_ppo", "sb3_contrib", "sb3", "sb3-contrib", monkeypatch, capsys)
