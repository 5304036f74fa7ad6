"""Derived card-play features of the partnership game, computed from the observation inside the network.

A multi-layer perceptron finds it hard to compute from the raw observation what a card player
keeps in mind: which copies are still out, which cards a seat is known to hold, which cards are
masters, who is winning the trick in progress, how many points are left and how far the declaring
team is from its contract. :class:`PartnershipFeatures` computes those from the observation vector
itself, so they cost nothing in the environment (whose encoder, array fast path and
``observation_from_view`` stay as they are), are exactly the same whichever path made the
observation, and run batched on whatever device the network runs on. Everything here is a
function of what the seat may know, because the observation is.

The features (seats relative to the observer: me, left, partner, right):

- ``unseen`` (48, thermometer): copies of each card type whose place the seat does not know (not
  in its hand, not played, not known to be in another hand);
- ``known`` (3 x 48, thermometers): cards left, partner and right are known to hold: meld they
  showed and (for the partner) cards the seat passed to it, not played since;
- ``master`` (24): card types with no higher card of their suit still out;
- ``winning`` (4 + 2): the seat winning the trick in progress, and whether it is the observer's
  team, and its partner;
- ``points`` (2): trick points not taken yet, and those in the trick in progress (/ 250);
- ``contract`` (2): points the declaring team still needs for its contract after its meld and the
  tricks taken (/ 250), and whether the declaring team is the observer's.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pinochle_env.cards import COUNTING_VALUES, NUM_SUITS, NUM_TYPES, RANK_OF, SUIT_OF
from pinochle_env.encoding import HAND_POINTS, POINT_SCALE
from pinochle_env.games.partnership.game import Phase
from pinochle_env.switches import BID_STEP, MIN_BID

SEATS = 4
#: Sizes of the feature groups, in output order.
GROUPS = {"unseen": 48, "known": 3 * 48, "master": 24, "winning": 6, "points": 2, "contract": 2}
SIZE = sum(GROUPS.values())


def _counts(thermometer: torch.Tensor) -> torch.Tensor:
    """Copies per card type (..., 24) from thermometers (..., 48)."""
    return thermometer[..., :NUM_TYPES] + thermometer[..., NUM_TYPES:]


def _thermometer(counts: torch.Tensor) -> torch.Tensor:
    """Thermometers (..., 48) of counts (..., 24): at least one copy, then both."""
    return torch.cat([(counts >= 1).float(), (counts >= 2).float()], dim=-1)


class PartnershipFeatures(nn.Module):
    """The derived features of observations laid out by ``offsets`` (the spec's piece offsets) for
    a rule set with ``num_bids`` bid values; ``forward`` appends them: (B, size) -> (B, size + SIZE)."""

    # Constant tables (buffers, so they follow the network to its device).
    higher: torch.Tensor
    suit_of: torch.Tensor
    rank: torch.Tensor
    points: torch.Tensor
    bids: torch.Tensor

    def __init__(self, offsets: dict[str, int], num_bids: int, counting: str = "counters") -> None:
        super().__init__()
        self.offsets = dict(offsets)
        self.num_bids = num_bids
        self.phases = len(Phase)
        self.after_passing = int(Phase.THROW_IN)
        higher = torch.zeros(NUM_TYPES, NUM_TYPES)  # higher[t, u]: u is a higher card of t's suit
        for t in range(NUM_TYPES):
            for u in range(NUM_TYPES):
                higher[t, u] = float(SUIT_OF[u] == SUIT_OF[t] and RANK_OF[u] > RANK_OF[t])
        suit = torch.zeros(NUM_TYPES, NUM_SUITS)
        suit[torch.arange(NUM_TYPES), torch.tensor(SUIT_OF)] = 1.0
        values = COUNTING_VALUES[counting]
        self.register_buffer("higher", higher, persistent=False)
        self.register_buffer("suit_of", suit, persistent=False)
        self.register_buffer("rank", torch.tensor(RANK_OF, dtype=torch.float32), persistent=False)
        self.register_buffer(
            "points",
            torch.tensor([values[RANK_OF[t]] for t in range(NUM_TYPES)], dtype=torch.float32),
            persistent=False,
        )
        self.register_buffer("bids", MIN_BID + BID_STEP * torch.arange(num_bids, dtype=torch.float32), persistent=False)

    def _piece(self, x: torch.Tensor, name: str, size: int) -> torch.Tensor:
        start = self.offsets[name]
        return x[:, start : start + size]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, self.features(x)], dim=1)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The (B, SIZE) derived features of a batch of observations."""
        batch = x.shape[0]
        mine = _counts(self._piece(x, "hand", 48))
        played = _counts(self._piece(x, "played", SEATS * 48).reshape(batch, SEATS, 48))  # (B, 4, 24)
        shown = _counts(self._piece(x, "meld_shown", SEATS * 48).reshape(batch, SEATS, 48))
        passing = (_counts(self._piece(x, "cards_passed", 48)) - _counts(self._piece(x, "cards_received", 48))).clamp(
            min=0
        )
        # Once the passing is over (the phase after it: throw-in or play), the partner holds what I
        # passed it (passed simultaneously, cards arrive only at the end of the passing).
        passed_on = self._piece(x, "phase", self.phases)[:, self.after_passing :].sum(dim=1, keepdim=True)
        known_from = shown.clone()
        known_from[:, 2] = torch.maximum(known_from[:, 2], passing * passed_on)
        known = (known_from - played).clamp(min=0)[:, 1:]  # (B, 3, 24): left, partner, right
        out = (2.0 - mine - played.sum(dim=1)).clamp(min=0)  # copies not in my hand and not played
        # Where the cards I passed are, I know all along, whether the partner holds them yet or not.
        going = (passing * (1 - passed_on) - played[:, 2]).clamp(min=0)
        unseen = (out - known.sum(dim=1) - going).clamp(min=0)
        master = ((out @ self.higher.T) == 0).float()  # no higher card of the suit is still out
        winning = self._winning(x, batch)
        points = self._points(x, played.sum(dim=1))
        contract = self._contract(x)
        return torch.cat(
            [_thermometer(unseen), _thermometer(known).reshape(batch, -1), master, winning, points, contract], dim=1
        )

    def _winning(self, x: torch.Tensor, batch: int) -> torch.Tensor:
        """Who wins the trick in progress (one-hot, all zero before its first card), and whether
        it is the observer's team, or its partner."""
        trick = self._piece(x, "trick", SEATS * NUM_TYPES).reshape(batch, SEATS, NUM_TYPES)
        present = trick.sum(dim=2) > 0  # (B, 4): the seat has played to the trick
        leader = self._piece(x, "trick_leader", SEATS).argmax(dim=1)  # (B,)
        trump = self._piece(x, "trump", NUM_SUITS)  # (B, 4) one-hot
        led_card = trick[torch.arange(batch), leader]  # (B, 24)
        led_suit = led_card @ self.suit_of  # (B, 4)
        card_suit = trick @ self.suit_of  # (B, 4, 4)
        rank = trick @ self.rank  # (B, 4)
        is_trump = (card_suit * trump[:, None]).sum(dim=2)
        is_led = (card_suit * led_suit[:, None]).sum(dim=2)
        # Trump beats the led suit beats the rest; rank within; of two identical cards the first wins.
        order = (torch.arange(SEATS, device=x.device)[None] - leader[:, None]) % SEATS
        score = (100.0 * is_trump + 50.0 * is_led + rank) * SEATS + (SEATS - 1 - order)
        score = torch.where(present, score, torch.full_like(score, -1.0))
        winner = nn.functional.one_hot(score.argmax(dim=1), SEATS).float() * present.any(dim=1, keepdim=True)
        ours = winner[:, 0] + winner[:, 2]
        return torch.cat([winner, ours[:, None], winner[:, 2:3]], dim=1)

    def _points(self, x: torch.Tensor, played: torch.Tensor) -> torch.Tensor:
        """Trick points not taken yet (the last trick's included), and those on the table now."""
        taken = self._piece(x, "trick_points", 2).sum(dim=1)  # / 250
        trick = self._piece(x, "trick", SEATS * NUM_TYPES).reshape(x.shape[0], SEATS, NUM_TYPES).sum(dim=1)
        on_table = (trick @ self.points) / HAND_POINTS
        return torch.stack([(1.0 - taken).clamp(min=0), on_table], dim=1)

    def _contract(self, x: torch.Tensor) -> torch.Tensor:
        """What the declaring team still needs for its contract (/ 250; 0 before the auction ends),
        and whether it is the observer's team."""
        declarer = self._piece(x, "declarer", SEATS)  # one-hot, relative
        declared = declarer.sum(dim=1)
        ours = declarer[:, 0] + declarer[:, 2]
        contract = self._piece(x, "high_bid", self.num_bids) @ self.bids
        meld = self._piece(x, "meld_points", SEATS) * POINT_SCALE
        team_meld = ours * (meld[:, 0] + meld[:, 2]) + (1 - ours) * (meld[:, 1] + meld[:, 3])
        tricks = self._piece(x, "trick_points", 2) * HAND_POINTS  # my team, the other team
        team_tricks = ours * tricks[:, 0] + (1 - ours) * tricks[:, 1]
        need = ((contract - team_meld - team_tricks) / HAND_POINTS).clamp(-1.0, 2.0) * declared
        return torch.stack([need, ours], dim=1)


def feature_layer(kind: str | None, spec: Any) -> nn.Module | None:
    """The feature layer a checkpoint's ``features`` names (None: the raw observation alone)."""
    if kind is None:
        return None
    if kind != "partnership":
        raise ValueError(f"unknown feature layer {kind!r} (known: partnership)")
    return PartnershipFeatures(spec.offsets, spec.num_bids, spec.rules.counting)
