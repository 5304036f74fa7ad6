"""Observation of the two-handed game: a float32 vector computed from a seat's view alone.

Seat-indexed pieces are ordered *me, opponent*. Card pieces of width 48 are thermometers over the
24 card types (entry ``t``: at least one copy of type ``t``; entry ``24 + t``: both copies), as in
the partnership encoder. Because :func:`TwoHandSpec.encode_view` reads only a
:class:`~.game.TwoHandView`, nothing hidden from the seat can reach its vector.
"""

from __future__ import annotations

import numpy as np

from ...cards import COPIES, NUM_TYPES, SUITS
from ...encoding import (
    HAND_POINTS,
    POINT_SCALE,
    THERMO,
    ObservationSpec,
    Thermometers,
    card_labels,
    hidden_hands,
    per_seat,
    thermo_labels,
)
from ...rules.switches import Rules
from .actions import LAYOUT
from .game import DIX_POINTS, NUM_SEATS, NUM_TRICKS, STOCK_SIZE, Phase, TwoHandGame, TwoHandView
from .melds import MELD_CARDS, meld_points

SEAT_NAMES = ("me", "opponent")
#: Meld actions counted per seat in ``meld_kinds``: every meld kind, then dix exchange and dix show.
MELD_COUNT_NAMES = tuple(LAYOUT.to_string(a) for a in range(LAYOUT.meld0, LAYOUT.no_meld))


def piece_labels() -> list[tuple[str, list[str], str]]:
    """(name, per-index labels, description) of every piece, in vector order."""
    seats = list(SEAT_NAMES)
    return [
        ("hand", thermo_labels(), "cards I hold now, concealed and on the table (thermometer)"),
        ("table", per_seat(thermo_labels(), SEAT_NAMES), "each seat's melded cards on the table (thermometer)"),
        (
            "known",
            per_seat(thermo_labels(), SEAT_NAMES),
            "cards both know each seat holds (all, once the stock is gone)",
        ),
        ("phase", [p.name.lower() for p in Phase], "phase of the hand, one-hot"),
        ("acting", seats, "seat to act, one-hot (all zero when the hand is over)"),
        ("dealer", seats, "dealer, one-hot"),
        ("trick_leader", seats, "leader of the trick in progress, one-hot"),
        ("trump", list(SUITS), "trump suit, one-hot"),
        ("turn_up", card_labels(), "the turned-up card under the stock, one-hot (zero once taken)"),
        ("stock", ["cards left"], f"cards left in the stock / {STOCK_SIZE}"),
        ("played", per_seat(thermo_labels(), SEAT_NAMES), "cards each seat has played this hand (thermometer)"),
        ("trick", per_seat(card_labels(), SEAT_NAMES), "card each seat played to the trick in progress"),
        ("tricks_done", ["tricks"], f"tricks completed this hand / {NUM_TRICKS}"),
        ("meld_points", seats, "meld points of each seat this hand / 1000"),
        ("meld_kinds", per_seat(list(MELD_COUNT_NAMES), SEAT_NAMES), "times each seat scored each meld / 2"),
        ("trick_points", seats, "trick points of each seat this hand / 250"),
        ("scores", seats, "running game score before this hand / target score"),
    ]


