"""The policy networks' logit scaling (:func:`agents.neural.network.scale_logits`)."""

from __future__ import annotations

import pytest
import torch

from agents.neural.agent import resolve_checkpoint
from agents.neural.checkpoints import load_checkpoint
from agents.neural.network import policy_for, scale_logits


@pytest.mark.parametrize(("features", "head"), [(None, "flat"), ("partnership", "flat"), ("partnership", "cards")])
def test_scale_logits_multiplies_every_logit_of_every_kind_of_policy(features: str | None, head: str) -> None:
    """Every logit (bids, cards, the card-centred head's scores included) comes out times the factor:
    a layer left unscaled fails it."""
    meta = load_checkpoint(resolve_checkpoint("bundled", "partnership"))
    torch.manual_seed(0)
    policy = policy_for({**meta, "features": features, "policy_head": head})
    with torch.no_grad():
        for parameter in policy.parameters():  # output layers start near zero: make every layer count
            parameter.normal_(0.0, 0.2)
        observations = torch.rand(6, meta["observation_size"])
        before = policy(observations)
        scale_logits(policy, 2.5)
        after = policy(observations)
    assert before.abs().max() > 0.1
    assert torch.allclose(after, 2.5 * before, rtol=1e-4, atol=1e-4)
