"""Replay in the browser: every decision of a recorded hand, and what a network made of them.

:func:`timeline` replays a hand record decision by decision (``pinochle_env.records.decisions``)
and presents the table before each decision and after the last, from one seat's view or with
every hand face up. :func:`analysis` asks a checkpoint's policy, at each decision of one seat, for
its probabilities over the legal actions (:meth:`agents.neural.agent.NeuralAgent.probabilities`,
from that seat's view and mask: what the network would have thought there) and, where the file
is a training checkpoint with its critic, for the critic's value. The critic reads the
perfect-information state (every hand), so it is shown in replay only, never at a live table.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import legal_mask
from agents.neural.agent import NeuralAgent
from agents.neural.checkpoints import CheckpointError, load_checkpoint
from pinochle_env.games.kit import variant_kit
from pinochle_env.records import decisions, replay
from pinochle_env.rules.switches import Rules

from .present import table_state
from .tables import decision_visible


def timeline(record: dict[str, Any], viewer: int | None, bottom: int | None = None) -> list[dict[str, Any]]:
    """The table before each decision of ``record`` (with the decision taken there) and after the
    last one (``decision`` None), as ``viewer`` sees it (None: every hand face up). ``ValueError``
    for a record that does not replay, or whose result differs from its replay (an edited record,
    whose label would show one score and its replay another)."""
    replay(record)  # the whole hand, checked against the record's own result
    rules = Rules.from_mapping(record["options"])
    steps: list[dict[str, Any]] = []
    game = None
    for game, seat, action in decisions(record):
        kind = game.phase.decision
        shown = decision_visible(rules, kind, seat, viewer)
        decision = {
            "seat": seat,
            "kind": kind,
            "action": action if shown else None,
            "name": game.layout.to_string(action) if shown else "a card",
        }
        steps.append({"state": table_state(game, viewer, bottom), "decision": decision})
    # The decisions generator applies each action after yielding it: ``game`` is now the finished hand.
    final = game if game is not None else replay(record)
    steps.append({"state": table_state(final, viewer, bottom), "decision": None})
    return steps


class Critic:
    """A training checkpoint's value network: the expected hand margin (in points) of a seat's
    side from a position, as the trainer's critic estimated it (``reward_scale`` times its output)."""

    def __init__(self, payload: dict[str, Any], path: Path) -> None:
        from agents.neural.network import build_critic

        self.path = path
        self.input_size = int(payload["critic_input_size"])
        self.network = build_critic(self.input_size, payload["critic_hidden"])
        try:
            self.network.load_state_dict(payload["critic"])
        except RuntimeError as error:
            raise CheckpointError(f"{path}: the critic weights do not fit the sizes it records ({error})") from None
        self.network.eval()
        config = payload.get("config")
        self.scale = float(config.get("reward_scale", 1000.0)) if isinstance(config, dict) else 1000.0

    def value(self, game: Any, seat: int) -> float:
        """The critic's value of ``game`` for ``seat`` (the state it was trained on: ``seat``'s
        observation followed by the hidden hands, or the observation alone)."""
        import torch

        kit = variant_kit(game.rules)
        observation = kit.observation_from_view(game.view(seat))
        if self.input_size == kit.state_size:
            inputs = kit.encode_state(game, seat, observation)
        elif self.input_size == kit.spec.size:
            inputs = observation
        else:
            raise CheckpointError(
                f"{self.path}: the critic reads {self.input_size} inputs, this game's state has {kit.state_size} "
                f"and its observation {kit.spec.size}"
            )
        with torch.inference_mode():
            output = self.network(torch.from_numpy(np.asarray(inputs, np.float32))[None])
        return float(output[0, 0]) * self.scale


@functools.lru_cache(maxsize=4)
def _critic(path: Path, mtime: int, size: int) -> Critic | None:
    payload = load_checkpoint(path)
    return Critic(payload, path) if "critic" in payload else None


def critic_of(path: Path) -> Critic | None:
    """The critic of a training checkpoint (loaded safely, cached while the file is unchanged), or
    None for a policy export, which has none."""
    stat = path.stat()
    return _critic(path, stat.st_mtime_ns, stat.st_size)


def analysis(record: dict[str, Any], seat: int, checkpoint: str | Path) -> dict[str, Any]:
    """At each decision of ``seat`` in ``record``, keyed by its step in :func:`timeline`: the
    policy's probabilities over the legal actions (most probable first), the action taken, and the
    critic's value where the checkpoint has one. ``ValueError`` (``CheckpointError``) when the
    checkpoint cannot be read or does not play this game."""
    policy = NeuralAgent(checkpoint)
    policy.check_rules(Rules.from_mapping(record["options"]))  # picks a bundled name's policy of the game
    critic = critic_of(policy.path)
    steps: dict[str, Any] = {}
    for step, (game, who, action) in enumerate(decisions(record)):
        if who != seat:
            continue
        mask = legal_mask(game)
        probabilities = policy.probabilities(game.view(seat), mask)
        legal = sorted(np.flatnonzero(mask).tolist(), key=lambda a: -probabilities[a])
        steps[str(step)] = {
            "probabilities": [
                {"action": a, "name": game.layout.to_string(a), "p": float(probabilities[a])} for a in legal
            ],
            "chosen": action,
            "value": critic.value(game, seat) if critic is not None else None,
        }
    return {"seat": seat, "checkpoint": str(checkpoint), "critic": critic is not None, "steps": steps}
