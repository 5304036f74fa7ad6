"""The behaviour-cloning loss of the warm start and of PPO's cloning term: the policy against the
imitated agent's choice, or against soft targets made from its values of the legal cards."""

from __future__ import annotations

import torch

from pinochle_env.cards import NUM_TYPES

#: The arrays of the imitation data the cloning loss reads (:func:`cloning_loss`).
CLONED_KEYS = ("observation", "action_mask", "action", "card_values")


def cloning_loss(logits: torch.Tensor, batch: dict[str, torch.Tensor], card0: int, temperature: float) -> torch.Tensor:
    """The mean cross-entropy of the masked ``logits`` against the teacher: its ``action``, or with
    ``temperature > 0`` in a row where it valued the legal cards (``card_values``, points, NaN
    elsewhere), ``softmax(value / temperature)`` over them (``card0``: the action id of card type 0)."""
    log_p = torch.log_softmax(logits, dim=1)
    loss = -log_p.gather(1, batch["action"][:, None]).squeeze(1)
    if temperature > 0:
        values = batch["card_values"]
        valued = ~torch.isnan(values)
        rows = valued.any(dim=1)
        target = torch.softmax(torch.where(valued, values / temperature, -torch.inf)[rows], dim=1)
        card_log_p = log_p[rows, card0 : card0 + NUM_TYPES]
        soft = -torch.where(target > 0, target * card_log_p, 0.0).sum(dim=1)
        loss = loss.masked_scatter(rows, soft)
    return loss.mean()
