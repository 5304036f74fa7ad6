"""Demo: deal and play one full hand with random legal moves, printing it as it goes.

Run ``pinochle-demo [--seed N]`` (or ``python -m pinochle_env.demo``). It drives the PettingZoo
environment exactly as a user would, then prints the hand record.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from . import VERSION_LINE
from . import env as make_env
from .cards import card_to_str


def play_hand(seed: int) -> dict[str, Any] | None:
    """Play one hand with random legal actions through ``env()``, narrating; return its record."""
    environment = make_env(render_mode="ansi")
    environment.reset(seed=seed)
    game = environment.unwrapped.game
    rng = np.random.default_rng(seed)
    print(environment.render(), "\n")
    phase, tricks, melded, record = game.phase, 0, False, None
    for agent in environment.agent_iter():
        observation, _, terminated, truncated, info = environment.last()
        if terminated or truncated:
            record = info.get("hand_record", record)
            environment.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        print(f"{agent:>9} -> {environment.unwrapped.action_to_string(action)}")
        environment.step(action)
        if len(game.tricks) > tricks:
            tricks = len(game.tricks)
            _, cards, winner = game.tricks[-1]
            print(f"   trick {tricks}: {' '.join(map(card_to_str, cards))}  won by player {winner}")
        if game.melds[0] is not None and not melded:
            melded = True
            for seat, meld in enumerate(game.melds):
                shown = ", ".join(f"{name} {points}" for name, points in meld.melds) or "none"
                print(f"   meld player {seat}: {meld.points} ({shown})")
        if game.phase != phase:
            phase = game.phase
            print(f"-- {phase.name.lower().replace('_', ' ')}")
    print()
    print(environment.render())
    return record


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Play and print one hand of partnership Pinochle (random legal moves)."
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the deal and the moves (default 7)")
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    record = play_hand(args.seed)
    print("\nhand record:")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
