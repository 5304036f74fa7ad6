"""Train OpenSpiel's policy-gradient agents (A2C) on Pinochle inside OpenSpiel, then evaluate them
in our arena against ``random`` on duplicate deals.

Optional: needs the ``openspiel`` extra and PyTorch (install the CPU build of torch first, otherwise
pip may fetch a far larger GPU build)::

    pip install torch==2.13.0 && pip install -e ".[openspiel,train]"

Run (the defaults, 300 hands of self-play and 50 deal pairs, take a few minutes on one CPU core;
a reduced budget: the policies learn to beat random play, not to play well)::

    python examples/openspiel_policy_gradient.py

The partnership game is loaded from OpenSpiel's registry (:func:`agents.openspiel.register_games`)
and played through OpenSpiel's ``rl_environment`` (chance nodes sampled, each seat's
information-state tensor, which is our encoder's observation, and its legal actions). One
``open_spiel.python.pytorch.policy_gradient.PolicyGradient`` agent per seat learns from its team's
hand margin (the game's returns, over 1000 points). The arena (:mod:`agents.arena`) then plays the
trained seats against ``random``: each deal twice with the teams swapped, the agent of each seat
playing its policy's most likely action from that seat's view (the game kit's
``observation_from_view`` rebuilds from the view exactly the tensor it trained on). The report
gives the margin per hand with a paired 95% interval (outputs in ``--out``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.extras import exit_for_missing_extra

# The train and openspiel extras: a missing module is named in one line with the extra to install.
try:
    import torch
except ImportError as error:
    exit_for_missing_extra("openspiel_policy_gradient.py", "train", "this example", error)
try:
    import pyspiel
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import policy_gradient
except ImportError as error:
    exit_for_missing_extra("openspiel_policy_gradient.py", "openspiel", "this example", error)

from agents import registry
from agents.arena import ArenaConfig, run_arena
from agents.arena.report import margin_sentence
from agents.openspiel import register_games
from pinochle_env.protocol import View

#: The largest seed: numpy's global seed (and OpenSpiel's environment's), set from ``--seed``, is 32 bits.
MAX_SEED = 2**32 - 1


def train(episodes: int, seed: int) -> tuple[Any, list[policy_gradient.PolicyGradient]]:
    """Self-play: one A2C agent per seat of the partnership game, ``episodes`` hands."""
    name = register_games()[0]  # the partnership game, the registry's first
    game = pyspiel.load_game(name)
    env = rl_environment.Environment(game, seed=seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [
        policy_gradient.PolicyGradient(seat, size, actions, loss_str="a2c", hidden_layers_sizes=(128,), batch_size=16)
        for seat in range(game.num_players())
    ]
    for episode in range(1, episodes + 1):
        time_step = env.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            time_step = env.step([agents[seat].step(time_step).action])
        for agent in agents:  # each agent sees the end of the hand and its return
            agent.step(time_step)
        if episode % 100 == 0:
            print(f"{episode} hands of self-play; seat 0's last return {time_step.rewards[0]:+.3f}", file=sys.stderr)
    return game, agents


class TrainedSeats:
    """An arena agent: the trained policy of the seat it plays, its most likely legal action from
    that seat's view (greedy: no randomness of its own)."""

    def __init__(self, game: Any, agents: list[policy_gradient.PolicyGradient]) -> None:
        self.name = "openspiel_a2c"
        self._kit = game.kit
        self._agents = agents

    def reset(self, seed: int | None = None) -> None:
        """Greedy play has no randomness to seed."""

    def act(self, view: View, mask: np.ndarray) -> int:
        seats = len(self._agents)
        observation = self._kit.observation_from_view(view)
        legal = np.flatnonzero(mask).tolist()
        time_step = rl_environment.TimeStep(
            observations={"info_state": [observation] * seats, "legal_actions": [legal] * seats,
                          "current_player": view.seat},
            rewards=None,
            discounts=None,
            step_type=rl_environment.StepType.MID,
        )  # fmt: skip
        probabilities = self._agents[view.seat].step(time_step, is_evaluation=True).probs
        return int(np.argmax(probabilities))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train OpenSpiel's A2C on Pinochle and evaluate it in the arena.")
    parser.add_argument("--episodes", type=int, default=300, help="hands of self-play (default 300)")
    parser.add_argument("--eval-deals", type=int, default=50, help="duplicate deal pairs in the arena (default 50)")
    parser.add_argument("--out", type=Path, help="the run's folder (default runs/openspiel_a2c/<date-time>)")
    parser.add_argument("--seed", type=int, default=0, help="seed of training and of the evaluation deals")
    args = parser.parse_args(argv)
    for option, value in (("--episodes", args.episodes), ("--eval-deals", args.eval_deals)):
        if value < 1:
            parser.error(f"{option} must be at least 1, got {value}")
    if not 0 <= args.seed <= MAX_SEED:  # refused here, not by numpy's seeding after the imports
        parser.error(f"--seed must be 0..{MAX_SEED}, got {args.seed}")
    args.out = args.out or Path("runs", "openspiel_a2c", time.strftime("%Y%m%d-%H%M%S"))
    if (args.out / "results.jsonl").exists():  # refused before training, not after it
        parser.error(f"{args.out} already holds an evaluation: pass another --out")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # OpenSpiel's agents sample their training actions from numpy's global generator
    torch.set_num_threads(1)

    game, agents = train(args.episodes, args.seed)
    registry.register("openspiel_a2c", lambda seed=None: TrainedSeats(game, agents))
    summary = run_arena(
        ArenaConfig(agents=("openspiel_a2c", "random"), deals=args.eval_deals, seed=args.seed + 1),
        args.out,
        workers=1,  # in this process: the trained agents live here
        log=sys.stderr,
    )
    print(f"arena, {margin_sentence(summary)}; report in {args.out}")


if __name__ == "__main__":
    main()
