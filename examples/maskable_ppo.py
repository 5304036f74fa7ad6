"""Train one Pinochle seat with sb3-contrib's MaskablePPO, alone or by self-play, then evaluate it on duplicate deals.

Optional, not a core dependency of pinochle-rl: sb3-contrib pulls in PyTorch. Install the CPU
build of torch first (otherwise pip may fetch a far larger GPU build), then the ``sb3`` extra::

    pip install torch==2.13.0 && pip install -e ".[sb3]"

Run (the defaults, 4096 steps and 200 deal pairs, take a few minutes on one CPU core)::

    python examples/maskable_ppo.py
    python examples/maskable_ppo.py --self-play 1024     # self-play: a new opponent every 1024 steps

It trains :class:`agents.gym_env.SingleSeatEnv` (the learner in seat 0; MaskablePPO reads the
legal actions from ``env.action_masks()``) through Stable-Baselines3's own ``make_vec_env``
(``--envs`` copies stepped in turn), saves the model (``--model``, default ``model.zip`` in the
run's folder ``--out``, by default ``runs/maskable_ppo/<date-time>``), and evaluates it in the
arena (:mod:`agents.arena`) against ``random`` on ``--eval-deals`` duplicate deal pairs: the policy
plays both seats of a team, each deal is played twice with the teams swapped, and the report
gives the mean margin per hand with a paired 95% interval (outputs in ``--out``). The arena hands
agents only their seat's view and mask; :func:`pinochle_env.encoding.observation_from_view`
rebuilds from the view exactly the observation the policy was trained on.

The other three seats are ``random`` by default. With ``--self-play STEPS`` they play a frozen
copy of the learner's own policy (sampling its masked action distribution), replaced by a fresh
copy every ``STEPS`` training steps: the usual self-play scheme for one learner among agents,
which the single-seat env makes short because its seats take agent objects.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np

from agents.extras import exit_for_missing_extra

try:  # the sb3 extra: a missing module is named in one line with the extra to install, not a traceback
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.env_util import make_vec_env
except ImportError as error:
    exit_for_missing_extra("maskable_ppo.py", "sb3", "this example", error)

from agents import registry
from agents.arena import ArenaConfig, run_arena
from agents.arena.report import margin_sentence
from agents.gym_env import ENV_ID
from pinochle_env import PlayerView, Rules
from pinochle_env.encoding import observation_from_view
from pinochle_env.games.kit import variant_kit


def train(args: argparse.Namespace) -> MaskablePPO:
    """Train MaskablePPO on the single-seat env for ``args.steps`` steps (the other seats random,
    or by self-play every ``args.self_play`` steps) and save it to ``args.model``."""
    frozen = PolicyAgent("self-play") if args.self_play else None
    others = frozen or "random"
    env = make_vec_env(ENV_ID, n_envs=args.envs, seed=args.seed, env_kwargs={"partner": others, "opponents": others})
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=64, seed=args.seed, verbose=0)
    if frozen is not None:  # a second network of the learner's shape, for the other seats
        frozen.policy = model.policy_class(
            model.observation_space, model.action_space, model.lr_schedule, **model.policy_kwargs
        )
        frozen.policy.set_training_mode(False)
    generation = args.self_play or args.steps
    while model.num_timesteps < args.steps:
        if frozen is not None:  # the other seats' new policy: the learner's as it is now
            frozen.policy.load_state_dict(model.policy.state_dict())
        model.learn(total_timesteps=min(generation, args.steps - model.num_timesteps), reset_num_timesteps=False)
    model.save(args.model)
    return model


class PolicyAgent:
    """An agent playing a MaskablePPO policy from its seat's view: greedily in the arena (loaded
    from a saved model), sampling for a self-play seat (a copy of the learner's policy)."""

    def __init__(
        self, name: str, policy: MaskablePPO | MaskableActorCriticPolicy | None = None, deterministic: bool = False
    ) -> None:
        self.name = name
        self.policy = policy
        self.deterministic = deterministic
        self._spec = variant_kit(Rules()).spec

    def reset(self, seed: int | None = None) -> None:
        """Its randomness is torch's, which MaskablePPO's ``seed`` seeds."""

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        assert self.policy is not None, "a self-play seat acts once train() has given it a policy"
        observation = observation_from_view(self._spec, view)
        action, _ = self.policy.predict(observation, action_masks=mask.astype(bool), deterministic=self.deterministic)
        return int(action)


def maskable_ppo_agent(path: str, seed: int | None = None) -> PolicyAgent:
    """The arena's agent ``maskable_ppo:path=PATH``: the saved model, greedy."""
    return PolicyAgent("maskable_ppo", _load_model(path), deterministic=True)


@functools.cache
def _load_model(path: str) -> MaskablePPO:
    """Each arena play builds its agents afresh: load a model file once per process."""
    return MaskablePPO.load(path, device="cpu")


#: The largest seed: numpy's global seed, which Stable-Baselines3 sets from ``--seed``, is 32 bits.
MAX_SEED = 2**32 - 1


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse bad numbers before training, not after it (``parser.error``: one line, exit 2)."""
    counts = {
        "--steps": args.steps,
        "--n-steps": args.n_steps,
        "--envs": args.envs,
        "--self-play": args.self_play,
        "--eval-deals": args.eval_deals,
        "--threads": args.threads,
    }
    for option, value in counts.items():
        if value is not None and value < 1:
            parser.error(f"{option} must be at least 1, got {value}")
    if args.n_steps * args.envs < 2:  # PPO normalises advantages over a rollout of at least two steps
        parser.error(f"--n-steps times --envs must be at least 2, got {args.n_steps} x {args.envs}")
    if not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed must be 0..{MAX_SEED}, got {args.seed}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train MaskablePPO on one Pinochle seat and evaluate it.")
    parser.add_argument("--steps", type=int, default=4096, help="training steps (default 4096)")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per update (default 512)")
    parser.add_argument("--envs", type=int, default=1, help="make_vec_env's n_envs (default 1)")
    parser.add_argument(
        "--self-play",
        type=int,
        metavar="STEPS",
        help="the other seats play a frozen copy of the learner, renewed every STEPS steps (default: random seats)",
    )
    parser.add_argument("--eval-deals", type=int, default=200, help="duplicate deal pairs in the arena (default 200)")
    parser.add_argument("--out", type=Path, help="the run's folder (default runs/maskable_ppo/<date-time>)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and of the evaluation deals")
    parser.add_argument("--model", type=Path, help="where to save the trained model (default OUT/model.zip)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: fastest for a small MLP)")
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    args.out = args.out or Path("runs", "maskable_ppo", time.strftime("%Y%m%d-%H%M%S"))
    args.model = args.model or args.out / "model.zip"
    if (args.out / "results.jsonl").exists():  # refused before training, not after it
        parser.error(f"{args.out} already holds an evaluation: pass another --out")
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)

    model = train(args)
    print(f"trained {model.num_timesteps} steps; model saved to {args.model}")
    del model  # the arena's agents load the saved file, exactly as a user's would
    registry.register("maskable_ppo", maskable_ppo_agent, {"path": str})
    spec = f"maskable_ppo:path={Path(args.model).resolve()}"
    summary = run_arena(
        ArenaConfig(agents=(spec, "random"), deals=args.eval_deals, seed=args.seed + 1),
        args.out,
        workers=1,
        log=sys.stderr,
    )
    print(f"arena, {margin_sentence(summary)}; report in {args.out}")


if __name__ == "__main__":
    main()
