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
  tricks taken (/ 250), and whether the declaring team is the observer's;
- ``hand_value`` (3 x 4, per suit): the meld the seat's hand holds with that suit as trump (/ 1000,
  :func:`pinochle_env.rules.meld` under ``run_extras="consume"``), the suit's length (/ 12) and its
  aces and tens (/ 4): what the seat's bid and trump rest on.

Per card type, :meth:`PartnershipFeatures.card_features` says what that card means now (the
card-centred policy head's input, ``CARD_GROUPS``): my copies, copies unseen and higher copies
out, master, trump, of the led suit, whether it would take the trick in progress, its points, my
length in its suit, copies the partner or an opponent is known to hold, and its rank.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pinochle_env.cards import (
    ACE,
    COUNTING_VALUES,
    DIAMONDS,
    JACK,
    KING,
    NINE,
    NUM_RANKS,
    NUM_SUITS,
    NUM_TYPES,
    QUEEN,
    RANK_OF,
    SPADES,
    SUIT_OF,
    TEN,
    card,
)
from pinochle_env.encoding import HAND_POINTS, POINT_SCALE
from pinochle_env.games.partnership.encoding import rule_labels
from pinochle_env.games.partnership.game import Phase
from pinochle_env.rules import AROUND_POINTS
from pinochle_env.rules.switches import BID_STEP, CHOICES, MIN_BID

SEATS = 4
COUNTINGS = CHOICES["counting"]
#: Sizes of the feature groups, in output order.
GROUPS = {"unseen": 48, "known": 3 * 48, "master": 24, "winning": 6, "points": 2, "contract": 2, "hand_value": 12}
SIZE = sum(GROUPS.values())
#: What :meth:`PartnershipFeatures.card_features` says of each card type, in order (the card-centred
#: policy head's input, :class:`agents.neural.network.CardPolicy`).
CARD_GROUPS = {
    "mine": 1,
    "unseen": 1,
    "master": 1,
    "higher_out": 1,
    "trump": 1,
    "led_suit": 1,
    "beats": 1,
    "points": 1,
    "suit_length": 1,
    "partner_holds": 1,
    "opponents_hold": 1,
    "rank": NUM_RANKS,
}
CARD_SIZE = sum(CARD_GROUPS.values())


def _counts(thermometer: torch.Tensor) -> torch.Tensor:
    """Copies per card type (..., 24) from thermometers (..., 48)."""
    return thermometer[..., :NUM_TYPES] + thermometer[..., NUM_TYPES:]


def _strength(is_trump: torch.Tensor, is_led: torch.Tensor, rank: torch.Tensor) -> torch.Tensor:
    """How strongly a card stands in a trick: trump beats the led suit beats the rest, rank within."""
    return 100.0 * is_trump + 50.0 * is_led + rank


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
    values_by_counting: torch.Tensor
    bids: torch.Tensor
    rank_one_hot: torch.Tensor

    def __init__(self, offsets: dict[str, int], num_bids: int, counting: str = "counters") -> None:
        super().__init__()
        self.offsets = dict(offsets)
        self.num_bids = num_bids
        self.phases = len(Phase)
        self.queen_of_spades, self.jack_of_diamonds = card(QUEEN, SPADES), card(JACK, DIAMONDS)
        self.after_passing = int(Phase.THROW_IN)
        higher = torch.zeros(NUM_TYPES, NUM_TYPES)  # higher[t, u]: u is a higher card of t's suit
        for t in range(NUM_TYPES):
            for u in range(NUM_TYPES):
                higher[t, u] = float(SUIT_OF[u] == SUIT_OF[t] and RANK_OF[u] > RANK_OF[t])
        suit = torch.zeros(NUM_TYPES, NUM_SUITS)
        suit[torch.arange(NUM_TYPES), torch.tensor(SUIT_OF)] = 1.0
        # Card values per counting switch value, read off the "rules" piece where the observation
        # has one (encoder version 2), else those of ``counting``.
        self.counting_at = None
        if "rules" in offsets:
            labels = rule_labels()
            self.counting_at = [offsets["rules"] + labels.index(f"counting={name}") for name in COUNTINGS]
        values = COUNTING_VALUES[counting]
        table = [[COUNTING_VALUES[name][RANK_OF[t]] for t in range(NUM_TYPES)] for name in COUNTINGS]
        self.register_buffer("values_by_counting", torch.tensor(table, dtype=torch.float32), persistent=False)
        self.register_buffer("higher", higher, persistent=False)
        self.register_buffer("suit_of", suit, persistent=False)
        self.register_buffer("rank", torch.tensor(RANK_OF, dtype=torch.float32), persistent=False)
        ranks = nn.functional.one_hot(torch.tensor(RANK_OF), NUM_RANKS).float()[None]  # (1, 24, 6)
        self.register_buffer("rank_one_hot", ranks, persistent=False)
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
        return self.groups(self.parts(x))

    def groups(self, parts: dict[str, torch.Tensor]) -> torch.Tensor:
        """The (B, SIZE) feature groups, in ``GROUPS`` order, from :meth:`parts`."""
        batch = parts["unseen"].shape[0]
        known = _thermometer(parts["known"]).reshape(batch, -1)
        fixed = [_thermometer(parts["unseen"]), known, parts["master"], parts["winning"], parts["points"]]
        return torch.cat([*fixed, parts["contract"], parts["hand_value"]], dim=1)

    def parts(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """What the features are made of, by name: copies per card type (``mine``, ``out``: not mine
        and not played, ``unseen``, ``known``: (B, 3, 24) in left, partner and right), ``master``,
        the trick in progress (``winning``, ``best``: the winning card's strength, -1 before the first
        card, ``led_suit`` and ``trump``: one-hot), ``values`` (B, 24) of this game's counting and
        the groups ``points``, ``contract`` and ``hand_value``."""
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
        winning, best, led_suit, trump = self._winning(x, batch)
        values = self._values(x)
        return {
            "mine": mine,
            "out": out,
            "unseen": unseen,
            "known": known,
            "master": master,
            "winning": winning,
            "best": best,
            "led_suit": led_suit,
            "trump": trump,
            "values": values,
            "points": self._points(x, values),
            "contract": self._contract(x),
            "hand_value": self.hand_value(mine),
        }

    def card_features(self, parts: dict[str, torch.Tensor]) -> torch.Tensor:
        """(B, 24, CARD_SIZE): what each card type means now, in ``CARD_GROUPS`` order, from :meth:`parts`."""
        is_trump = parts["trump"] @ self.suit_of.T  # (B, 24)
        is_led = parts["led_suit"] @ self.suit_of.T
        strength = _strength(is_trump, is_led, self.rank)
        best = parts["best"][:, None]
        beats = ((strength > best) & (best >= 0)).float()  # would take the lead of the trick in progress
        mine = parts["mine"]
        suit_length = (mine @ self.suit_of) @ self.suit_of.T  # my cards of this card's suit
        known = parts["known"]
        batch = mine.shape[0]
        columns = [
            mine / 2,
            parts["unseen"] / 2,
            parts["master"],
            (parts["out"] @ self.higher.T) / 10,
            is_trump,
            is_led,
            beats,
            parts["values"] / 11,
            suit_length / 12,
            known[:, 1] / 2,
            (known[:, 0] + known[:, 2]) / 2,
        ]
        per_card = torch.stack(columns, dim=2)
        ranks = self.rank_one_hot.expand(batch, -1, -1)
        return torch.cat([per_card, ranks], dim=2)

    def hand_value(self, mine: torch.Tensor) -> torch.Tensor:
        """Per suit: the hand's meld with that suit as trump (/ 1000), its length (/ 12), its aces and tens (/ 4)."""
        by_suit = mine.reshape(-1, NUM_SUITS, NUM_RANKS)  # (B, suit, rank): 9 J Q K T A
        kings, queens = by_suit[:, :, KING], by_suit[:, :, QUEEN]
        marriages = torch.minimum(kings, queens)  # per suit: 20 each, 40 (royal) in trump
        run = by_suit[:, :, JACK:].amin(dim=2)  # J Q K T A of the suit: 150, double 1500
        run_points = torch.where(run >= 2, 1500.0, 150.0 * run)
        royals = marriages - run  # trump marriages besides the run's own K and Q
        arounds = by_suit.amin(dim=1)  # per rank, the copies held in every suit
        around_points = sum(
            torch.where(arounds[:, rank] >= 2, float(double), single * arounds[:, rank])
            for rank, (single, double) in AROUND_POINTS.items()
        )
        pinochles = torch.minimum(mine[:, self.queen_of_spades], mine[:, self.jack_of_diamonds])
        fixed = around_points + torch.where(pinochles >= 2, 300.0, 40.0 * pinochles)  # the same for every trump
        other_marriages = marriages.sum(dim=1, keepdim=True) - marriages  # those outside the trump suit
        meld = run_points + 40.0 * royals + 20.0 * other_marriages + 10.0 * by_suit[:, :, NINE] + fixed[:, None]
        length = by_suit.sum(dim=2) / 12.0
        high = (by_suit[:, :, ACE] + by_suit[:, :, TEN]) / 4.0
        return torch.cat([meld / POINT_SCALE, length, high], dim=1)

    def _winning(self, x: torch.Tensor, batch: int) -> tuple[torch.Tensor, ...]:
        """Who wins the trick in progress (one-hot, all zero before its first card), and whether
        it is the observer's team, or its partner; the winning card's strength (-1 before the
        first card), the led suit and trump (one-hot)."""
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
        # Of two identical cards the first wins.
        order = (torch.arange(SEATS, device=x.device)[None] - leader[:, None]) % SEATS
        score = _strength(is_trump, is_led, rank) * SEATS + (SEATS - 1 - order)
        score = torch.where(present, score, torch.full_like(score, -1.0))
        winner = nn.functional.one_hot(score.argmax(dim=1), SEATS).float() * present.any(dim=1, keepdim=True)
        ours = winner[:, 0] + winner[:, 2]
        best = torch.where(present, score.div(SEATS, rounding_mode="floor"), -1.0).amax(dim=1)
        return torch.cat([winner, ours[:, None], winner[:, 2:3]], dim=1), best, led_suit, trump

    def _values(self, x: torch.Tensor) -> torch.Tensor:
        """The points of each card type (B, 24) under this game's counting (read off the "rules"
        piece where the observation has one, else the layer's ``counting``)."""
        if self.counting_at is None:
            return self.points.expand(x.shape[0], -1)
        return x[:, self.counting_at] @ self.values_by_counting

    def _points(self, x: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """Trick points not taken yet (the last trick's included), and those on the table now."""
        taken = self._piece(x, "trick_points", 2).sum(dim=1)  # / 250
        trick = self._piece(x, "trick", SEATS * NUM_TYPES).reshape(x.shape[0], SEATS, NUM_TYPES).sum(dim=1)
        on_table = (trick * values).sum(dim=1) / HAND_POINTS
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
