"""Train one Pinochle seat with sb3-contrib's MaskablePPO, then evaluate it on duplicate deals.

Optional, not a core dependency of pinochle-rl: sb3-contrib pulls in PyTorch. Install the CPU
build of torch first (otherwise pip may fetch a far larger GPU build), then the ``sb3`` extra::

    pip install torch==2.13.0 && pip install -e ".[sb3]"

Run (the defaults, 4096 steps and 200 deal pairs, take a few minutes on one CPU core)::

    python examples/maskable_ppo.py

It trains :class:`agents.gym_env.SingleSeatEnv` (the learner in seat 0, random partner and
opponents; MaskablePPO reads the legal actions from ``env.action_masks()``), saves the model
(``--model``, default ``model.zip`` in the run's folder ``--out``, by default
``runs/maskable_ppo/<date-time>``), and evaluates it in the arena (:mod:`agents.arena`) against
``random`` on ``--eval-deals`` duplicate deal pairs: the policy
plays both seats of a team, each deal is played twice with the teams swapped, and the report
gives the mean margin per hand with a paired 95% interval (outputs in ``--out``). The arena hands
agents only their seat's view and mask; :func:`pinochle_env.encoding.observation_from_view`
rebuilds from the view exactly the observation the policy was trained on.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents import registry
from agents.arena import ArenaConfig, run_arena
from agents.gym_env import SingleSeatEnv
from pinochle_env import PlayerView, Rules
from pinochle_env.encoding import observation_from_view
from pinochle_env.games.kit import variant_kit


def train(steps: int, seed: int, n_steps: int, model_path: Path) -> MaskablePPO:
    """Train MaskablePPO on the single-seat env for ``steps`` steps and save it to ``model_path``."""
    env = SingleSeatEnv(seat=0, partner="random", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=64, seed=seed, verbose=0)
    model.learn(total_timesteps=steps)
    model.save(model_path)
    return model


class MaskablePPOAgent:
    """An arena agent playing a trained MaskablePPO policy greedily (masked) from its seat's view."""

    def __init__(self, path: str, seed: int | None = None) -> None:
        self.name = "maskable_ppo"
        self._model = _load_model(path)
        self._spec = variant_kit(Rules()).spec

    def reset(self, seed: int | None = None) -> None:
        """Greedy play has no randomness to seed."""

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        observation = observation_from_view(self._spec, view)
        action, _ = self._model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        return int(action)


@functools.cache
def _load_model(path: str) -> MaskablePPO:
    """Each arena play builds its agents afresh: load a model file once per process."""
    return MaskablePPO.load(path, device="cpu")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train MaskablePPO on one Pinochle seat and evaluate it.")
    parser.add_argument("--steps", type=int, default=4096, help="training steps (default 4096)")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per update (default 512)")
    parser.add_argument("--eval-deals", type=int, default=200, help="duplicate deal pairs in the arena (default 200)")
    parser.add_argument("--out", type=Path, help="the run's folder (default runs/maskable_ppo/<date-time>)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and of the evaluation deals")
    parser.add_argument("--model", type=Path, help="where to save the trained model (default OUT/model.zip)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: fastest for a small MLP)")
    args = parser.parse_args(argv)
    args.out = args.out or Path("runs", "maskable_ppo", time.strftime("%Y%m%d-%H%M%S"))
    args.model = args.model or args.out / "model.zip"
    if (args.out / "results.jsonl").exists():  # refused before training, not after it
        parser.error(f"{args.out} already holds an evaluation: pass another --out")
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)

    model = train(args.steps, args.seed, args.n_steps, args.model)
    print(f"trained {args.steps} steps; model saved to {args.model}")
    del model  # the arena's agents load the saved file, exactly as a user's would
    registry.register("maskable_ppo", MaskablePPOAgent, {"path": str})
    spec = f"maskable_ppo:path={Path(args.model).resolve()}"
    summary = run_arena(
        ArenaConfig(agents=(spec, "random"), deals=args.eval_deals, seed=args.seed + 1),
        args.out,
        workers=1,
        log=sys.stderr,
    )
    margin = summary["pairings"][0]["margin"]
    print(
        f"arena, duplicate margin vs random over {args.eval_deals} deal pairs: {margin['estimate']:+.1f} points "
        f"per hand (95% interval {margin['low']:+.1f} .. {margin['high']:+.1f}); report in {args.out}"
    )


if __name__ == "__main__":
    main()
