"""SingleSeatEnv: Gymnasium's checker, masks, termination, seeding, illegal actions and rewards; the
partnership game only."""

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.base import RandomAgent
from agents.gym_env import ENV_ID, SingleSeatEnv
from pinochle_env import IllegalActionError
from pinochle_env.records import to_arrays
from pinochle_env.table_image import table_image


def play_episode(env: SingleSeatEnv, seed: int, policy_seed: int = 0) -> tuple[np.ndarray, list[tuple]]:
    """One episode with uniformly random legal actions: the first observation and (action, step result)s."""
    rng = np.random.default_rng(policy_seed)
    first, info = env.reset(seed=seed)
    steps = []
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        result = env.step(action)
        steps.append((action, result))
        info = result[4]
        if result[2] or result[3]:
            return first, steps


@pytest.mark.parametrize(
    "options",
    [{}, {"seat": 1, "episode": "game", "max_hands": 3}, {"seat": 3, "pass_count": 0, "throw_in": "always"}],
    ids=["default", "game", "variant"],
)
def test_check_env(options):
    check_env(SingleSeatEnv(illegal_action="penalty", **options), skip_render_check=True)


def test_check_env_through_registry_with_render_modes():
    env = gymnasium.make(ENV_ID, illegal_action="penalty", render_mode="ansi")
    check_env(env.unwrapped)
    assert "player 0" in env.unwrapped.render()
    image = gymnasium.make(ENV_ID, illegal_action="penalty", render_mode="rgb_array")
    check_env(image.unwrapped)  # its render check asks for an (h, w, 3) uint8 array
    image.reset(seed=0)
    np.testing.assert_array_equal(image.render(), table_image(str(image.unwrapped.game)))


@pytest.mark.parametrize("seat", range(4))
def test_mask_matches_legal_actions(seat):
    env = SingleSeatEnv(seat=seat, episode="game", max_hands=2)
    rng = np.random.default_rng(seat)
    _, info = env.reset(seed=seat)
    done = False
    while not done:
        game = env.game
        assert game.to_act == seat
        legal = np.zeros(env.action_space.n, np.int8)
        legal[game.legal_actions()] = 1
        np.testing.assert_array_equal(info["action_mask"], legal)
        np.testing.assert_array_equal(env.action_masks(), legal)
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(legal))))
        done = terminated or truncated
    assert not info["action_mask"].any() and not env.action_masks().any()


def test_hand_episodes_terminate():
    env = SingleSeatEnv(seat=2)
    for seed in range(20):
        _, steps = play_episode(env, seed)
        assert len(steps) <= 95  # at most 76 bids and a pass, trump, 4 cards passed, the throw-in, 12 cards
        assert steps[-1][1][2] and not steps[-1][1][3]
        assert len(env.hand_records) == 1 and steps[-1][1][4]["hand_record"] is env.hand_records[0]


def test_game_episode_ends_with_a_winner_or_truncates():
    env = SingleSeatEnv(seat=1, episode="game")
    _, (_, _, terminated, _, _) = play_episode(env, seed=3)[1][-1]
    assert terminated and env.game.winner is not None
    truncated_env = SingleSeatEnv(seat=1, episode="game", max_hands=2)
    _, (_, _, terminated, truncated, _) = play_episode(truncated_env, seed=3)[1][-1]
    assert truncated and not terminated and len(truncated_env.hand_records) == 2


def test_seeded_determinism():
    def trace(seed):
        env = SingleSeatEnv(seat=1, episode="game", max_hands=3, opponents=["random", "random"])
        first, steps = play_episode(env, seed)
        return first.tolist(), [(a, obs.tolist(), r, t, u) for a, (obs, r, t, u, _) in steps], env.hand_records

    assert trace(11) == trace(11)
    assert trace(11)[2] != trace(12)[2]


