"""Train the Pinochle PettingZoo env with RLlib's multi-agent PPO and action masking, then evaluate it.

Optional, not part of pinochle-rl's core or test environments: RLlib pins gymnasium exactly (ray
2.60 wants ``gymnasium==1.2.2``), so it gets a virtual environment of its own. From the repository
root, CPU build of torch first (a bare torch requirement pulls a multi-GB CUDA build)::

    python3 -m venv .venv-rllib && . .venv-rllib/bin/activate
    pip install torch==2.13.0 && pip install -e ".[rllib]"

Run (the defaults, 3 iterations of 2,000 env steps and 100 duplicate deal pairs, take about a
minute on one busy CPU core; ``docs/ray.md`` shows a run's output)::

    python examples/rllib_ppo.py --iterations 3 --seed 0

What it does: RLlib's ``PettingZooEnv`` wraps the AEC env ``pinochle_env.env()`` (four agents,
``player_0`` .. ``player_3``), all four seats map to one shared policy, and the policy is RLlib's
example ``ActionMaskingTorchRLModule`` (new API stack): a PPO module whose logits of illegal actions
are pushed to -inf by the mask in the observation. That module expects the keys ``observations``
and ``action_mask`` (the env's are ``observation`` and an int8 ``action_mask``), so a small
subclass of ``PettingZooEnv`` renames the first and casts the mask to float32. The env keeps its
default ``illegal_action="raise"``: an action outside the mask would stop the run, so a finished
run shows that the masking works. Each iteration prints the sampled episodes (an episode is one
hand, 50-60 decisions), the first seat's mean return (hand-score margin / 1000: the four seats'
returns sum to zero, so RLlib's summed ``episode_return_mean`` says nothing here) and PPO's learner
statistics. Then the trained module is saved (``--out``/module) and played greedily in the
project's arena (:mod:`agents.arena`) against the ``random`` bot on ``--eval-deals`` duplicate
deal pairs: it plays both seats of one team, each deal is played twice with the teams swapped, and
the report gives the mean margin per hand with a paired 95% interval. A few iterations are far too
little to learn Pinochle (``train.py`` is the project's real trainer); this shows the plumbing.

``--seed`` seeds RLlib (``config.debugging(seed=...)``: env resets, torch, numpy) and the arena's
deals. Two runs print the same figures when ``PYTHONHASHSEED`` is fixed too (e.g.
``PYTHONHASHSEED=0 python examples/rllib_ppo.py``); without it the sampled hands repeat but the
learner's figures differ slightly from run to run (RLlib orders some data by Python hashes).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.extras import exit_for_missing_extra

try:  # the rllib extra: a missing module is named in one line with the extra to install, not a traceback
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
except ImportError as error:
    exit_for_missing_extra("rllib_ppo.py", "rllib", "this example", error)

import pinochle_env
from agents import registry
from agents.arena import ArenaConfig, run_arena
from agents.arena.report import margin_sentence
from pinochle_env import PlayerView, Rules
from pinochle_env.encoding import observation_from_view
from pinochle_env.games.kit import variant_kit

POLICY = "shared"
#: The largest seed: RLlib seeds numpy's global generator from ``--seed``, which takes 32 bits.
MAX_SEED = 2**32 - 1


class PinochleRLlibEnv(PettingZooEnv):
    """``PettingZooEnv`` over ``pinochle_env.env(**env_config)`` with the observation dict laid out
    as ``ActionMaskingTorchRLModule`` wants it: ``{"observations": float32, "action_mask": float32}``."""

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        super().__init__(pinochle_env.env(**dict(env_config or {})))
        self.observation_spaces = {agent: _masked_space(space) for agent, space in self.observation_spaces.items()}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observations, infos = super().reset(seed=seed, options=options)
        return _convert(observations), infos

    def step(self, action):
        observations, *rest = super().step(action)
        return _convert(observations), *rest


def _masked_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    n = space["action_mask"].shape[0]
    return gym.spaces.Dict(
        {"observations": space["observation"], "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32)}
    )


def _convert(observations: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    return {
        agent: {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}
        for agent, obs in observations.items()
    }


def build_config(args: argparse.Namespace) -> PPOConfig:
    """Multi-agent PPO, one masked module shared by the four seats, sampling in the driver process."""
    return (
        PPOConfig()  # the new API stack (RLModule, Learner, EnvRunner) is the default in ray >= 2.40
        # RLlib's env check steps unmasked random actions, which this env (illegal_action="raise") refuses.
        .environment(PinochleRLlibEnv, env_config={}, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)  # sample in this process
        .learners(num_learners=0)  # learn in this process
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": [256, 256], "vf_share_layers": False},
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(256, args.batch),
            num_epochs=4,
            lr=3e-4,
            gamma=1.0,  # a hand's reward comes once, at its end
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )


class RLlibAgent:
    """An arena agent playing a saved RLlib module greedily (masked) from its seat's view."""

    def __init__(self, path: str, seed: int | None = None) -> None:
        self.name = "rllib_ppo"
        self._module = _load_module(path)
        self._spec = variant_kit(Rules()).spec

    def reset(self, seed: int | None = None) -> None:
        """Greedy play has no randomness to seed."""

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        observation = observation_from_view(self._spec, view)
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(observation, dtype=torch.float32)[None],
                "action_mask": torch.as_tensor(mask, dtype=torch.float32)[None],
            }
        }
        with torch.no_grad():
            logits = self._module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return int(logits[0].argmax())


