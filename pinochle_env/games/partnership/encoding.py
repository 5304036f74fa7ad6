"""The partnership game's observation: named pieces, built incrementally from the events a seat may see.

The pieces are in :func:`piece_labels`; seat-indexed pieces are ordered *me, left, partner,
right*. A :class:`GameEncoder` keeps the four seats' vectors of one game up to date by consuming
only the events added to ``Game.events`` since its last call (cheap enough to run at every
decision), each written only into the rows of the seats in its audience, so hidden cards cannot
reach an observation. The same encoder serves the PettingZoo environment and the batched API, so
both produce identical vectors; :meth:`PartnershipSpec.encode_view` builds the same vector from a
seat's view alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from itertools import compress
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ...cards import COUNTING_VALUES, NUM_TYPES, SUIT_OF, SUITS
from ...encoding import (
    HAND_POINTS,
    POINT_SCALE,
    THERMO,
    ObservationSpec,
    bid_labels,
    card_labels,
    hidden_hands,
    per_seat,
    thermo_labels,
)
from ...rules import trick_points
from ...rules.switches import BID_STEP, CHOICES, MAX_TARGET, MIN_BID, Rules, spell
from .game import EVERYONE, NUM_SEATS, NUM_TRICKS, Event, Game, Phase, PlayerView

_PLAY = int(Event.PLAY)
#: The seats relative to the observer, in the order of seat-indexed pieces.
SEAT_NAMES = ("me", "left", "partner", "right")
TEAM_NAMES = ("my team", "other team")


#: The rule switches the observation names (all but the variant and ``max_bid``, which sets the
#: action count), each as a one-hot of its values, then the target score.
RULE_SWITCHES = tuple(name for name in CHOICES if name != "variant")
#: The target score is written as ``target_score / TARGET_SCALE`` (at most 1: the rules allow no more).
TARGET_SCALE = float(MAX_TARGET)


def rule_labels() -> list[str]:
    """Labels of the ``rules`` piece: every value of every switch named, then the target score."""
    return [f"{name}={spell(value, quoted=False)}" for name in RULE_SWITCHES for value in CHOICES[name]] + [
        f"target_score/{TARGET_SCALE:g}"
    ]


def rule_values(rules: Rules) -> list[float]:
    """The ``rules`` piece of a rule set: 1 at each switch's value, then the target score."""
    values = [float(getattr(rules, name) == value) for name in RULE_SWITCHES for value in CHOICES[name]]
    return [*values, min(rules.target / TARGET_SCALE, 1.0)]


def piece_labels(rules: Rules) -> list[tuple[str, list[str], str]]:
    """(name, per-index labels, description) of every piece, in vector order."""
    bids = bid_labels(rules)
    return [
        ("hand", thermo_labels(), "cards I hold now (thermometer)"),
        ("phase", [p.name.lower() for p in Phase], "phase of the hand, one-hot"),
        ("acting", list(SEAT_NAMES), "seat to act, one-hot (all zero when the hand is over)"),
        ("dealer", list(SEAT_NAMES), "dealer, one-hot"),
        ("bids", per_seat(bids, SEAT_NAMES), "bid values each seat has called"),
        ("auction_passed", list(SEAT_NAMES), "seat has passed (with or without help)"),
        ("auction_help", list(SEAT_NAMES), "seat passed with help"),
        ("high_bid", bids, "current high bid, then the contract, one-hot"),
        ("dealer_stuck", ["stuck"], "dealer is declarer at 250 after three passes"),
        ("declarer", list(SEAT_NAMES), "declarer, one-hot"),
        ("trump", ["S", "H", "D", "C"], "trump suit, one-hot"),
        ("cards_passed", thermo_labels(), "cards I passed (thermometer)"),
        ("cards_received", thermo_labels(), "cards I received (thermometer)"),
        ("meld_shown", per_seat(thermo_labels(), SEAT_NAMES), "cards each seat showed in meld (thermometer)"),
        ("meld_points", list(SEAT_NAMES), "meld points of each seat / 1000"),
        ("thrown_in", ["thrown in", "played"], "throw-in decision"),
        ("played", per_seat(thermo_labels(), SEAT_NAMES), "cards each seat has played this hand (thermometer)"),
        ("trick", per_seat(card_labels(), SEAT_NAMES), "card each seat played to the trick in progress"),
        ("trick_leader", list(SEAT_NAMES), "leader of the trick in progress, one-hot"),
        ("tricks_won", list(TEAM_NAMES), "tricks won this hand / 12"),
        ("trick_points", list(TEAM_NAMES), "trick points this hand / 250"),
        ("scores", list(TEAM_NAMES), "running game score / target score"),
        ("voids", per_seat(list(SUITS), SEAT_NAMES), "suits a seat showed it holds none of (in play)"),
        ("rules", rule_labels(), "the rule switches of the game, one-hot each, and the target score"),
    ]