def test_agent_objects_and_opponent_lists():
    agent = RandomAgent(0)
    env = SingleSeatEnv(partner=agent, opponents=["random", RandomAgent(1)])
    assert env.agents[2] is agent and env.agents[1].name == "random"
    with pytest.raises(ValueError, match="two"):
        SingleSeatEnv(opponents=["random"] * 3)
    with pytest.raises(ValueError, match="seat"):
        SingleSeatEnv(seat=4)
    with pytest.raises(ValueError, match="unknown option no_such_rule; environment options: seat, partner, "):
        SingleSeatEnv(no_such_rule=1)
    # It was "unknown rule switch opponent", naming no option (pinochle-play spells it --opponent).
    with pytest.raises(ValueError, match=r"unknown option opponent \(did you mean 'opponents'\?\); environment"):
        SingleSeatEnv(opponent="heuristic")

    class ActsAndResets:  # docs/agents.md: an agent is any object with act and reset (no name needed)
        def act(self, view, mask):
            return int(np.flatnonzero(mask)[0])

        def reset(self, seed=None):
            pass

    SingleSeatEnv(partner=ActsAndResets(), opponents=ActsAndResets()).reset(seed=0)
    # Each of these failed only at reset, deep inside (an IndexError, "'int' object has no attribute").
    for options, message in [
        ({"seat": True}, "seat must be an integer 0..3, got True"),
        ({"seat": 1.0}, "seat must be an integer 0..3, got 1.0"),
        ({"partner": 5}, "partner: each must be an agent spec or an agent"),
        ({"opponents": None}, "opponents must be one spec or a list of two"),
        ({"opponents": ["random", None]}, "opponents: each must be an agent spec or an agent"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            SingleSeatEnv(**options)


def test_illegal_action_raises_and_changes_nothing():
    env = SingleSeatEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    events = len(env.game.events)
    with pytest.raises(ValueError, match=r"player 0 \(learner\).*not legal.*legal actions") as error:
        env.step(illegal)
    assert isinstance(error.value, IllegalActionError)
    with pytest.raises(ValueError, match="out of range"):
        env.step(env.action_space.n)
    assert len(env.game.events) == events
    play_episode(env, seed=5)
    with pytest.raises(RuntimeError, match="episode ended"):
        env.step(0)


def test_penalty_mode_ends_the_episode():
    env = SingleSeatEnv(illegal_action="penalty")
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleSeatEnv(illegal_action="ignore")


@pytest.mark.parametrize("action", [500, -1, np.array(108)])
def test_penalty_mode_refuses_an_id_out_of_range_as_the_pettingzoo_env_does(action):
    """It was penalised as if it were an action."""
    env = SingleSeatEnv(illegal_action="penalty")
    env.reset(seed=5)
    with pytest.raises(IllegalActionError, match=r"out of range 0\.\.107"):
        env.step(action)
    assert env.action_masks().any()  # the episode goes on


@pytest.mark.parametrize("seat", range(4))
def test_rewards_equal_the_hand_margin(seat):
    env = SingleSeatEnv(seat=seat, episode="game", max_hands=4, reward_scale=100.0)
    for _, (_, reward, _, _, info) in play_episode(env, seed=seat)[1]:
        if "hand_record" in info:
            score = info["hand_record"]["score"]
            assert reward == pytest.approx((score[seat & 1] - score[1 - (seat & 1)]) / 100.0)
        else:
            assert reward == 0.0


def test_observations_and_rewards_match_the_pettingzoo_encoding():
    env = SingleSeatEnv(seat=3, head_rule="led_card")
    first, steps = play_episode(env, seed=8)
    arrays = to_arrays(env.hand_records)
    mine = arrays["seat"] == 3
    expected = arrays["observation"][mine]
    seen = [first] + [obs for _, (obs, *_) in steps[:-1]]
    np.testing.assert_array_equal(np.asarray(seen), expected)
    np.testing.assert_array_equal(arrays["action"][mine], [action for action, _ in steps])
    assert steps[-1][1][1] == pytest.approx(arrays["reward"][mine][-1])
    assert env.observation_space.contains(steps[-1][1][0])


def test_single_seat_env_refuses_the_variants():
    with pytest.raises(ValueError, match="partnership game only"):
        SingleSeatEnv(variant="two_hand")
