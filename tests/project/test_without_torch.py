"""The environment, the bots and the arena work without PyTorch (the ``train`` extra), and what needs
it says which extra to install instead of failing with a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import ROOT

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["torch"] = None  # an import of torch now raises ImportError, as if it were not installed
    sys.modules["tensorboard"] = None

    import contextlib, io
    from pathlib import Path

    import numpy as np
    import pinochle_env
    from agents.arena import ArenaConfig, run_arena
    from agents.registry import load_agent

    env = pinochle_env.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    batch = pinochle_env.BatchedGames(4, seed=0)
    step = batch.reset()
    for _ in range(50):
        step = batch.step(step.action_masks.argmax(axis=1))

    summary = run_arena(ArenaConfig(agents=("heuristic", "pimc:samples=1,budget=0.01"), deals=1), Path(sys.argv[1]))
    assert summary["pairings"][0]["deal_pairs"] == 1, summary["pairings"][0]

    try:
        load_agent("checkpoint:bundled")
    except ImportError as error:
        print("checkpoint:", error)
    else:
        raise AssertionError("checkpoint:bundled loaded without PyTorch")

    from pinochle_train.cli import main

    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = main(["--config", "smoke"])
    print("train:", code, stderr.getvalue().strip())
    print("imported torch:", "torch" in sys.modules and sys.modules["torch"] is not None)
    """
)


def test_env_bots_and_arena_run_with_torch_blocked_and_training_names_the_extra(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "arena")], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert "train extra" in lines["checkpoint"] and "pinochle-rl[train]" in lines["checkpoint"]
    code, _, message = lines["train"].partition(" ")
    assert code == "2" and "training needs PyTorch" in message and "pinochle-rl[train]" in message
    assert lines["imported torch"] == "False"
    assert (tmp_path / "arena" / "summary.json").is_file()
