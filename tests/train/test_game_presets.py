"""Every game's training preset (``configs/<game>.toml``) trains, evaluates through the arena, and
its policy plays as an agent in that game only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.base import decide
from agents.neural.checkpoints import CheckpointError
from agents.registry import load_agent
from pinochle_env import Rules
from pinochle_env.games.kit import new_game
from pinochle_train import cli
from tests.helpers import OTHER_GAMES


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_trainer_preset_smoke_run_and_checkpoint_agent(variant, tmp_path: Path, capsys):
    """The variant's preset trains (tiny: a 2-hand warm start in one round), evaluates through the
    arena, and its policy plays as an agent in that variant only."""
    args = [
        "--config", variant, "--workers", "0", "--games-per-worker", "4", "--updates", "2",
        "--decisions-per-update", "200", "--hidden", "32", "--critic-hidden", "32", "--minibatch-size", "64",
        "--eval-every", "0", "--final-eval-deals", "2", "--out-dir", str(tmp_path), "--run-name", "r",
        "--log-every", "100", "--imitation-hands", "2", "--imitation-epochs", "1", "--imitation-rounds", "1",
    ]  # fmt: skip
    assert cli.main(args) == 0
    assert "final evaluation" in capsys.readouterr().err
    run = tmp_path / "r"
    assert list(run.glob("events.out.tfevents.*")) and (run / "checkpoints" / "update_000002.pt").exists()
    agent = load_agent(f"checkpoint:{run / 'policy.pt'}", seed=0)
    game = new_game(Rules(variant=variant), np.random.default_rng(4))
    while not game.hand_over:
        game.apply(decide(agent, game))
    other = "two_hand" if variant == "cutthroat" else "cutthroat"
    game = new_game(Rules(variant=other), np.random.default_rng(4))
    with pytest.raises(CheckpointError, match=f"plays the {variant} game"):
        decide(load_agent(f"checkpoint:{run / 'policy.pt'}", seed=0), game)
