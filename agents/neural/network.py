"""The networks: a policy over the masked action space and a value function.

One policy serves every seat: observations are already relative to the acting seat (me, left,
partner, right), so the same weights bid, pass cards and play for all four. Masked actions get a
logit of ``MASKED_LOGIT``, whose probability is exactly 0 in float32, so they are never sampled.
The value network sees the perfect-information state during training (``critic_input="state"``)
or the policy's own observation; only the policy is needed to play. A policy may compute derived
features from its observation first (``features="partnership"``: :mod:`.features`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from pinochle_env.switches import Rules
from pinochle_env.variants import variant_kit

from .features import SIZE as FEATURE_SIZE
from .features import feature_layer

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


class FeaturePolicy(nn.Module):
    """A policy that appends derived features to its observation before its :class:`MLP`."""

    def __init__(self, features: nn.Module, mlp: MLP) -> None:
        super().__init__()
        self.features = features
        self.mlp = mlp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.features(x))


def build_policy(
    observation_size: int, hidden: Sequence[int], num_actions: int, features: str | None = None, spec: Any = None
) -> nn.Module:
    """The policy network: an :class:`MLP`, after the derived-feature layer ``features`` (of the
    observation layout ``spec``) if one is named. Its last layer starts small, so the first policy
    is near uniform."""
    layer = feature_layer(features, spec)
    mlp = MLP(observation_size + (FEATURE_SIZE if layer is not None else 0), hidden, num_actions)
    last = mlp.layers[-1]
    assert isinstance(last, nn.Linear)
    nn.init.orthogonal_(last.weight, gain=0.01)
    nn.init.zeros_(last.bias)
    return mlp if layer is None else FeaturePolicy(layer, mlp)


def policy_for(meta: dict[str, Any]) -> nn.Module:
    """A new policy network of the shape a checkpoint's metadata describes (sizes, hidden layers,
    derived features), ready for its weights."""
    features = meta.get("features")
    spec = variant_kit(Rules.from_mapping(meta["rules"])).spec if features else None
    return build_policy(meta["observation_size"], meta["hidden"], meta["num_actions"], features, spec)


def build_critic(input_size: int, hidden: Sequence[int]) -> MLP:
    return MLP(input_size, hidden, 1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (mask 0) set to ``MASKED_LOGIT``."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)
