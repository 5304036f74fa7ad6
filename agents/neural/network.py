"""The networks: a policy over the masked action space and a value function.

One policy serves every seat: observations are already relative to the acting seat (me, left,
partner, right), so the same weights bid, pass cards and play for all four. Masked actions get a
logit of ``MASKED_LOGIT``, whose probability is exactly 0 in float32, so they are never sampled.
The value network sees the perfect-information state during training (``critic_input="state"``)
or the policy's own observation; only the policy is needed to play.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

#: Logit of a masked action: exp(MASKED_LOGIT - max) underflows to exactly 0 in float32.
MASKED_LOGIT = -1e9


class MLP(nn.Module):
    """Fully connected ReLU layers from ``inputs`` through ``hidden`` to ``outputs``."""

    def __init__(self, inputs: int, hidden: Sequence[int], outputs: int) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = inputs
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, outputs))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def build_policy(observation_size: int, hidden: Sequence[int], num_actions: int) -> MLP:
    """The policy network; its last layer starts small, so the first policy is near uniform."""
    policy = MLP(observation_size, hidden, num_actions)
    last = policy.layers[-1]
    assert isinstance(last, nn.Linear)
    nn.init.orthogonal_(last.weight, gain=0.01)
    nn.init.zeros_(last.bias)
    return policy


def build_critic(input_size: int, hidden: Sequence[int]) -> MLP:
    return MLP(input_size, hidden, 1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (mask 0) set to ``MASKED_LOGIT``."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)
