"""The checkpoint agent (``agents.neural.agent``) with the bundled policies: warnings for rule switches
a policy never trained under, the policy trained on sampled rule sets, the probabilities it plays
by, and a policy per game (``checkpoint:bundled`` plays each game with the policy trained for it; a
policy of another game is refused before any deal)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import check_plays, decide, legal_mask
from agents.neural.agent import BUNDLED_FILES
from agents.neural.checkpoints import CheckpointError
from agents.registry import load_agent
from pinochle_env import Game, Rules
from pinochle_env.games.kit import new_game


def test_checkpoint_warns_of_rule_switches_it_never_trained_under(tmp_path):
    """A policy trained on the default rules only (the bundled weights saved with ``sample_rules =
    False``, so that they read as one): other switches warn (naming them, and the bundled agent that
    trained on every rule set), the default rules and a game-level switch do not, and a policy
    trained on sampled rule sets never does."""
    import warnings

    import torch

    from agents.neural.agent import UntrainedRulesWarning, untrained_switches

    payload = torch.load(BUNDLED_FILES["bundled"]["partnership"], weights_only=True)
    torch.save({**payload, "sample_rules": False}, tmp_path / "default_rules.pt")
    agent = load_agent(f"checkpoint:{tmp_path / 'default_rules.pt'}", seed=0)
    warned = r"never played bid_raises='any', throw_in='always'.*checkpoint:bundled was trained on sampled rule sets"
    with pytest.warns(UntrainedRulesWarning, match=warned):
        agent.check_rules(Rules(throw_in="always", bid_raises="any"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.check_rules(Rules())
        agent.check_rules(Rules(target_score=500))
    assert untrained_switches(agent.meta, Rules(head_rule="none")) == {"head_rule": "none"}
    assert untrained_switches({**agent.meta, "sample_rules": True}, Rules(head_rule="none")) == {}


def test_bundled_any_rules_agent_plays_drawn_rule_sets_without_a_warning():
    """The bundled partnership policy (``checkpoint:bundled-any-rules`` is its other name) trained on
    sampled rule sets: it plays hands of drawn rule sets legally (the driver checks every action)
    and is not warned about any of them."""
    import warnings

    from agents.neural.agent import BUNDLED_ALIASES
    from pinochle_env.rules.switches import random_rules

    assert BUNDLED_FILES["bundled-any-rules"] == {"partnership": BUNDLED_FILES["bundled"]["partnership"]}
    assert sorted(BUNDLED_ALIASES) == ["bundled-any-rules"]

    agent = load_agent("checkpoint:bundled-any-rules", seed=0)
    assert agent.meta["sample_rules"] is True
    rng = np.random.default_rng(7)
    for _ in range(3):
        rules = random_rules(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            agent.check_rules(rules)
        game = Game(rules, rng)
        while not game.hand_over:
            game.apply(decide(agent, game))


def test_checkpoint_probabilities_cover_the_legal_actions_and_match_its_play(bundled_agent):
    """``NeuralAgent.probabilities``: zero off the mask, summing to one, greedy play takes the most
    probable action, and sampling draws from exactly these probabilities."""
    greedy = bundled_agent
    game = Game(Rules(), np.random.default_rng(3))
    seen_phases = set()
    while not game.hand_over:
        view, mask = game.view(game.to_act), legal_mask(game)
        probabilities = greedy.probabilities(view, mask)
        assert probabilities.shape == mask.shape and probabilities.dtype == np.float64
        assert np.all(probabilities[mask == 0] == 0) and abs(probabilities.sum() - 1) < 1e-9
        action = decide(greedy, game)
        assert probabilities[action] == probabilities.max()
        seen_phases.add(game.phase.decision)
        game.apply(action)
    assert {"auction", "play"} <= seen_phases
    sampler = load_agent("checkpoint:bundled,sample=true", seed=5)
    game = Game(Rules(), np.random.default_rng(3))
    view, mask = game.view(game.to_act), legal_mask(game)
    expected = np.random.default_rng(5).choice(len(mask), p=sampler.probabilities(view, mask))
    assert sampler.act(view, mask) == expected


# --------------------------------------------------------------------------------------------
# A policy per game


@pytest.mark.parametrize("variant", ["partnership", "cutthroat", "two_hand"])
def test_bundled_agent_plays_each_game_with_the_policy_trained_for_it(variant, bundled_agent):
    """``checkpoint:bundled`` is one agent per variant: one instance plays a whole hand of the game it
    is given, legally (the driver checks each action), with the policy whose metadata names that game,
    and turns to another game's policy when the next game differs."""
    agent = bundled_agent
    for rules in (Rules(variant=variant), Rules()):
        check_plays(agent, rules)
        assert agent.meta["rules"]["variant"] == rules.variant
        assert agent.path.name == {"partnership": "pinochle_ppo.pt"}.get(
            rules.variant, f"pinochle_ppo_{rules.variant}.pt"
        )
        game = new_game(rules, np.random.default_rng(0))
        while not game.hand_over:
            game.apply(decide(agent, game))


