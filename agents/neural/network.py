"""The networks: a policy over the masked action space and a value function.

One policy serves every seat: observations are already relative to the acting seat (me, left,
partner, right), so the same weights bid, pass cards and play for all four. Masked actions get a
logit of ``MASKED_LOGIT``, whose probability is exactly 0 in float32, so they are never sampled.
The value network sees the perfect-information state during training (``critic_input="state"``)
or the policy's own observation; only the policy is needed to play. A policy may compute derived
features from its observation first (``features="partnership"``: :mod:`.features`), and add to
the card actions' logits a card-centred score (``head="cards"``: :class:`CardPolicy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from pinochle_env.actions import ActionLayout
from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import Rules

from .checkpoints import checkpoint_value
from .features import CARD_SIZE, PartnershipFeatures, feature_layer
from .features import SIZE as FEATURE_SIZE

#: The policy's output heads: one logit per action from the last hidden layer, or with a card-centred
#: score added to the card actions' (:class:`CardPolicy`).
POLICY_HEADS = ("flat", "cards")
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


class CardPolicy(nn.Module):
    """A :class:`FeaturePolicy` whose card logits (passing and play) also get a score from one small
    network shared by all 24 card types: it sees the trunk's last hidden layer and what that card
    means now (:meth:`~agents.neural.features.PartnershipFeatures.card_features`: master, would win
    the trick, points, trump...), so what it learns of one card holds for every card alike, where the
    flat output layer learns each card's logit apart."""

    def __init__(self, features: PartnershipFeatures, mlp: MLP, card0: int, width: int = 64) -> None:
        super().__init__()
        self.features = features
        self.mlp = mlp
        self.card0 = card0
        last = mlp.layers[-1]
        assert isinstance(last, nn.Linear)
        self.from_hidden = nn.Linear(last.in_features, width)
        self.from_card = nn.Linear(CARD_SIZE, width)
        self.score = nn.Linear(width, 1)
        _start_small(self.score)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = self.features.parts(x)
        hidden = self.mlp.layers[:-1](torch.cat([x, self.features.groups(parts)], dim=1))
        logits = self.mlp.layers[-1](hidden)
        per_card = torch.relu(self.from_hidden(hidden)[:, None] + self.from_card(self.features.card_features(parts)))
        scores = self.score(per_card).squeeze(2)  # (B, 24)
        cards = slice(self.card0, self.card0 + scores.shape[1])
        return torch.cat([logits[:, : cards.start], logits[:, cards] + scores, logits[:, cards.stop :]], dim=1)


def _start_small(layer: nn.Module) -> None:
    """Small weights and no bias in an output layer, so that the first policy is near uniform."""
    assert isinstance(layer, nn.Linear)
    nn.init.orthogonal_(layer.weight, gain=0.01)
    nn.init.zeros_(layer.bias)


def build_policy(
    observation_size: int,
    hidden: Sequence[int],
    num_actions: int,
    features: str | None = None,
    spec: Any = None,
    head: str = "flat",
) -> nn.Module:
    """The policy network: an :class:`MLP`, after the derived-feature layer ``features`` (of the
    observation layout ``spec``) if one is named, with a card-centred head (:class:`CardPolicy`,
    which needs the partnership features) for ``head="cards"``. Its output layers start small, so
    the first policy is near uniform."""
    if head not in POLICY_HEADS:
        raise ValueError(f"unknown policy head {head!r} (known: {', '.join(POLICY_HEADS)})")
    layer = feature_layer(features, spec)
    mlp = MLP(observation_size + (FEATURE_SIZE if layer is not None else 0), hidden, num_actions)
    _start_small(mlp.layers[-1])
    if head == "cards":
        if not isinstance(layer, PartnershipFeatures):
            raise ValueError("the policy head 'cards' needs features='partnership'")
        return CardPolicy(layer, mlp, ActionLayout(spec.rules.max_bid).card0)
    return mlp if layer is None else FeaturePolicy(layer, mlp)


def policy_for(meta: dict[str, Any]) -> nn.Module:
    """A new policy network of the shape a checkpoint's metadata describes (sizes, hidden layers,
    derived features, head), ready for its weights."""
    features = checkpoint_value(meta, "features")
    spec = variant_kit(Rules.from_mapping(meta["rules"])).spec if features else None
    head = checkpoint_value(meta, "policy_head")
    return build_policy(meta["observation_size"], meta["hidden"], meta["num_actions"], features, spec, head)


def scale_logits(policy: nn.Module, factor: float) -> None:
    """Multiply every logit ``policy`` (of :func:`build_policy`) gives by ``factor``, in place, by
    scaling the weights and biases of its output layers: the greedy choice stays, and a factor above
    1 makes sampling from it nearer that choice (a policy fitted to soft targets samples weaker play
    than it plays greedily)."""
    mlp = policy if isinstance(policy, MLP) else policy.mlp
    assert isinstance(mlp, MLP)
    outputs = [mlp.layers[-1], *([policy.score] if isinstance(policy, CardPolicy) else [])]
    with torch.no_grad():
        for layer in outputs:
            assert isinstance(layer, nn.Linear)
            layer.weight.mul_(factor)
            layer.bias.mul_(factor)


def build_critic(input_size: int, hidden: Sequence[int]) -> MLP:
    return MLP(input_size, hidden, 1)


class LocationNetwork(nn.Module):
    """A seat's observation to, for each card type, the log-probability that a hidden copy of it is
    with each of the ``others`` other seats (left to right from the seat): an :class:`MLP` with a
    softmax over the seats per type (:mod:`.location`)."""

    def __init__(self, observation_size: int, hidden: Sequence[int], others: int) -> None:
        super().__init__()
        self.others = others
        self.mlp = MLP(observation_size, hidden, NUM_TYPES * others)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, NUM_TYPES, others) log-probabilities."""
        return torch.log_softmax(self.mlp(x).view(-1, NUM_TYPES, self.others), dim=2)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (mask 0) set to ``MASKED_LOGIT``."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)
