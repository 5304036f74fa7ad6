"""Pinochle inside OpenSpiel (agents.openspiel): OpenSpiel's own checks, the same hands as our
environment, resampling from a seat's information, and OpenSpiel's IS-MCTS in our arena."""

from __future__ import annotations

import sys

import numpy as np
import pyspiel
import pytest

import pinochle_env
from agents import registry
from agents.arena import ArenaConfig, run_arena
from agents.openspiel import register_games
from agents.openspiel.game import game_name
from pinochle_env.cards import COPIES, NUM_TYPES
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.rules.switches import Rules

VARIANTS = list(GAMES)
PARTNERSHIP = VARIANTS[0]


@pytest.fixture(scope="module", autouse=True)
def registered() -> list[str]:
    return register_games()


def random_deck(rng: np.random.Generator) -> list[int]:
    deck = np.repeat(np.arange(NUM_TYPES), COPIES)
    rng.shuffle(deck)
    return deck.tolist()


def dealt_state(game, dealer: int, deck: list[int]):
    state = game.new_initial_state()
    for outcome in (dealer, *deck):
        assert state.is_chance_node() and outcome in dict(state.chance_outcomes())
        state.apply_action(outcome)
    return state


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_random_simulation_with_serialization(variant):
    pyspiel.random_sim_test(pyspiel.load_game(game_name(variant)), num_sims=2, serialize=True, verbose=False)


def test_rule_switches_are_game_parameters():
    game = pyspiel.load_game(game_name(PARTNERSHIP), {"head_rule": "led_card", "pass_count": 3, "reward_scale": 100.0})
    assert game.rules == Rules(head_rule="led_card", pass_count=3)
    assert game.reward_scale == 100.0
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    with pytest.raises(Exception, match="head_rule='sideways' is not allowed"):
        pyspiel.load_game(game_name(PARTNERSHIP), {"head_rule": "sideways"})
    with pytest.raises(Exception, match="all_pass='redeal' deals again inside a hand"):
        pyspiel.load_game(game_name(PARTNERSHIP), {"all_pass": "redeal"})


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_deal_and_actions_give_the_same_hand_as_our_environment(variant):
    """Seat to act, legal actions, every seat's observation and the returns, decision by decision."""
    game = pyspiel.load_game(game_name(variant))
    kit = variant_kit(game.rules)
    rng = np.random.default_rng(3)
    for hand in range(2):
        dealer, deck = int(rng.integers(kit.num_seats)), random_deck(rng)
        state = dealt_state(game, dealer, deck)
        env = pinochle_env.env(variant=variant)
        env.reset(seed=hand, options={"dealer": dealer, "deal": kit.game_class.deal_from_deck(deck)})
        while not state.is_terminal():
            agent = env.agent_selection
            assert f"player_{state.current_player()}" == agent
            mask = env.observe(agent)["action_mask"]
            assert state.legal_actions() == np.flatnonzero(mask).tolist()
            for seat, name in enumerate(env.possible_agents):
                assert np.array_equal(state.observation_tensor(seat), env.observe(name)["observation"])
                assert np.array_equal(state.information_state_tensor(seat), env.observe(name)["observation"])
            action = int(rng.choice(state.legal_actions()))
            assert state.action_to_string(state.current_player(), action) == env.unwrapped.action_to_string(action)
            state.apply_action(action)
            env.step(action)
        rewards = [env.rewards[name] for name in env.possible_agents]
        assert state.returns() == pytest.approx(rewards) and sum(state.returns()) == pytest.approx(0.0)
        assert all(env.terminations.values())


def test_resampled_states_keep_the_seat_information_and_redraw_the_rest():
    game = pyspiel.load_game(game_name(PARTNERSHIP))
    rng = np.random.default_rng(7)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    redrawn = checked = 0
    for _ in range(3):
        state = dealt_state(game, int(rng.integers(4)), random_deck(rng))
        while not state.is_terminal():
            if rng.random() < 0.15:
                for seat in range(4):
                    other = state.resample_from_infostate(seat, sampler)
                    assert other.information_state_string(seat) == state.information_state_string(seat)
                    assert other.current_player() == state.current_player()
                    if seat == state.current_player():
                        assert other.legal_actions() == state.legal_actions()
                    redrawn += other.engine.deal != state.engine.deal
                    checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 20 and redrawn > checked // 2  # the hidden cards are drawn, not copied


def test_openspiel_ismcts_plays_in_the_arena(tmp_path):
    config = ArenaConfig(agents=("openspiel:simulations=4", "random"), deals=1, seed=5)
    summary = run_arena(config, tmp_path)
    assert summary["pairings"][0]["deal_pairs"] == 1


def test_openspiel_ismcts_refuses_a_game_it_cannot_resample():
    agent = registry.load_agent("openspiel")
    with pytest.raises(ValueError, match=f"cannot play variant='{VARIANTS[1]}'"):
        agent.check_rules(Rules(variant=VARIANTS[1]))
    with pytest.raises(ValueError, match="unknown parameter 'depth=3' for agent 'openspiel'"):
        registry.load_agent("openspiel:depth=3")


def test_openspiel_agent_without_openspiel_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # what a missing package looks like to import
    with pytest.raises(
        ValueError, match=r'needs OpenSpiel; install the openspiel extra: pip install "pinochle-rl\[openspiel\]"'
    ):
        registry.load_agent("openspiel")
