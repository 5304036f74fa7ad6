"""The checkpoint agent (``agents.neural.agent``) with the bundled policies: warnings for rule switches
a policy never trained under, the policy trained on sampled rule sets, and the probabilities it plays
by."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import decide, legal_mask
from agents.registry import load_agent
from pinochle_env import Game, Rules


def test_checkpoint_warns_of_rule_switches_it_never_trained_under():
    """The bundled agent trained on the default rules: other switches warn (naming them), the
    default rules and a game-level switch do not, and a policy trained on sampled rule sets never does."""
    import warnings

    from agents.neural.agent import UntrainedRulesWarning, untrained_switches

    agent = load_agent("checkpoint:bundled", seed=0)
    with pytest.warns(UntrainedRulesWarning, match=r"never played bid_raises='any', throw_in='always'"):
        agent.check_rules(Rules(throw_in="always", bid_raises="any"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.check_rules(Rules())
        agent.check_rules(Rules(target_score=500))
    assert untrained_switches(agent.meta, Rules(head_rule="none")) == {"head_rule": "none"}
    assert untrained_switches({**agent.meta, "sample_rules": True}, Rules(head_rule="none")) == {}


def test_bundled_any_rules_agent_plays_drawn_rule_sets_without_a_warning():
    """``checkpoint:bundled-any-rules`` trained on sampled rule sets: it plays hands of drawn rule sets
    legally (the driver checks every action) and is not warned about any of them."""
    import warnings

    from pinochle_env.rules.switches import random_rules

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


def test_checkpoint_probabilities_cover_the_legal_actions_and_match_its_play():
    """``NeuralAgent.probabilities``: zero off the mask, summing to one, greedy play takes the most
    probable action, and sampling draws from exactly these probabilities."""
    greedy = load_agent("checkpoint:bundled", seed=0)
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