class TwoHandSpec(ObservationSpec):
    """The observation pieces of the two-handed game, and its encoder and perfect-information state."""

    def __init__(self, rules: Rules | None = None) -> None:
        super().__init__(rules if rules is not None else Rules(variant="two_hand"), pieces=piece_labels())
        self.state_size = self.size + 2 * THERMO + NUM_TYPES
        o = self.offsets
        blocks = [o["hand"]] + [o[piece] + rel * THERMO for piece in ("table", "known", "played") for rel in (0, 1)]
        self._thermometers = Thermometers(blocks)

    def max_meld_points(self) -> int:
        """The most meld points a seat can score in a hand, a bound from the meld rules: one meld
        is declared per turn and every card serves each class of meld once, so a kind that needs
        ``k`` copies of its cards scores at most ``2 // k`` times; add every kind that often (with
        the best trump) and a dix for the turn-up and for each trump nine (far from tight)."""
        best = 0
        for trump in range(len(SUITS)):
            total = (COPIES + 1) * DIX_POINTS
            for kind, cards in enumerate(MELD_CARDS[trump]):
                total += COPIES // max(copies for _, copies in cards) * meld_points(kind, trump)
            best = max(best, total)
        return best

    def max_hand_loss(self) -> int:
        """Nothing: the two-handed game has no contract, a hand only adds meld and trick points."""
        return 0

    def encode_view(self, view: TwoHandView) -> np.ndarray:
        """The observation of ``view.seat``, from the view alone."""
        out = np.zeros(self.size, np.float32)
        seat, o = view.seat, self.offsets
        order = (seat, 1 - seat)  # absolute seats of "me" and "opponent"
        played = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        for leader, cards, _ in view.tricks:
            for k, c in enumerate(cards):
                played[(leader + k) % NUM_SEATS][c] += 1
        for k, c in enumerate(view.trick):
            played[(view.trick_leader + k) % NUM_SEATS][c] += 1
            out[o["trick"] + order.index((view.trick_leader + k) % NUM_SEATS) * NUM_TYPES + c] = 1.0
        known = _known(view, played)
        blocks = [view.hand, *(view.table[who] for who in order), *(known[who] for who in order)]
        self._thermometers.write(out, [*blocks, *(played[who] for who in order)])
        for rel, who in enumerate(order):
            out[o["meld_points"] + rel] = view.meld_points[who] / POINT_SCALE
            start = o["meld_kinds"] + rel * len(MELD_COUNT_NAMES)
            out[start : start + len(MELD_COUNT_NAMES)] = [count / COPIES for count in view.meld_counts[who]]
            out[o["trick_points"] + rel] = view.trick_points[who] / HAND_POINTS
            out[o["scores"] + rel] = view.totals[who] / view.rules.target
        out[o["phase"] + int(view.phase)] = 1.0
        if view.to_act >= 0:
            out[o["acting"] + order.index(view.to_act)] = 1.0
        out[o["dealer"] + order.index(view.dealer)] = 1.0
        out[o["trick_leader"] + order.index(view.trick_leader)] = 1.0
        out[o["trump"] + view.trump] = 1.0
        if view.turn_up >= 0:
            out[o["turn_up"] + view.turn_up] = 1.0
        out[o["stock"]] = view.stock_size / STOCK_SIZE
        out[o["tricks_done"]] = len(view.tricks) / NUM_TRICKS
        return out

    def encode_state(
        self, game: TwoHandGame, seat: int, observation: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The perfect-information state from ``seat``'s side: its observation, then the opponent's
        concealed cards and the stock's cards (thermometers), then the next stock card (one-hot)."""
        if out is None:
            out = np.empty(self.state_size, np.float32)
        size = observation.shape[0]
        out[:size] = observation
        stock = game.stock_left
        hidden = np.asarray([game.concealed[1 - seat], [stock.count(c) for c in range(NUM_TYPES)]])
        out[size : size + 2 * THERMO] = hidden_hands(hidden)
        out[size + 2 * THERMO :] = 0.0
        if stock:
            out[size + 2 * THERMO + stock[0]] = 1.0
        return out


def _known(view: TwoHandView, played: list[list[int]]) -> list[list[int]]:
    """What both players know each seat holds. While cards lie in the stock or under it, the view's
    lower bound; after that every unplayed card is in a hand, so the opponent holds exactly what the
    seat neither holds nor has seen played."""
    if view.stock_size or view.turn_up >= 0:
        return view.known
    opponent = [COPIES - view.hand[c] - played[0][c] - played[1][c] for c in range(NUM_TYPES)]
    return [view.hand, opponent] if view.seat == 0 else [opponent, view.hand]
