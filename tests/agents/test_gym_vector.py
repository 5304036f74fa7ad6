"""The single-seat env through the vectorising helpers researchers use: Stable-Baselines3's
``make_vec_env`` (which asks for ``render_mode="rgb_array"``) and ``gymnasium.make_vec`` in both
modes, each sub-environment playing exactly what a lone env with the same seed plays."""

import gymnasium
import numpy as np
import pytest
from stable_baselines3.common.env_util import make_vec_env

from agents.gym_env import ENV_ID, SingleSeatEnv


def first_legal(masks: np.ndarray) -> np.ndarray:
    """Each sub-environment's lowest legal action id (0 where no decision is pending)."""
    return np.array([int(np.flatnonzero(mask)[0]) if mask.any() else 0 for mask in masks])


def lone_trace(seed: int, steps: int) -> list[tuple[np.ndarray, float, bool]]:
    """(observation, reward, terminated) of a lone env reset with ``seed`` and played with
    ``first_legal`` for ``steps`` steps, resetting (without a seed) after each episode."""
    env = SingleSeatEnv()
    observation, info = env.reset(seed=seed)
    trace = []
    for _ in range(steps):
        observation, reward, terminated, _, info = env.step(int(first_legal([info["action_mask"]])[0]))
        trace.append((observation, reward, terminated))
        if terminated:
            observation, info = env.reset()
    return trace


def test_sb3_make_vec_env_bare_call_plays_like_lone_envs():
    """SB3's helper asks for an ``rgb_array`` render mode; its DummyVecEnv resets a finished
    episode at once, so after a termination the next observation is the new episode's."""
    steps = 40  # more than any first episode of these seeds: every sub-environment finishes one
    vec = make_vec_env(ENV_ID, n_envs=4, seed=7)
    observations = vec.reset()
    expected = [lone_trace(7 + rank, steps) for rank in range(4)]
    finished = np.zeros(4, bool)
    for step in range(steps):
        masks = np.stack(vec.env_method("action_masks"))  # what sb3-contrib's MaskablePPO asks
        observations, rewards, dones, infos = vec.step(first_legal(masks))
        for rank in range(4):
            observation, reward, terminated = expected[rank][step]
            assert (rewards[rank], dones[rank]) == (pytest.approx(reward), terminated)
            seen = infos[rank]["terminal_observation"] if terminated else observations[rank]
            np.testing.assert_array_equal(seen, observation)
        finished |= dones
    assert finished.all()
    frames = vec.get_images()
    assert len(frames) == 4 and all(frame.shape == frames[0].shape and frame.dtype == np.uint8 for frame in frames)
    vec.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec_plays_like_lone_envs(mode):
    """Gymnasium's vector envs reset a finished episode on the next step (that step's action is
    ignored), and render every sub-environment's table."""
    steps = 40
    vec = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, render_mode="rgb_array")
    _, info = vec.reset(seed=3)
    expected = [lone_trace(3 + rank, steps) for rank in range(2)]
    position, resets = [0, 0], np.zeros(2, int)
    autoreset = np.zeros(2, bool)
    while position != [steps, steps]:
        observations, rewards, terminated, _, info = vec.step(first_legal(info["action_mask"]))
        resets += autoreset
        for rank in range(2):
            if autoreset[rank] or position[rank] == steps:
                continue
            observation, reward, ended = expected[rank][position[rank]]
            assert (rewards[rank], terminated[rank]) == (pytest.approx(reward), ended)
            np.testing.assert_array_equal(observations[rank], observation)
            position[rank] += 1
        autoreset = terminated.copy()
    assert (resets > 0).all()
    frames = vec.render()
    assert len(frames) == 2 and frames[0].shape == frames[1].shape and frames[0].ndim == 3
    vec.close()
