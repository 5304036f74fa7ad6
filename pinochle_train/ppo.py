"""The PPO update: clipped policy loss with masked logits, value loss, entropy bonus, and what keeps
the policy near where self-play began (:class:`Guides`): with ``imitation_coef`` a behaviour-cloning
loss toward the imitated agent's decisions, with ``anchor_kl_coef`` the KL divergence of the policy
from the anchor policy on the update's own decisions.

Statistics come back per decision phase (``DECISIONS``) and over all decisions, averaged over
every minibatch of the update: policy loss, value loss, entropy, approximate KL
(``(r - 1) - log r``), clip fraction, the anchor KL (with an anchor) and the explained variance of
the collection-time values.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from agents.neural.network import MLP, masked_logits
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import DECISIONS

from .cloning import CLONED_KEYS, cloning_loss
from .config import TrainConfig
from .rollout import Samples

STATISTICS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")


class Guides(NamedTuple):
    """What keeps a PPO update near where self-play began.

    ``teacher``: the imitation data (observations, masks, the imitated agent's actions and card
    values) of the cloning loss (``imitation_coef``), on the teacher's decisions. ``anchor``: a
    frozen policy (the one self-play started from) whose KL divergence from the policy, on the
    update's own decisions, the loss adds with weight ``anchor_kl_coef`` (kickstarting, piKL): the
    policy moves away from it only where the advantages pay for the move.
    """

    teacher: dict[str, torch.Tensor] | None = None
    anchor: nn.Module | None = None


#: Plain PPO: no cloning loss, no anchor.
NO_GUIDES = Guides()


def ppo_update(
    policy: nn.Module,
    critic: MLP,
    optimizer: torch.optim.Optimizer,
    samples: Samples,
    config: TrainConfig,
    rng: np.random.Generator,
    device: torch.device,
    guides: Guides = NO_GUIDES,
    fit_policy: bool = True,
) -> dict[str, dict[str, float]]:
    """Run ``config.epochs`` passes of minibatch PPO over ``samples``; statistics[name][phase or "all"].

    With ``guides.teacher`` and ``config.imitation_coef > 0``, every minibatch adds that weight
    times the cloning loss (:func:`~.cloning.cloning_loss`) of the policy on as many of the
    teacher's decisions, drawn afresh: self-play improves on the imitated agent without forgetting
    what it learned from it (``imitation`` in the statistics). With ``guides.anchor`` and
    ``config.anchor_kl_coef > 0``, every minibatch adds that weight times the mean KL divergence of
    the policy from the anchor (``anchor_kl``). With ``fit_policy`` false only the value network
    learns (the critic's warm-up): the policy's statistics are still measured.
    """
    n = len(samples)
    tensors = {
        "observation": torch.from_numpy(samples.observation),
        "critic_input": torch.from_numpy(samples.critic_input),
        "mask": torch.from_numpy(samples.action_mask),
        "action": torch.from_numpy(samples.action),
        "log_prob": torch.from_numpy(samples.log_prob),
        "advantage": torch.from_numpy(samples.advantage),
        "returns": torch.from_numpy(samples.returns),
        "phase": torch.from_numpy(samples.phase.astype(np.int64)),
    }
    teacher = guides.teacher if fit_policy else None
    anchor = guides.anchor if config.anchor_kl_coef > 0 else None
    names = (*STATISTICS, "anchor_kl") if anchor is not None else STATISTICS
    groups = len(DECISIONS)
    sums = torch.zeros(len(names), groups)
    counts = torch.zeros(groups)
    parameters = [*policy.parameters(), *critic.parameters()]
    card0 = variant_kit(config.rule_set()).layout.card0
    cloned: list[float] = []
    for _ in range(config.epochs):
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, config.minibatch_size):
            index = order[start : start + config.minibatch_size]
            batch = {name: tensor[index].to(device) for name, tensor in tensors.items()}
            per_sample = _losses(policy, critic, batch, config, anchor)
            loss = config.value_coef * per_sample["value_loss"].mean()
            if fit_policy:
                loss = loss + per_sample["policy_loss"].mean() - config.entropy_coef * per_sample["entropy"].mean()
            if fit_policy and anchor is not None:
                loss = loss + config.anchor_kl_coef * per_sample["anchor_kl"].mean()
            if teacher is not None and config.imitation_coef > 0:
                drawn = torch.from_numpy(rng.integers(len(teacher["action"]), size=len(index)))
                taught = {name: teacher[name][drawn].to(device) for name in CLONED_KEYS}
                logits = masked_logits(policy(taught["observation"].float()), taught["action_mask"])
                imitation = cloning_loss(logits, taught, card0, config.imitation_temperature, config.value_temperature)
                loss = loss + config.imitation_coef * imitation
                cloned.append(float(imitation.detach()))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(parameters, config.max_grad_norm)
            optimizer.step()
            phase = batch["phase"].cpu()
            with torch.no_grad():
                for k, name in enumerate(names):
                    sums[k] += torch.bincount(phase, per_sample[name].detach().cpu(), minlength=groups)
                counts += torch.bincount(phase, minlength=groups)
    statistics: dict[str, dict[str, float]] = {}
    for k, name in enumerate(names):
        statistics[name] = {DECISIONS[g]: float(sums[k, g] / counts[g]) for g in range(groups) if counts[g] > 0} | {
            "all": float(sums[k].sum() / counts.sum()) if counts.sum() > 0 else float("nan")
        }
    statistics["explained_variance"] = explained_variance(samples)
    if cloned:
        statistics["imitation"] = {"all": float(np.mean(cloned))}
    return statistics


def _losses(
    policy: nn.Module, critic: MLP, batch: dict[str, torch.Tensor], config: TrainConfig, anchor: nn.Module | None
) -> dict[str, torch.Tensor]:
    """Per-decision losses and diagnostics of one minibatch (``anchor_kl`` with an anchor policy)."""
    logits = masked_logits(policy(batch["observation"].float()), batch["mask"])
    log_probs = torch.log_softmax(logits, dim=1)
    new_log_prob = log_probs.gather(1, batch["action"].unsqueeze(1)).squeeze(1)
    log_ratio = new_log_prob - batch["log_prob"]
    ratio = log_ratio.exp()
    advantage = batch["advantage"]
    if len(advantage) > 1:
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    policy_loss = torch.max(-advantage * ratio, -advantage * ratio.clamp(1 - config.clip_range, 1 + config.clip_range))
    value = critic(batch["critic_input"].float()).squeeze(1)
    value_loss = 0.5 * (value - batch["returns"]) ** 2
    entropy = -(log_probs.exp() * log_probs).sum(dim=1)
    with torch.no_grad():
        approx_kl = (ratio - 1) - log_ratio
        clipped = ((ratio - 1).abs() > config.clip_range).float()
    losses = {
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "entropy": entropy,
        "approx_kl": approx_kl,
        "clip_fraction": clipped,
    }
    if anchor is not None:
        losses["anchor_kl"] = anchor_kl(log_probs, anchor, batch)
    return losses


def anchor_kl(log_probs: torch.Tensor, anchor: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Per decision, KL(policy || anchor) over the legal actions: the policy's expected log-ratio to
    the anchor's, the direction piKL and RLHF regularise (the policy may sharpen where the anchor
    hedged, but pays for putting weight where the anchor put little)."""
    with torch.no_grad():
        anchor_log_probs = torch.log_softmax(masked_logits(anchor(batch["observation"].float()), batch["mask"]), dim=1)
    terms = log_probs.exp() * (log_probs - anchor_log_probs)
    return torch.where(batch["mask"] != 0, terms, 0.0).sum(dim=1)


def explained_variance(samples: Samples) -> dict[str, float]:
    """1 - Var(returns - values) / Var(returns) of the collection-time values, per phase and overall."""
    result = {}
    for name, selected in [(n, samples.phase == g) for g, n in enumerate(DECISIONS)] + [("all", slice(None))]:
        returns = samples.returns[selected]
        if len(returns) < 2 or returns.var() == 0:
            continue
        result[name] = float(1 - (returns - samples.value[selected]).var() / returns.var())
    return result
