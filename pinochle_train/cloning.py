"""The behaviour-cloning loss of the warm start and of PPO's cloning term: the policy against the
imitated agent's choice, against soft targets made from its values of the legal cards, or, where
the labels hold simulated values of the legal actions (the learned bidding), a regression of the
logits on those values."""

from __future__ import annotations

import torch

from pinochle_env.cards import NUM_TYPES

#: The arrays of the imitation data the cloning loss reads (:func:`cloning_loss`).
CLONED_KEYS = ("observation", "action_mask", "action", "card_values", "call_values")
#: Weight of a row's regression loss against a cross-entropy row's: its squared errors are in logits.
REGRESSION_WEIGHT = 0.05


def cloning_loss(
    logits: torch.Tensor,
    batch: dict[str, torch.Tensor],
    card0: int,
    temperature: float,
    value_temperature: float,
) -> torch.Tensor:
    """The mean over rows of each row's loss against the teacher.

    - A row with simulated values of the auction's calls (``call_values``, points, one column per
      call action id from 0, NaN where none): the squared error between the logits and
      ``value / value_temperature`` over the valued calls, each side taken relative to its own mean
      (the logits' level is free), weighted by :data:`REGRESSION_WEIGHT`. The values are single
      noisy samples; the regression learns their expectation, and the greedy policy plays its best.
    - Else, with ``temperature > 0``, a row where the teacher valued the legal cards
      (``card_values``, points, NaN elsewhere; ``card0``: the action id of card type 0): the
      cross-entropy of ``softmax(value / temperature)`` over them.
    - Else the cross-entropy of the teacher's ``action``.
    """
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
    calls = batch["call_values"]
    valued = ~torch.isnan(calls)
    rows = valued.any(dim=1)
    if bool(rows.any()):
        call_logits = logits[rows, : calls.shape[1]]
        regression = _regression(call_logits, calls[rows], valued[rows], value_temperature)
        loss = loss.masked_scatter(rows, REGRESSION_WEIGHT * regression)
    return loss.mean()


def _regression(
    logits: torch.Tensor, values: torch.Tensor, valued: torch.Tensor, value_temperature: float
) -> torch.Tensor:
    """Per row: the mean squared error of the logits' deviations from their mean against the
    values' deviations from theirs over ``value_temperature``, over the valued actions."""
    weight = valued.float()
    count = weight.sum(dim=1, keepdim=True)
    targets = torch.nan_to_num(values) / value_temperature
    # Masked actions hold logits of -1e9: keep them out of the means before subtracting.
    kept = torch.where(valued, logits, 0.0)
    error = (kept - (kept * weight).sum(dim=1, keepdim=True) / count) - (
        targets - (targets * weight).sum(dim=1, keepdim=True) / count
    )
    return (error.square() * weight).sum(dim=1) / count.squeeze(1)
