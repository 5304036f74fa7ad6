"""Warm start by imitation: learn a bot's decisions from its hand records, before self-play.

With ``imitate = "heuristic"`` and ``imitation_hands = N`` the trainer first has the bot play
``N`` hands against itself (worker processes, seeded by the run's seed), turns the hand records
into training arrays (:func:`pinochle_env.records.to_arrays`, with the perfect-information states
for the critic), and fits the policy to the bot's choices (cross-entropy over the masked logits)
and the critic to each hand's outcome for the deciding seat's team (the Monte-Carlo return), for
``imitation_epochs`` passes. Self-play PPO then improves on that start. Forced decisions (one
legal action) carry no information and are left out. With ``sample_rules`` each chunk of
``CHUNK_HANDS`` hands is played under a rule set of its own (:func:`chunk_rules`).
"""

from __future__ import annotations

import multiprocessing
from typing import Any, TextIO

import numpy as np
import torch
from torch import nn

from agents.base import decide, prepare
from agents.neural.network import MLP, masked_logits
from agents.registry import load_agent
from pinochle_env.kit import margins
from pinochle_env.records import to_arrays
from pinochle_env.switches import Rules, random_rules
from pinochle_env.variants import variant_kit

from .config import TrainConfig

#: Hands one worker call plays (bounds the memory of one chunk's float arrays).
CHUNK_HANDS = 250


def play_records(spec: str, rules: Rules, hands: int, seed: list[int]) -> list[dict[str, Any]]:
    """Hand records of ``hands`` hands of the agent ``spec`` in every seat, in the game of ``rules``."""
    kit = variant_kit(rules)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    players = [load_agent(spec, int(rng.integers(2**31))) for _ in range(kit.num_seats)]
    records = []
    for _ in range(hands):
        game = kit.new_game(rng)
        while not game.hand_over:
            game.apply(decide(players[game.to_act], game))
        records.append(game.record())
    return records


def chunk_rules(config: TrainConfig, chunk: int) -> Rules:
    """The rules of one chunk of imitation hands: the config's, or with ``sample_rules`` a rule set
    drawn over the switches for that chunk (as each rollout draws its own), so that the warm start
    already sees the rule sets self-play will."""
    if not config.sample_rules:
        return config.rule_set()
    return random_rules(np.random.default_rng([config.seed, chunk, 2**31 + 4]), config.rule_set())


def chunk_arrays(job: tuple[TrainConfig, int, int]) -> dict[str, np.ndarray]:
    """One chunk of imitation data: play, convert, drop forced decisions, compact to uint8."""
    config, chunk, hands = job
    records = play_records(config.imitate, chunk_rules(config, chunk), hands, [config.seed, 2**31 + 1, chunk])
    arrays = to_arrays(records, config.reward_scale, states=config.critic_input == "state")
    # Each seat's return: its team's hand score minus the mean of the other teams', as self-play pays it.
    teams = variant_kit(config.rule_set()).teams
    paid = np.array([margins(record["score"], teams) for record in records], np.float32) / config.reward_scale
    keep = arrays["action_mask"].sum(axis=1) > 1
    critic_key = "state" if config.critic_input == "state" else "observation"
    return {
        "observation": arrays["observation"][keep].astype(np.uint8),
        "critic_input": arrays[critic_key][keep].astype(np.uint8),
        "action_mask": arrays["action_mask"][keep].astype(np.uint8),
        "action": arrays["action"][keep],
        "returns": paid[arrays["hand"], arrays["seat"]][keep],
    }


def collect_imitation_data(config: TrainConfig, log: TextIO | None = None) -> dict[str, np.ndarray]:
    """Imitation arrays for ``config.imitation_hands`` hands of ``config.imitate`` (in chunk order)."""
    sizes = [
        min(CHUNK_HANDS, config.imitation_hands - start) for start in range(0, config.imitation_hands, CHUNK_HANDS)
    ]
    jobs = [(config, chunk, hands) for chunk, hands in enumerate(sizes)]
    # One-time set-up here, not in each worker (the search bot compiles its kernel, cached on disk).
    prepare(load_agent(config.imitate, config.seed), config.rule_set())
    if config.workers <= 1:
        parts = _gather(map(chunk_arrays, jobs), len(jobs), log)
    else:
        with multiprocessing.get_context("spawn").Pool(config.workers) as pool:
            parts = _gather(pool.imap(chunk_arrays, jobs), len(jobs), log)
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _gather(iterator: Any, total: int, log: TextIO | None) -> list[dict[str, np.ndarray]]:
    parts = []
    for done, part in enumerate(iterator, start=1):
        parts.append(part)
        if log is not None and (done == total or done % max(total // 10, 1) == 0):
            print(f"imitation: played {done}/{total} chunks of {CHUNK_HANDS} hands", file=log, flush=True)
    return parts


def fit_imitation(
    policy: nn.Module,
    critic: MLP,
    optimizer: torch.optim.Optimizer,
    data: dict[str, np.ndarray],
    config: TrainConfig,
    device: torch.device,
    log: TextIO | None = None,
) -> dict[str, float]:
    """Fit the policy to the bot's actions and the critic to the outcomes; final epoch's statistics."""
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, 2**31 + 2]))
    tensors = {key: torch.from_numpy(value) for key, value in data.items()}
    n = len(data["action"])
    parameters = [*policy.parameters(), *critic.parameters()]
    statistics: dict[str, float] = {}
    for epoch in range(config.imitation_epochs):
        totals = np.zeros(3)
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, config.minibatch_size):
            index = order[start : start + config.minibatch_size]
            batch = {key: tensor[index].to(device) for key, tensor in tensors.items()}
            logits = masked_logits(policy(batch["observation"].float()), batch["action_mask"])
            policy_loss = nn.functional.cross_entropy(logits, batch["action"])
            value = critic(batch["critic_input"].float()).squeeze(1)
            value_loss = 0.5 * ((value - batch["returns"]) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + config.value_coef * value_loss).backward()
            nn.utils.clip_grad_norm_(parameters, config.max_grad_norm)
            optimizer.step()
            agree = (logits.argmax(dim=1) == batch["action"]).float().sum()
            totals += [policy_loss.item() * len(index), value_loss.item() * len(index), agree.item()]
        statistics = {"cross_entropy": totals[0] / n, "value_loss": totals[1] / n, "agreement": totals[2] / n}
        if log is not None:
            print(
                f"imitation: epoch {epoch + 1}/{config.imitation_epochs}, {n:,} decisions, cross-entropy "
                f"{statistics['cross_entropy']:.3f}, agreement {100 * statistics['agreement']:.1f}%, "
                f"value loss {statistics['value_loss']:.4f}",
                file=log,
                flush=True,
            )
    return statistics