@functools.cache
def _load_module(path: str) -> RLModule:
    """Each arena play builds its agents afresh: load the module once per process."""
    return RLModule.from_checkpoint(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train Pinochle with RLlib multi-agent PPO + action masking.")
    parser.add_argument("--iterations", type=int, default=3, help="PPO training iterations (default 3)")
    parser.add_argument("--batch", type=int, default=2000, help="env steps (decisions) per iteration (default 2000)")
    parser.add_argument("--eval-deals", type=int, default=100, help="duplicate deal pairs vs random (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and of the evaluation deals")
    parser.add_argument("--out", default="runs/rllib_ppo", help="output folder (replaced on a rerun)")
    args = parser.parse_args(argv)
    counts = {"--iterations": args.iterations, "--batch": args.batch, "--eval-deals": args.eval_deals}
    for option, value in counts.items():
        if value < 1:
            parser.error(f"{option} must be at least 1, got {value}")
    if not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed must be 0..{MAX_SEED}, got {args.seed}")
    torch.set_num_threads(1)
    out = Path(args.out).resolve()

    started = time.perf_counter()
    # A private one-CPU Ray instance (never a running cluster); ray.shutdown() below stops it.
    ray.init(address="local", num_cpus=1, include_dashboard=False, logging_level="ERROR")
    try:
        algo = build_config(args).build_algo()
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            runners = result["env_runners"]
            learner = result["learners"][POLICY]
            print(
                f"iter {iteration}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps, "
                f"{runners['num_episodes_lifetime']:.0f} hands; hand length {runners['episode_len_mean']:.1f}; "
                f"player_0 return {runners['agent_episode_returns_mean']['player_0']:+.3f}; "
                f"entropy {learner['entropy']:.3f}, policy loss {learner['policy_loss']:+.4f}, "
                f"vf loss {learner['vf_loss']:.4f}, kl {learner['mean_kl_loss']:.4f} "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
        module_path = out / "module"
        algo.get_module(POLICY).save_to_path(module_path)
        algo.stop()
    finally:
        ray.shutdown()
    print(f"trained {args.iterations} iterations in {time.perf_counter() - started:.0f} s; module in {module_path}")

    registry.register("rllib_ppo", RLlibAgent, {"path": str})
    shutil.rmtree(out / "arena", ignore_errors=True)  # this example's own report: a rerun replaces it
    summary = run_arena(
        ArenaConfig(agents=(f"rllib_ppo:path={module_path}", "random"), deals=args.eval_deals, seed=args.seed + 1),
        out / "arena",
        workers=1,
        log=sys.stderr,
    )
    print(f"arena, {margin_sentence(summary)}; report in {out / 'arena'}; total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
