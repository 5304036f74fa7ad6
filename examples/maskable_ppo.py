"""Train one Pinochle seat with sb3-contrib's MaskablePPO, then evaluate it on duplicate deals.

Optional, not a core dependency of pinochle-rl: sb3-contrib pulls in PyTorch. Install the CPU
build of torch first (otherwise pip may fetch a far larger GPU build), then sb3-contrib::

    pip install torch==2.13.0
    pip install sb3-contrib

Run (4096 steps take well under a minute on one CPU core)::

    python examples/maskable_ppo.py --steps 4096 --eval-deals 200

It trains :class:`agents.gym_env.SingleSeatEnv` (the learner in seat 0, random partner and
opponents; MaskablePPO reads the legal actions from ``env.action_masks()``), saves the model
(``--model``, default ``maskable_ppo_pinochle.zip``), and evaluates it against a random partner
and random opponents on ``--eval-deals`` duplicate deals: each deal is played twice with the same
cards and dealer, once with the learner's team in seats 0/2 and once in seats 1/3, and the deal
scores the mean of the two margins (learner's team's hand score minus the other team's), so the
luck of the cards cancels. It prints the mean margin per deal with a 95% t interval; random play
in the learner's seat scores 0 on average, by symmetry.

The fair way to compare agents is the arena (``pinochle-arena``, :mod:`agents.arena`): it plays
agent specs on the same seeded deal pairs with reports and ratings. It takes agents by spec, and
this policy reads the observation vector that the encoder builds from the whole game's event
log (more than the ``PlayerView`` an arena agent is given), so this script runs its own duplicate
evaluation through the environment instead.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.gym_env import SingleSeatEnv
from agents.stats import mean_interval
from pinochle_env.game import Game


def train(steps: int, seed: int, n_steps: int, model_path: str) -> MaskablePPO:
    """Train MaskablePPO on the single-seat env for ``steps`` steps and save it to ``model_path``."""
    env = SingleSeatEnv(seat=0, partner="random", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=64, seed=seed, verbose=0)
    model.learn(total_timesteps=steps)
    model.save(model_path)
    return model


def duplicate_margins(model: MaskablePPO, deals: int, seed: int) -> list[float]:
    """Per deal, the learner's mean margin (points) over the two seatings of its team."""
    envs = [SingleSeatEnv(seat=seat, reward_scale=1.0) for seat in (0, 1)]
    dealer_rng = np.random.default_rng(seed)
    margins = []
    for deal_id in range(deals):
        dealing = Game(rng=dealer_rng)
        options = {"deal": dealing.deal, "dealer": dealing.dealer}
        plays = [play_hand(model, env, options, seed + deal_id) for env in envs]
        margins.append(float(np.mean(plays)))
    return margins


def play_hand(model: MaskablePPO, env: SingleSeatEnv, options: dict, seed: int) -> float:
    """Play one preset hand with the policy (deterministic, masked); the learner's margin."""
    observation, _ = env.reset(seed=seed, options=options)
    total = 0.0
    while True:
        action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
        observation, reward, terminated, truncated, _ = env.step(int(action))
        total += reward
        if terminated or truncated:
            return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train MaskablePPO on one Pinochle seat and evaluate it.")
    parser.add_argument("--steps", type=int, default=4096, help="training steps (default 4096)")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per update (default 512)")
    parser.add_argument("--eval-deals", type=int, default=200, help="duplicate deals to evaluate on (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and of the evaluation deals")
    parser.add_argument("--model", default="maskable_ppo_pinochle.zip", help="where to save the trained model")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: fastest for a small MLP)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    model = train(args.steps, args.seed, args.n_steps, args.model)
    print(f"trained {args.steps} steps; model saved to {args.model}")
    interval = mean_interval(duplicate_margins(model, args.eval_deals, args.seed + 1))
    print(
        f"duplicate margin vs random partner and opponents over {args.eval_deals} deals: "
        f"{interval.estimate:+.1f} points per deal (95% interval {interval.low:+.1f} .. {interval.high:+.1f})"
    )


if __name__ == "__main__":
    main()
