"""Observation of the cutthroat variant: named pieces computed from a seat's view alone.

The pieces follow the partnership game's with three seats, ordered *me, left, right*, and without
the partnership's help and passing pieces; the widow (public once shown), the cards I buried
(declarer only) and per-seat trick counts take their place.
Card pieces of width 48 are thermometers over the 24 card types (entry ``t``: at least one copy,
entry ``24 + t``: both copies). :meth:`CutthroatSpec.encode_view` reads only a
:class:`~.game.CutthroatView`, so nothing the seat may not see can reach it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...cards import NUM_TYPES, SUITS, counts_from_cards
from ...encoding import (
    HAND_POINTS,
    POINT_SCALE,
    THERMO,
    ObservationSpec,
    Thermometers,
    bid_labels,
    card_labels,
    hidden_hands,
    per_seat,
    thermo_labels,
)
from ...rules.switches import BID_STEP, MIN_BID, Rules
from .game import NUM_SEATS, NUM_TRICKS, CutthroatGame, CutthroatView, Phase

SEAT_NAMES = ("me", "left", "right")


def piece_labels(rules: Rules) -> list[tuple[str, list[str], str]]:
    """(name, per-index labels, description) of every piece, in vector order."""
    bids = bid_labels(rules)
    seats = list(SEAT_NAMES)
    return [
        ("hand", thermo_labels(), "cards I hold now (thermometer)"),
        ("phase", [p.name.lower() for p in Phase], "phase of the hand, one-hot"),
        ("acting", seats, "seat to act, one-hot (all zero when the hand is over)"),
        ("dealer", seats, "dealer, one-hot"),
        ("bids", per_seat(bids, SEAT_NAMES), "bid values each seat has called"),
        ("auction_passed", seats, "seat has passed"),
        ("high_bid", bids, "current high bid, then the contract, one-hot"),
        ("dealer_stuck", ["stuck"], "dealer is declarer at 250 after two passes"),
        ("declarer", seats, "declarer, one-hot"),
        ("widow", thermo_labels(), "the widow, once shown at the end of the auction (thermometer)"),
        ("trump", list(SUITS), "trump suit, one-hot"),
        ("buried", thermo_labels(), "cards I buried (declarer only; thermometer)"),
        ("meld_shown", per_seat(thermo_labels(), SEAT_NAMES), "cards each seat showed in meld (thermometer)"),
        ("meld_points", seats, "meld points of each seat / 1000"),
        ("thrown_in", ["thrown in", "played"], "throw-in decision"),
        ("played", per_seat(thermo_labels(), SEAT_NAMES), "cards each seat has played this hand (thermometer)"),
        ("trick", per_seat(card_labels(), SEAT_NAMES), "card each seat played to the trick in progress"),
        ("trick_leader", seats, "leader of the trick in progress, one-hot"),
        ("tricks_won", seats, f"tricks each seat won this hand / {NUM_TRICKS}"),
        ("trick_points", seats, "trick points each seat took this hand / 250"),
        ("scores", seats, "running game score of each seat / target score"),
    ]


class CutthroatSpec(ObservationSpec):
    """The observation pieces of the cutthroat variant, and the encoder of views and states."""

    def __init__(self, rules: Rules) -> None:
        if rules.variant != "cutthroat":
            raise ValueError(f"CutthroatSpec encodes variant='cutthroat', got variant={rules.variant!r}")
        super().__init__(rules, pieces=piece_labels(rules))
        self.state_size = self.size + NUM_SEATS * THERMO
        o = self.offsets
        blocks = [o["hand"], o["widow"], o["buried"]]
        blocks += [o[piece] + rel * THERMO for piece in ("meld_shown", "played") for rel in range(NUM_SEATS)]
        self._thermometers = Thermometers(blocks)

    def encode_view(self, view: CutthroatView) -> np.ndarray:
        """The observation of ``view.seat`` (seats relative: me, left, right), from the view alone."""
        obs = np.zeros(self.size, np.float32)
        self._encode_auction(obs, view)
        self._encode_cards(obs, view)
        self._encode_play(obs, view)
        return obs

    def encode_state(
        self, game: CutthroatGame, seat: int, observation: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The perfect-information state from ``seat``'s side: its observation, then the hands of
        left and right and the cards out of play (the widow before it is taken, the buried cards
        after), as thermometers (into ``out`` if given)."""
        hands = [game.hands[(seat + rel) % NUM_SEATS] for rel in (1, 2)]
        away = counts_from_cards(game.buried if game.widow_shown else game.widow)
        if out is None:
            out = np.empty(self.state_size, np.float32)
        out[: observation.shape[0]] = observation
        out[observation.shape[0] :] = hidden_hands(np.asarray([*hands, away]))
        return out

    # -- pieces, grouped -------------------------------------------------------------------------
    def _set(self, obs: np.ndarray, piece: str, index: int, value: float = 1.0) -> None:
        obs[self.offsets[piece] + index] = value

    def _encode_auction(self, obs: np.ndarray, view: CutthroatView) -> None:
        """Phase, who acts, dealer, the calls, high bid / contract, stuck dealer, declarer."""
        rel = _relative(view.seat)
        self._set(obs, "phase", int(view.phase))
        if view.to_act >= 0:
            self._set(obs, "acting", rel(view.to_act))
        self._set(obs, "dealer", rel(view.dealer))
        for who, call in view.auction:
            if isinstance(call, str):  # "pass" (cutthroat has no help)
                self._set(obs, "auction_passed", rel(who))
            else:
                self._set(obs, "bids", rel(who) * self.num_bids + _bid_index(call))
        high = view.contract if view.declarer >= 0 else view.high_bid
        if high:
            self._set(obs, "high_bid", _bid_index(high))
        if view.stuck:
            self._set(obs, "dealer_stuck", 0)
        if view.declarer >= 0:
            self._set(obs, "declarer", rel(view.declarer))
        if view.trump >= 0:
            self._set(obs, "trump", view.trump)

    def _encode_cards(self, obs: np.ndarray, view: CutthroatView) -> None:
        """My hand, the widow, my buried cards, every seat's meld and the cards each seat played."""
        rel = _relative(view.seat)
        shown = [_NONE] * NUM_SEATS
        for who, meld in enumerate(view.meld):
            if meld is not None:
                shown[rel(who)] = meld.shown
                self._set(obs, "meld_points", rel(who), meld.points / POINT_SCALE)
        played = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        for leader, cards in [(leader, cards) for leader, cards, _ in view.tricks] + [(view.trick_leader, view.trick)]:
            for k, card in enumerate(cards):
                played[rel(leader + k)][card] += 1
        own = [view.hand, counts_from_cards(view.widow), counts_from_cards(view.buried)]
        self._thermometers.write(obs, [*own, *shown, *played])

    def _encode_play(self, obs: np.ndarray, view: CutthroatView) -> None:
        """Throw-in decision, the trick in progress and its leader, tricks, trick points, scores."""
        rel = _relative(view.seat)
        if view.thrown_in is not None:
            self._set(obs, "thrown_in", 0 if view.thrown_in else 1)
        for k, card in enumerate(view.trick):
            self._set(obs, "trick", rel(view.trick_leader + k) * NUM_TYPES + card)
        if view.trick_leader >= 0:
            self._set(obs, "trick_leader", rel(view.trick_leader))
        for who in range(NUM_SEATS):
            self._set(obs, "tricks_won", rel(who), view.tricks_won[who] / NUM_TRICKS)
            self._set(obs, "trick_points", rel(who), view.trick_points[who] / HAND_POINTS)
            self._set(obs, "scores", rel(who), view.totals[who] / self.rules.target)


#: The count vector of no cards (a seat that has not melded yet).
_NONE = (0,) * NUM_TYPES


def _relative(seat: int) -> Callable[[int], int]:
    """Maps an absolute seat to its place seen from ``seat``: 0 me, 1 left, 2 right."""
    return lambda who: (who - seat) % NUM_SEATS


def _bid_index(bid: int) -> int:
    return (bid - MIN_BID) // BID_STEP
