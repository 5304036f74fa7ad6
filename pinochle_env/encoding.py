"""Observation encoder: named pieces, built incrementally from the events a seat may see.

The observation of a seat is a float32 vector made of the pieces in :func:`observation_pieces`,
always from that seat's point of view: seat-indexed pieces are ordered *me, left, partner,
right*. Card pieces of width 48 are thermometers over the 24 card types: entry ``t`` says "at
least one copy of type ``t``", entry ``24 + t`` says "both copies".

A :class:`GameEncoder` keeps the four seats' vectors of one game up to date by consuming only the
events added to ``Game.events`` since its last call (cheap enough to run at every decision), each
written only into the rows of the seats in its audience, so hidden cards cannot reach an
observation. The same encoder serves the PettingZoo environment and the batched API, so both
produce identical vectors.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .cards import NUM_TYPES
from .game import EVERYONE, NUM_SEATS, NUM_TRICKS, Event, Game, Phase
from .options import BID_STEP, MIN_BID, Rules

#: Bump when the layout or meaning of the observation changes (checkpoints record it).
ENCODER_VERSION = 1

THERMO = 2 * NUM_TYPES
_PLAY = int(Event.PLAY)
SEAT_NAMES = ("me", "left", "partner", "right")
TEAM_NAMES = ("my team", "other team")
POINT_SCALE = 1000.0
HAND_POINTS = 250.0


@dataclass(frozen=True)
class Piece:
    """A named slice of the observation vector."""

    name: str
    size: int
    offset: int
    description: str

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.size)


def _bid_labels(rules: Rules) -> list[str]:
    return [str(MIN_BID + BID_STEP * i) for i in range((rules.max_bid - MIN_BID) // BID_STEP + 1)]


def _card_labels() -> list[str]:
    from .cards import card_to_str

    return [card_to_str(c) for c in range(NUM_TYPES)]


def _thermo_labels() -> list[str]:
    return [f"{c} x>=1" for c in _card_labels()] + [f"{c} x2" for c in _card_labels()]


def _per_seat(labels: list[str]) -> list[str]:
    return [f"{seat}: {label}" for seat in SEAT_NAMES for label in labels]


def piece_labels(rules: Rules) -> list[tuple[str, list[str], str]]:
    """(name, per-index labels, description) of every piece, in vector order."""
    bids = _bid_labels(rules)
    return [
        ("hand", _thermo_labels(), "cards I hold now (thermometer)"),
        ("phase", [p.name.lower() for p in Phase], "phase of the hand, one-hot"),
        ("acting", list(SEAT_NAMES), "seat to act, one-hot (all zero when the hand is over)"),
        ("dealer", list(SEAT_NAMES), "dealer, one-hot"),
        ("bids", _per_seat(bids), "bid values each seat has called"),
        ("auction_passed", list(SEAT_NAMES), "seat has passed (with or without help)"),
        ("auction_help", list(SEAT_NAMES), "seat passed with help"),
        ("high_bid", bids, "current high bid, then the contract, one-hot"),
        ("dealer_stuck", ["stuck"], "dealer is declarer at 250 after three passes"),
        ("declarer", list(SEAT_NAMES), "declarer, one-hot"),
        ("trump", ["S", "H", "D", "C"], "trump suit, one-hot"),
        ("cards_passed", _thermo_labels(), "cards I passed (thermometer)"),
        ("cards_received", _thermo_labels(), "cards I received (thermometer)"),
        ("meld_shown", _per_seat(_thermo_labels()), "cards each seat showed in meld (thermometer)"),
        ("meld_points", list(SEAT_NAMES), "meld points of each seat / 1000"),
        ("thrown_in", ["thrown in", "played"], "throw-in decision"),
        ("played", _per_seat(_thermo_labels()), "cards each seat has played this hand (thermometer)"),
        ("trick", _per_seat(_card_labels()), "card each seat played to the trick in progress"),
        ("trick_leader", list(SEAT_NAMES), "leader of the trick in progress, one-hot"),
        ("tricks_won", list(TEAM_NAMES), "tricks won this hand / 12"),
        ("trick_points", list(TEAM_NAMES), "trick points this hand / 250"),
        ("scores", list(TEAM_NAMES), "running game score / target score"),
    ]


class ObservationSpec:
    """The pieces of the observation for a rule set: sizes, offsets and ``describe()``."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.pieces: list[Piece] = []
        self._labels: list[str] = []
        offset = 0
        for name, labels, description in piece_labels(rules):
            self.pieces.append(Piece(name, len(labels), offset, description))
            self._labels += [f"{name}[{label}]" for label in labels]
            offset += len(labels)
        self.size = offset
        self.offsets = {p.name: p.offset for p in self.pieces}
        self.num_bids = (rules.max_bid - MIN_BID) // BID_STEP + 1

    def describe(self, index: int | None = None) -> str:
        """What observation entry ``index`` means, or a table of every piece when ``index`` is None."""
        if index is None:
            lines = [f"{'piece':<16}{'indices':>12}  description"]
            lines += [f"{p.name:<16}{f'{p.offset}..{p.offset + p.size - 1}':>12}  {p.description}" for p in self.pieces]
            return "\n".join(lines)
        if not 0 <= index < self.size:
            raise IndexError(f"observation index {index} out of range 0..{self.size - 1}")
        return self._labels[index]

    def piece(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise KeyError(f"no observation piece {name!r}; pieces: {', '.join(p.name for p in self.pieces)}")


class GameEncoder:
    """Keeps the observation vectors of all four seats (``rows``, a (4, size) float32 array) in
    step with one game.

    Each call consumes only the events added since the last one, and writes each event into the
    rows of the seats in its audience, so a seat's row never holds what its seat may not see.
    """

    def __init__(self, spec: ObservationSpec, rows: np.ndarray | None = None) -> None:
        self.spec = spec
        self.rows = rows if rows is not None else np.zeros((NUM_SEATS, spec.size), dtype=np.float32)
        if self.rows.shape != (NUM_SEATS, spec.size) or not self.rows.flags.c_contiguous:
            raise ValueError(f"rows must be a C-contiguous ({NUM_SEATS}, {spec.size}) float32 array")
        self._mv = memoryview(self.rows).cast("B").cast("f")  # flat, fast scalar writes
        self._tables = _index_tables(spec)
        self._play_index, self._hand_index = self._tables.play, self._tables.hand
        self._events: list | None = None
        self._cursor = 0

    def update(self, game: Game) -> np.ndarray:
        """Bring the four rows up to date with ``game`` and return them (a view, not a copy)."""
        events = game.events
        if events is not self._events:
            self._reset(events)
        mv = self._mv
        handlers = self._HANDLERS
        play_index, hand_index = self._play_index, self._hand_index
        played, hands, trick = self._played, self._hands, self._trick
        for i in range(self._cursor, len(events)):
            kind, who, card, audience = events[i]
            if kind == _PLAY:  # the most common event, inlined
                copies = played[who]
                for entry in play_index[who][card][copies[card]]:
                    mv[entry] = 1.0
                copies[card] += 1
                own = hands[who]
                own[card] -= 1
                mv[hand_index[who][card][own[card]]] = 0.0
                trick.append((who, card))
            else:
                handlers[kind](self, who, card, audience)
        self._cursor = len(events)
        return self.rows

    def observation(self, game: Game, seat: int) -> np.ndarray:
        """A fresh copy of ``seat``'s observation of ``game`` now."""
        obs = self.update(game)[seat].copy()
        acting = (game.to_act - seat) & 3 if game.to_act >= 0 else -1
        stamp_turn(self.spec, obs, int(game.phase), acting)
        return obs

    def _reset(self, events: list) -> None:
        self.rows.fill(0.0)
        self._events = events
        self._cursor = 0
        self._hands = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        self._passed = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        self._received = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        self._played = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        self._trick: list[tuple[int, int]] = []
        self._high_bid = -1
        self._leader = -1
        self._tricks_won = [0, 0]
        self._trick_points = [0, 0]

    # -- writing helpers ---------------------------------------------------------------------
    def _set(self, seat: int, piece: str, index: int, value: float = 1.0) -> None:
        self._mv[self._tables.base[piece][seat] + index] = value

    def _set_relative(self, who: int, piece: str, value: float = 1.0, audience: int = EVERYONE, stride: int = 1,
                      index: int = 0) -> None:
        """For each seat in ``audience``, set entry ``rel(who) * stride + index`` of ``piece``."""
        for seat in range(NUM_SEATS):
            if audience >> seat & 1:
                self._set(seat, piece, ((who - seat) & 3) * stride + index, value)

    def _thermo_step(self, seat: int, piece: str, counts: list[int], card: int, delta: int) -> None:
        """Count of ``card`` in ``seat``'s 48-wide thermometer ``piece`` moves by ``delta`` (+1 / -1)."""
        if delta < 0:
            counts[card] -= 1
            self._set(seat, piece, counts[card] * NUM_TYPES + card, 0.0)
        else:
            self._set(seat, piece, counts[card] * NUM_TYPES + card, 1.0)
            counts[card] += 1

    def _write_scores(self, totals: tuple[int, int]) -> None:
        target = self.spec.rules.target_score
        for seat in range(NUM_SEATS):
            mine = seat & 1
            self._set(seat, "scores", 0, totals[mine] / target)
            self._set(seat, "scores", 1, totals[1 - mine] / target)

    # -- one handler per event kind (``who`` is an absolute seat) --------------------------------
    def _on_hand_start(self, dealer: int, totals: tuple[int, int], audience: int) -> None:
        self._set_relative(dealer, "dealer")
        self._write_scores(totals)

    def _on_deal(self, seat: int, cards: tuple[int, ...], audience: int) -> None:
        for card in cards:
            self._thermo_step(seat, "hand", self._hands[seat], card, +1)

    def _on_bid(self, who: int, bid: int, audience: int) -> None:
        index = (bid - MIN_BID) // BID_STEP
        self._set_relative(who, "bids", stride=self.spec.num_bids, index=index)
        self._set_high_bid(index)

    def _set_high_bid(self, index: int) -> None:
        for seat in range(NUM_SEATS):
            if self._high_bid >= 0:
                self._set(seat, "high_bid", self._high_bid, 0.0)
            self._set(seat, "high_bid", index)
        self._high_bid = index

    def _on_pass(self, who: int, helped: bool, audience: int) -> None:
        self._set_relative(who, "auction_passed")
        if helped:
            self._set_relative(who, "auction_help")

    def _on_stuck(self, dealer: int, bid: int, audience: int) -> None:
        for seat in range(NUM_SEATS):
            self._set(seat, "dealer_stuck", 0)
        self._set_high_bid((bid - MIN_BID) // BID_STEP)

    def _on_auction_end(self, declarer: int, contract: int, audience: int) -> None:
        self._set_relative(declarer, "declarer")

    def _on_trump(self, declarer: int, suit: int, audience: int) -> None:
        for seat in range(NUM_SEATS):
            self._set(seat, "trump", suit)

    def _on_pass_card(self, passer: int, card: int, audience: int) -> None:
        self._thermo_step(passer, "hand", self._hands[passer], card, -1)
        self._thermo_step(passer, "cards_passed", self._passed[passer], card, +1)
        receiver = (passer + 2) % NUM_SEATS
        if audience >> receiver & 1:
            self._on_receive(receiver, card, audience)

    def _on_receive(self, receiver: int, card: int, audience: int) -> None:
        self._thermo_step(receiver, "hand", self._hands[receiver], card, +1)
        self._thermo_step(receiver, "cards_received", self._received[receiver], card, +1)

    def _on_meld(self, who: int, shown, audience: int) -> None:
        entries = [k * NUM_TYPES + card for card, copies in enumerate(shown.shown) for k in range(copies)]
        for seat in range(NUM_SEATS):
            rel = (who - seat) & 3
            start = self._tables.base["meld_shown"][seat] + rel * THERMO
            for entry in entries:
                self._mv[start + entry] = 1.0
            self._set(seat, "meld_points", rel, shown.points / POINT_SCALE)

    def _on_throw_in(self, declarer: int, thrown: bool, audience: int) -> None:
        for seat in range(NUM_SEATS):
            self._set(seat, "thrown_in", 0 if thrown else 1)
        if not thrown:
            self._set_relative(declarer, "trick_leader")
            self._leader = declarer

    def _on_trick_end(self, winner: int, points: int, audience: int) -> None:
        mv, tables = self._mv, self._tables
        for who, card in self._trick:
            for entry in tables.trick[who][card]:
                mv[entry] = 0.0
        self._trick.clear()
        for entry in tables.leader[self._leader]:
            mv[entry] = 0.0
        for entry in tables.leader[winner]:
            mv[entry] = 1.0
        self._leader = winner
        team = winner & 1
        self._tricks_won[team] += 1
        self._trick_points[team] += points
        won, taken = self._tricks_won[team] / NUM_TRICKS, self._trick_points[team] / HAND_POINTS
        tricks_won, trick_points = tables.base["tricks_won"], tables.base["trick_points"]
        for seat in range(NUM_SEATS):
            side = (seat ^ team) & 1  # 0: the winner's team is this seat's team
            mv[tricks_won[seat] + side] = won
            mv[trick_points[seat] + side] = taken

    def _on_hand_end(self, declarer: int, value: tuple[tuple[int, int], tuple[int, int]], audience: int) -> None:
        self._write_scores(value[1])

    _HANDLERS = {
        Event.HAND_START: _on_hand_start,
        Event.DEAL: _on_deal,
        Event.BID: _on_bid,
        Event.PASS: _on_pass,
        Event.STUCK: _on_stuck,
        Event.AUCTION_END: _on_auction_end,
        Event.TRUMP: _on_trump,
        Event.PASS_CARD: _on_pass_card,
        Event.RECEIVE: _on_receive,
        Event.MELD: _on_meld,
        Event.THROW_IN: _on_throw_in,
        Event.TRICK_END: _on_trick_end,
        Event.HAND_END: _on_hand_end,
    }


class _IndexTables(NamedTuple):
    """Flat indices (into the (4, size) rows) written by the events of trick play."""

    play: tuple  # [who][card][copy] -> entries set when ``who`` plays its copy-th ``card``
    trick: tuple  # [who][card] -> the four "trick" entries of that card
    hand: tuple  # [who][card][count] -> the entry of ``who``'s own hand thermometer
    leader: tuple  # [who] -> the four "trick_leader" entries
    base: dict  # piece name -> flat index of the piece's start in each seat's row


@functools.lru_cache(maxsize=16)
def _index_tables(spec: ObservationSpec) -> _IndexTables:
    size, o = spec.size, spec.offsets

    def trick_entries(who: int, card: int) -> tuple[int, ...]:
        return tuple(s * size + o["trick"] + ((who - s) & 3) * NUM_TYPES + card for s in range(NUM_SEATS))

    def played_entries(who: int, card: int, copy: int) -> tuple[int, ...]:
        return tuple(s * size + o["played"] + ((who - s) & 3) * THERMO + copy * NUM_TYPES + card for s in range(NUM_SEATS))

    seats, cards = range(NUM_SEATS), range(NUM_TYPES)
    play = tuple(tuple(tuple(played_entries(w, c, k) + trick_entries(w, c) for k in range(2)) for c in cards) for w in seats)
    trick = tuple(tuple(trick_entries(w, c) for c in cards) for w in seats)
    hand = tuple(tuple(tuple(w * size + o["hand"] + k * NUM_TYPES + c for k in range(2)) for c in cards) for w in seats)
    leader = tuple(tuple(s * size + o["trick_leader"] + ((w - s) & 3) for s in seats) for w in seats)
    base = {name: tuple(s * size + offset for s in seats) for name, offset in o.items()}
    return _IndexTables(play, trick, hand, leader, base)


def stamp_turn(spec: ObservationSpec, observations: np.ndarray, phases, acting) -> None:
    """Write the read-time pieces ``phase`` and ``acting`` into fresh observation copies.

    They change at every decision for every seat, so they are not kept in the encoder's rows but
    stamped on the copies handed out: ``observations`` is one vector or a (N, size) stack,
    ``phases`` the phase(s), ``acting`` the acting seat(s) relative to the observer (-1: none).
    """
    o = spec.offsets
    if observations.ndim == 1:
        observations[o["phase"] + phases] = 1.0
        if acting >= 0:
            observations[o["acting"] + acting] = 1.0
        return
    rows = np.arange(observations.shape[0])
    observations[rows, o["phase"] + np.asarray(phases)] = 1.0
    acting = np.asarray(acting)
    observations[rows[acting >= 0], o["acting"] + acting[acting >= 0]] = 1.0


def state_size(spec: ObservationSpec) -> int:
    """Size of the perfect-information state: an observation plus the other three seats' hands."""
    return spec.size + (NUM_SEATS - 1) * THERMO


def encode_state(game: Game, seat: int, observation: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The perfect-information state from ``seat``'s point of view: its observation, then the
    current hands of left, partner and right (thermometers). ``observation`` is ``seat``'s vector."""
    size = observation.shape[0]
    if out is None:
        out = np.empty(size + (NUM_SEATS - 1) * THERMO, dtype=np.float32)
    out[:size] = observation
    hands = np.asarray([game.hands[(seat + rel) % NUM_SEATS] for rel in range(1, NUM_SEATS)])
    others = out[size:].reshape(NUM_SEATS - 1, 2, NUM_TYPES)
    others[:, 0] = hands >= 1
    others[:, 1] = hands >= 2
    return out