def test_checkpoint_agents_refuse_a_variant_up_front(bundled_agent):
    """``check_plays`` refuses a checkpoint trained for another game before any deal, as for pimc:
    a run's policy, and the bundled agents that exist for the partnership game only."""
    run_policy = load_agent(f"checkpoint:{BUNDLED_FILES['bundled']['partnership']}", seed=0)
    check_plays(run_policy, Rules())
    for variant in ("cutthroat", "two_hand"):
        with pytest.raises(CheckpointError, match="plays the partnership game"):
            check_plays(run_policy, Rules(variant=variant))
        with pytest.raises(ValueError, match="bundled-any-rules plays the partnership game only"):
            check_plays(load_agent("checkpoint:bundled-any-rules", seed=0), Rules(variant=variant))
    with pytest.raises(CheckpointError, match="observation_size"):
        check_plays(bundled_agent, Rules(max_bid=500))


class _RunsCode:
    """An object whose unpickling would run code: what a malicious checkpoint holds."""

    def __reduce__(self):
        return (print, ("this ran",))


def test_a_checkpoint_holding_code_is_refused_without_advice_to_load_it_unsafely(tmp_path, capsys):
    """The refusal repeated PyTorch's advice to retry with weights_only=False."""
    import torch

    path = tmp_path / "evil.pt"
    torch.save({"format": "pinochle-rl-checkpoint", "policy": _RunsCode()}, path)
    with pytest.raises(CheckpointError) as refused:
        load_agent(f"checkpoint:{path}")
    message = str(refused.value)
    assert "holds Python objects besides tensors and plain values, which are refused" in message
    assert "weights_only" not in message and "trust" not in message
    assert "this ran" not in capsys.readouterr().out


class _InterruptWhilePickled:
    """Sends this process SIGTERM while ``torch.save`` pickles it: an interrupt in mid-save."""

    def __reduce__(self) -> tuple[type, tuple]:
        import signal
        from collections import OrderedDict  # a type a weights-only load accepts

        signal.raise_signal(signal.SIGTERM)
        return OrderedDict, ()


def test_a_checkpoint_interrupted_while_saved_is_saved_whole_then_stops(tmp_path, run_interrupts) -> None:
    """SIGTERM (``train.py`` turns it into Ctrl-C) in the middle of ``torch.save``: the checkpoint is
    written whole and loads, then the interrupt takes effect (before, PyTorch's zip writer failed
    on its way out with ``RuntimeError: unexpected pos``, or no file was left)."""
    import torch

    from agents.neural.checkpoints import save_checkpoint

    path = tmp_path / "update_000001.pt"
    payload = {"policy": {"weight": torch.arange(6.0)}, "marker": _InterruptWhilePickled()}
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(payload, path)
    loaded = torch.load(path, weights_only=True)
    assert torch.equal(loaded["policy"]["weight"], torch.arange(6.0)) and loaded["marker"] == {}