class PartnershipSpec(ObservationSpec):
    """The observation pieces of the partnership game for a rule set (:func:`piece_labels`)."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules, piece_labels(rules))

    def encode_view(self, view: PlayerView) -> np.ndarray:
        """The observation of ``view.seat``, built from its information-set view alone.

        Equal to the environment's observation of that seat at that moment (a test checks every
        decision of many games). It rebuilds the events the seat saw and runs them through the
        same :class:`GameEncoder`; only the seat's own row is meaningful.
        """
        moment = _Moment(_events_seen(view), view.phase, view.to_act)
        return GameEncoder(self).observation(moment, view.seat)


class GameEncoder:
    """Keeps the observation vectors of all four seats (``rows``, a (4, size) float32 array) in
    step with one game.

    Each call consumes only the events added since the last one, and writes each event into the
    rows of the seats in its audience, so a seat's row never holds what its seat may not see.
    Every write goes to a flat index looked up in tables precomputed per spec
    (:func:`index_tables`): an event costs a few lookups and scalar stores, and no numpy call
    (numpy's per-call overhead is the larger cost at this size).
    """

    _led: int  # the suit led to the trick in progress (-1: none yet)
    _trump: int  # the trump suit (-1: not named yet)

    #: What :meth:`attach` derives from the rows and the spec: left out of pickles and copies (a
    #: memoryview cannot be pickled) and derived again when one is loaded.
    _DERIVED = (
        "_bytes", "_mv", "_tables", "_play_index", "_hand_index", "_passed_index", "_received_index", "_rule_writes",
    )  # fmt: skip

    def __init__(self, spec: ObservationSpec, rows: np.ndarray | None = None) -> None:
        self.spec = spec
        self.attach(rows if rows is not None else np.zeros((NUM_SEATS, spec.size), dtype=np.float32))
        self._events: list | None = None
        self._cursor = 0

    def attach(self, rows: np.ndarray) -> None:
        """Keep the rows in ``rows`` from now on, which must hold them already: the batched API
        calls it after a copy, which copies its buffer and the encoders' views of it apart."""
        size = self.spec.size
        if rows.shape != (NUM_SEATS, size) or rows.dtype != np.float32 or not rows.flags.c_contiguous:
            raise ValueError(f"rows must be a C-contiguous ({NUM_SEATS}, {size}) float32 array")
        self.rows = rows
        self._bytes = rows.data.cast("B")  # for zeroing spans
        self._mv = self._bytes.cast("f")  # flat, for scalar stores
        self._tables = tables = index_tables(self.spec)
        self._play_index, self._hand_index = tables.play, tables.own["hand"]
        self._passed_index, self._received_index = tables.own["cards_passed"], tables.own["cards_received"]
        self._rule_writes = rule_writes(self.spec)

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name not in self._DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.attach(self.rows)

    def update(self, game: Game | _Moment) -> np.ndarray:
        """Bring the four rows up to date with ``game`` and return them (a view, not a copy)."""
        events = game.events
        if events is not self._events:
            self._reset(events)
        mv, handlers = self._mv, _HANDLERS
        play_index, hand_index, played, hands = self._play_index, self._hand_index, self._played, self._hands
        for kind, who, card, audience in events[self._cursor :]:
            if kind == _PLAY:  # the most common event, inlined
                key = who * NUM_TYPES + card
                for entry in play_index[key][played[key]]:
                    mv[entry] = 1.0
                played[key] += 1
                hands[key] -= 1
                mv[hand_index[key][hands[key]]] = 0.0
                suit = SUIT_OF[card]
                if self._led < 0:
                    self._led = suit
                elif suit != self._led:
                    self._show_void(who, suit)
            else:
                handlers[kind](self, who, card, audience)
        self._cursor = len(events)
        return self.rows

    def observation(self, game: Game | _Moment, seat: int) -> np.ndarray:
        """A fresh copy of ``seat``'s observation of ``game`` now."""
        obs = self.update(game)[seat].copy()
        acting = (game.to_act - seat) & 3 if game.to_act >= 0 else -1
        stamp_turn(self.spec, obs, int(game.phase), acting)
        return obs

    def _reset(self, events: list) -> None:
        self._bytes[:] = self._tables.zeros
        self._events = events
        self._cursor = 0
        # Copies of each card, per seat: index ``seat * 24 + card`` (as in the tables).
        self._hands = [0] * (NUM_SEATS * NUM_TYPES)
        self._passed = [0] * (NUM_SEATS * NUM_TYPES)
        self._received = [0] * (NUM_SEATS * NUM_TYPES)
        self._played = [0] * (NUM_SEATS * NUM_TYPES)
        self._high_bid = -1
        self._leader = -1
        self._led = -1
        self._trump = -1
        self._tricks_won = [0, 0]
        self._trick_points = [0, 0]

    # -- writing helpers ---------------------------------------------------------------------
    def _put(self, entries: tuple[int, ...], value: float = 1.0) -> None:
        """Store ``value`` at each flat entry (typically one per seat's row)."""
        mv = self._mv
        for entry in entries:
            mv[entry] = value

    def _thermo_add(self, piece: str, counts: list[int], seat: int, cards: tuple[int, ...]) -> None:
        """Add ``cards`` to ``seat``'s own thermometer ``piece`` whose copies are ``counts``."""
        mv, entries, offset = self._mv, self._tables.own[piece], seat * NUM_TYPES
        for card in cards:
            key = offset + card
            mv[entries[key][counts[key]]] = 1.0
            counts[key] += 1

    def _write_scores(self, totals: tuple[int, int]) -> None:
        """The running game score of each team, from each seat's side."""
        target = self.spec.rules.target
        for team, entries in enumerate(self._tables.team["scores"]):
            self._put(entries, totals[team] / target)

    def _show_void(self, who: int, suit: int) -> None:
        """``who`` did not follow the suit led with a card of ``suit``: it holds none of the suit
        led, nor any trump if ``suit`` is not trump (a seat void in the suit led must trump)."""
        voids = self._tables.relative["voids"][who]
        self._put(voids[self._led])
        if suit != self._trump and self._led != self._trump:
            self._put(voids[self._trump])

    def _set_high_bid(self, index: int) -> None:
        """Move the one-hot high bid (then the contract) to bid ``index`` in every row."""
        entries = self._tables.base["high_bid"]
        if self._high_bid >= 0:
            self._put(entries[self._high_bid], 0.0)
        self._put(entries[index])
        self._high_bid = index

    # -- one handler per event kind (``who`` is an absolute seat) --------------------------------
    def _on_hand_start(self, dealer: int, totals: tuple[int, int], audience: int) -> None:
        self._put(self._tables.relative["dealer"][dealer][0])
        self._write_scores(totals)
        for entries, value in self._rule_writes:
            self._put(entries, value)

    def _on_deal(self, seat: int, cards: tuple[int, ...], audience: int) -> None:
        self._thermo_add("hand", self._hands, seat, cards)

    def _on_bid(self, who: int, bid: int, audience: int) -> None:
        index = (bid - MIN_BID) // BID_STEP
        self._put(self._tables.relative["bids"][who][index])
        self._set_high_bid(index)

    def _on_pass(self, who: int, helped: bool, audience: int) -> None:
        relative = self._tables.relative
        self._put(relative["auction_passed"][who][0])
        if helped:
            self._put(relative["auction_help"][who][0])

    def _on_stuck(self, dealer: int, bid: int, audience: int) -> None:
        self._put(self._tables.base["dealer_stuck"][0])
        self._set_high_bid((bid - MIN_BID) // BID_STEP)

    def _on_auction_end(self, declarer: int, contract: int, audience: int) -> None:
        self._put(self._tables.relative["declarer"][declarer][0])

    def _on_trump(self, declarer: int, suit: int, audience: int) -> None:
        self._put(self._tables.base["trump"][suit])
        self._trump = suit

    # A hand passes eight cards, so the two handlers below store through the tables directly.
    def _on_pass_card(self, passer: int, card: int, audience: int) -> None:
        mv, hands, passed = self._mv, self._hands, self._passed
        key = passer * NUM_TYPES + card
        hands[key] -= 1
        mv[self._hand_index[key][hands[key]]] = 0.0
        mv[self._passed_index[key][passed[key]]] = 1.0
        passed[key] += 1
        receiver = (passer + 2) % NUM_SEATS
        if audience >> receiver & 1:
            self._on_receive(receiver, card, audience)

    def _on_receive(self, receiver: int, card: int, audience: int) -> None:
        mv, hands, received = self._mv, self._hands, self._received
        key = receiver * NUM_TYPES + card
        mv[self._hand_index[key][hands[key]]] = 1.0
        hands[key] += 1
        mv[self._received_index[key][received[key]]] = 1.0
        received[key] += 1

    def _on_meld(self, who: int, shown, audience: int) -> None:
        mv, entries = self._mv, self._tables.relative["meld_shown"][who]
        for card in compress(range(NUM_TYPES), shown.shown):
            for copy in range(shown.shown[card]):
                for entry in entries[copy * NUM_TYPES + card]:
                    mv[entry] = 1.0
        self._put(self._tables.relative["meld_points"][who][0], shown.points / POINT_SCALE)

    def _on_throw_in(self, declarer: int, thrown: bool, audience: int) -> None:
        self._put(self._tables.base["thrown_in"][0 if thrown else 1])
        if not thrown:
            self._put(self._tables.relative["trick_leader"][declarer][0])
            self._leader = declarer

    def _on_trick_end(self, winner: int, points: int, audience: int) -> None:
        self._led = -1
        tables = self._tables
        mvb, zeros = self._bytes, tables.trick_zeros
        for start, stop in tables.trick_spans:  # the whole trick piece of every row
            mvb[start:stop] = zeros
        leader = tables.relative["trick_leader"]
        self._put(leader[self._leader][0], 0.0)
        self._put(leader[winner][0])
        self._leader = winner
        team = winner & 1
        self._tricks_won[team] += 1
        self._trick_points[team] += points
        self._put(tables.team["tricks_won"][team], self._tricks_won[team] / NUM_TRICKS)
        self._put(tables.team["trick_points"][team], self._trick_points[team] / HAND_POINTS)

    def _on_hand_end(self, declarer: int, value: tuple[tuple[int, int], tuple[int, int]], audience: int) -> None:
        self._write_scores(value[1])

    #: Handler of each event kind; PLAY, the most common, is inlined in ``update``.
    _HANDLERS: ClassVar[dict[int, Callable[..., None]]] = {
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


# ``update`` reads the handlers through this module alias (faster than a class attribute); it is the
# same dict, so patching ``GameEncoder._HANDLERS`` in place still takes effect.
_HANDLERS = GameEncoder._HANDLERS

#: Pieces with one block per seat (me, left, partner, right), pieces with one entry per team, and
#: thermometers of the observing seat's own cards.
SEAT_PIECES = (
    "dealer",
    "bids",
    "auction_passed",
    "auction_help",
    "declarer",
    "meld_shown",
    "meld_points",
    "played",
    "trick",
    "trick_leader",
    "voids",
)
TEAM_PIECES = ("tricks_won", "trick_points", "scores")
OWN_PIECES = ("hand", "cards_passed", "cards_received")


class IndexTables(NamedTuple):
    """Flat indices into the (4, size) rows, so that the encoder's handlers only look up and store.

    A tuple of four entries holds the same fact's entry in each seat's row, seat 0 first.
    """

    base: dict  # piece -> [index] -> entry ``index`` of the piece in each row
    relative: dict  # seat piece -> [who][index] -> entry ``index`` of ``who``'s block in each row
    team: dict  # team piece -> [team] -> that team's entry in each row
    own: dict  # own piece -> [seat * 24 + card][copy] -> that copy's entry in the seat's own row
    play: tuple  # [who * 24 + card][copy] -> "played" and "trick" entries set when ``who`` plays it
    trick_spans: tuple  # [seat] -> (start, stop) byte offsets of the "trick" piece in the seat's row
    zeros: bytes  # as many zero bytes as the four rows hold
    trick_zeros: bytes  # as many zero bytes as one row's "trick" piece holds


@functools.lru_cache(maxsize=16)
def index_tables(spec: ObservationSpec) -> IndexTables:
    """The flat indices of every entry the encoder writes, per spec (built once, shared by encoders)."""
    size, seats, cards = spec.size, range(NUM_SEATS), range(NUM_TYPES)

    def entries(name: str, index: int, rel: int | None = None) -> tuple[int, ...]:
        """Entry ``index`` of the piece in each row; of the block of the seat ``rel`` places on, if given."""
        piece = spec.piece(name)
        if rel is None:
            return tuple(s * size + piece.offset + index for s in seats)
        return tuple(s * size + piece.offset + ((rel - s) & 3) * (piece.size // NUM_SEATS) + index for s in seats)

    def block(name: str) -> range:
        return range(spec.piece(name).size // NUM_SEATS)

    base = {p.name: tuple(entries(p.name, i) for i in range(p.size)) for p in spec.pieces}
    relative = {name: tuple(tuple(entries(name, i, who) for i in block(name)) for who in seats) for name in SEAT_PIECES}
    team = {
        name: tuple(tuple(e + ((s ^ t) & 1) for s, e in enumerate(entries(name, 0))) for t in (0, 1))
        for name in TEAM_PIECES
    }
    # Entry of copy k is k * 24 + card. Only copies 0 and 1 exist; the table goes on to k = 4, which
    # only a corrupt event stream reaches (the information-set tests plant one that counts each
    # passed card twice): such a stream then shows up as wrong observations, not as an exception.
    own = {
        name: tuple(tuple(entries(name, k * NUM_TYPES + c)[s] for k in range(5)) for s in seats for c in cards)
        for name in OWN_PIECES
    }
    played, trick = relative["played"], relative["trick"]
    play = tuple((played[w][c] + trick[w][c], played[w][NUM_TYPES + c] + trick[w][c]) for w in seats for c in cards)
    trick_piece = spec.piece("trick")
    trick_spans = tuple(
        (4 * (s * size + trick_piece.offset), 4 * (s * size + trick_piece.offset + trick_piece.size)) for s in seats
    )
    zeros = bytes(4 * NUM_SEATS * size)
    return IndexTables(base, relative, team, own, play, trick_spans, zeros, bytes(4 * trick_piece.size))


def rule_writes(spec: ObservationSpec) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The ``rules`` piece's non-zero entries of a spec's rule set, with their values: (the entry in
    each seat's row, value) per entry; the encoder writes them at each hand's start."""
    entries = index_tables(spec).base["rules"]
    return tuple((entries[index], value) for index, value in enumerate(rule_values(spec.rules)) if value)


def stamp_turn(spec: ObservationSpec, observations: np.ndarray, phases, acting) -> None:
    """Write the read-time pieces ``phase`` and ``acting`` into fresh observation copies.

    They change at every decision for every seat, so they are not kept in the encoder's rows but
    stamped on the copies handed out: ``observations`` is one vector or a (N, size) stack,
    ``phases`` the phase(s), ``acting`` the acting seat(s) relative to the observer (-1: none; for
    a stack, one int stands for every row).
    """
    o = spec.offsets
    if observations.ndim == 1:
        observations[o["phase"] + phases] = 1.0
        if acting >= 0:
            observations[o["acting"] + acting] = 1.0
        return
    rows = np.arange(observations.shape[0])
    observations[rows, np.add(phases, o["phase"])] = 1.0
    if isinstance(acting, (int, np.integer)):
        if acting >= 0:
            observations[:, o["acting"] + acting] = 1.0
        return
    acting = np.asarray(acting)
    shown = acting >= 0
    observations[rows[shown], o["acting"] + acting[shown]] = 1.0


def state_size(spec: ObservationSpec) -> int:
    """Size of the perfect-information state: an observation plus the other three seats' hands."""
    return spec.size + (NUM_SEATS - 1) * THERMO


def encode_state(game: Game, seat: int, observation: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The perfect-information state from ``seat``'s point of view: its observation, then the
    current hands of left, partner and right (thermometers). ``observation`` is ``seat``'s vector."""
    state = stack_states(observation[None], np.asarray(game.hands)[None], np.array([seat]))[0]
    if out is None:
        return state
    out[:] = state
    return out


def stack_states(observations: np.ndarray, hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """:func:`encode_state` for a stack: (k, size) observations of ``seats``, then the hands (of
    ``hands``, (k, 4, 24) counts per absolute seat) of each one's left, partner and right."""
    others = (seats[:, None] + np.arange(1, NUM_SEATS)) % NUM_SEATS
    hidden = hands[np.arange(len(seats))[:, None], others]
    return np.concatenate([observations, hidden_hands(hidden)], axis=1)


class _Moment(NamedTuple):
    """What :meth:`GameEncoder.observation` reads of a game: its events, phase and seat to act."""

    events: list
    phase: Phase
    to_act: int


def _events_seen(view: PlayerView) -> list[tuple[int, int, Any, int]]:
    """The events addressed to ``view.seat`` so far (private ones for it alone), from the view."""
    seat, own = view.seat, 1 << view.seat
    played = [cards[(seat - leader) % NUM_SEATS] for leader, cards, _ in view.tricks]
    played += [card for k, card in enumerate(view.trick) if (view.trick_leader + k) % NUM_SEATS == seat]
    dealt = list(view.hand)  # the seat's cards as dealt: now + played + passed - received
    for card in [*played, *view.cards_passed]:
        dealt[card] += 1
    for card in view.cards_received:
        dealt[card] -= 1
    events: list[tuple[int, int, Any, int]] = [
        (Event.HAND_START, view.dealer, tuple(view.totals), EVERYONE),
        (Event.DEAL, seat, tuple(c for c in range(NUM_TYPES) for _ in range(dealt[c])), own),
    ]
    for who, call in view.auction:
        if call in ("pass", "help"):
            events.append((Event.PASS, who, call == "help", EVERYONE))
        else:
            events.append((Event.BID, who, call, EVERYONE))
    if view.declarer >= 0:
        if view.high_bidder < 0:
            events.append((Event.STUCK, view.dealer, view.contract, EVERYONE))
        events.append((Event.AUCTION_END, view.declarer, view.contract, EVERYONE))
    if view.trump >= 0:
        events.append((Event.TRUMP, view.declarer, view.trump, EVERYONE))
    passes = [(Event.PASS_CARD, seat, card, own) for card in view.cards_passed]
    receipts = [(Event.RECEIVE, seat, card, own) for card in view.cards_received]
    # The declarer receives before it passes back; its partner passes before it receives.
    events += receipts + passes if seat == view.declarer else passes + receipts
    events += [(Event.MELD, who, meld, EVERYONE) for who, meld in enumerate(view.meld) if meld is not None]
    if view.thrown_in is not None:
        events.append((Event.THROW_IN, view.declarer, view.thrown_in, EVERYONE))
    values = COUNTING_VALUES[view.rules.counting]
    for index, (leader, cards, winner) in enumerate(view.tricks):
        events += [(Event.PLAY, (leader + k) % NUM_SEATS, card, EVERYONE) for k, card in enumerate(cards)]
        events.append((Event.TRICK_END, winner, trick_points(cards, values, index == NUM_TRICKS - 1), EVERYONE))
    events += [(Event.PLAY, (view.trick_leader + k) % NUM_SEATS, c, EVERYONE) for k, c in enumerate(view.trick)]
    return events
