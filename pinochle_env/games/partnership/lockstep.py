"""The trick play of many partnership games as arrays, stepped together: part of the batched
API's fast path (:mod:`~pinochle_env.games.partnership.lockstep_hands` runs the rest of each hand the same way).

Trick play is most of a hand's decisions. Played one game at a time, each card costs a Python call
into the engine, an event, the encoder's update of four observation rows and a legality check.
:class:`LockstepPlay` instead keeps the play state of every game in play as arrays (one row per
game) and does each of those jobs for all of them at once, in about seventy numpy calls per batch
step whatever the number of games.

It implements the trick play of docs/rules.md (section 6) a second time; the batched-versus-env tests compare every
decision and the engines' whole state under every trick rule switch, and ``tests/games/partnership/test_lockstep.py``
checks its legality and trick winners against the rule functions situation by situation. The
observation entries are written through the encoder's own index tables, so both paths put the same
value in the same place.

Numpy's cost here is per call, not per game, so each step reads and writes a game's row of
:attr:`LockstepPlay.state` in one call, and legality works on card bit masks (one int per game),
as the engine's does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import rules as R
from ...cards import COUNTING_VALUES, LAST_TRICK_BONUS, NUM_SUITS, NUM_TYPES, RANK_OF, SUIT_OF
from ...encoding import HAND_POINTS, ObservationSpec
from ...rules.switches import Rules
from .encoding import index_tables
from .game import NUM_SEATS, NUM_TRICKS

#: Stands for "no card": the heading card of an empty trick, and "nothing to head" in legality.
NO_CARD = NUM_TYPES
_CARDS = range(NUM_TYPES)
#: Per card (and ``NO_CARD``): its suit (``NUM_SUITS`` for none), and the bit mask of the cards of
#: its suit ranking above it (``rules.ABOVE_BITS``).
_SUIT = np.array([*SUIT_OF, NUM_SUITS])
_ABOVE_BITS = np.array([*R.ABOVE_BITS, 0])
_SUIT_BITS = np.array([*R.SUIT_BITS, 0])  # per suit (and none)
#: ``_BEATS[(trump * 25 + heading) * 24 + card]``: ``card`` takes the trick from ``heading``; every
#: card heads an empty trick (``heading == NO_CARD``).
_BEATS = np.array(
    [R.BEATEN_BY[t][w] >> c & 1 if w < NUM_TYPES else 1 for t in range(NUM_SUITS) for w in range(25) for c in _CARDS]
)
_BIT_ORDER = np.arange(NUM_TYPES)
_HEAD_RULES = ("winner", "trump_lead_only", "led_card", "highest_led", "none")

# Columns of a game's row of ``LockstepPlay.state``: the seat to act, the card heading the trick in
# progress (``NO_CARD`` while empty), its number of cards, trump, tricks done, tricks won and trick
# points per team, then the trick's cards in play order, its leader and the seat of the heading
# card (its winner once full): those last six are what the history of tricks keeps.
TO_ACT, HEADING, TRICK_LEN, TRUMP, DONE, WON, POINTS, TRICK, LEADER, WINNER = 0, 1, 2, 3, 4, 5, 7, 9, 13, 14
_COLUMNS = WINNER + 1


def bit_rows(bits: np.ndarray) -> np.ndarray:
    """(len(bits), 24) 0/1: the card types of each bit mask (bit ``t`` for type ``t``)."""
    return (bits[:, None] >> _BIT_ORDER) & 1


class LockstepPlay:
    """The play state of up to ``num_games`` partnership games (one row each), stepped together.

    ``observations`` is the batch's (num_games, 4, size) float32 buffer of the encoders' rows: the
    fast path writes the same entries the encoders would. Rows of games not in play are ignored.
    """

    def __init__(self, num_games: int, spec: ObservationSpec, observations: np.ndarray) -> None:
        rules: Rules = spec.rules
        if rules.head_rule not in _HEAD_RULES:
            raise ValueError(f"head_rule {rules.head_rule!r} has no lockstep legality; known: {_HEAD_RULES}")
        self.rules = rules
        self.attach(observations)
        self._row_size = NUM_SEATS * spec.size
        tables = index_tables(spec)
        # Flat indices into one game's four rows, by [(seat * 24 + card) * copies + copy].
        self._play_entries = np.array(tables.play, dtype=np.int64).reshape(-1, 8)  # "played" and "trick", 8
        self._hand_entries = np.array(tables.own["hand"], dtype=np.int64).reshape(-1)  # 5 "copies" each
        self._trick_entries = self._play_entries[::2, 4:].copy()  # [seat * 24 + card] -> its 4 "trick" entries
        self._leader_entries = np.array([entries[0] for entries in tables.relative["trick_leader"]], dtype=np.int64)
        # [who * 4 + suit] -> the "voids" entry of ``who`` not holding ``suit``, in each row
        self._void_entries = np.array(tables.relative["voids"], dtype=np.int64).reshape(NUM_SEATS * NUM_SUITS, -1)
        # [team] -> its "tricks_won" then its "trick_points" entry in each row
        self._score_entries = np.hstack([tables.team["tricks_won"], tables.team["trick_points"]]).astype(np.int64)
        values = COUNTING_VALUES[rules.counting]
        self._values = np.array([values[RANK_OF[c]] for c in _CARDS], dtype=np.int64)
        n = num_games
        self.state = np.zeros((n, _COLUMNS), dtype=np.int64)  # see the column names above
        self.hands = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)  # copies held, [(game * 4 + seat) * 24 + card]
        self.played = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)  # copies played this hand, likewise
        self.held = np.zeros(n * NUM_SEATS, dtype=np.int64)  # bit mask of the card types held, [game * 4 + seat]
        # Finished tricks, [game * 12 + trick]: cards, leader, winner.
        self.history = np.zeros((n * NUM_TRICKS, NUM_SEATS + 2), dtype=np.int64)

    def attach(self, observations: np.ndarray) -> None:
        """Write into the batch's buffer ``observations`` from now on (after a copy, which copies
        the buffer and this view of it apart; see :meth:`__getstate__`)."""
        if not observations.flags.c_contiguous:
            raise ValueError("observations must be a C-contiguous buffer (a flat view of it is written)")
        self._observations = observations.reshape(-1)  # a view: writes land in the encoders' rows

    def __getstate__(self) -> dict[str, Any]:
        """The state without the view of the batch's buffer: the batch pickles the encoders' rows
        and, once loaded, hands the buffer made of them to :meth:`attach`."""
        return {name: value for name, value in self.__dict__.items() if name != "_observations"}

    def start(self, rows: np.ndarray, leaders: np.ndarray, trumps: np.ndarray) -> None:
        """Open the trick play of games ``rows``: ``leaders`` lead the first trick, ``trumps`` are trump."""
        state = np.zeros((len(rows), _COLUMNS), dtype=np.int64)
        state[:, TO_ACT] = state[:, LEADER] = leaders
        state[:, HEADING] = NO_CARD
        state[:, TRUMP] = trumps
        self.state[rows] = state
        self.played.reshape(-1, NUM_SEATS * NUM_TYPES)[rows] = 0

    # -- one batch step -------------------------------------------------------------------------
    def play(self, rows: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """Play ``cards[k]`` (card types, legal) in game ``rows[k]``; returns the games whose
        hand's last trick just ended. The seat to act next in each game is ``state[row, TO_ACT]``
        and its legal cards :meth:`legal`."""
        state = self.state.take(rows, axis=0)
        seat = state[:, TO_ACT].copy()
        base = rows * self._row_size
        key, at = self._take(rows, seat, cards, base)
        copy = self.played.take(at)
        self.played[at] = copy + 1
        self._observations[base[:, None] + self._play_entries.take(key * 2 + copy, axis=0)] = 1.0  # in every row
        position = state[:, TRICK_LEN].copy()
        self._show_voids(base, state, seat, cards, position)
        flat = state.reshape(-1)
        flat[np.arange(0, len(rows) * _COLUMNS, _COLUMNS) + (TRICK + position)] = cards
        heads = _BEATS.take((state[:, TRUMP] * 25 + state[:, HEADING]) * NUM_TYPES + cards)
        state[:, HEADING] += heads * (cards - state[:, HEADING])
        state[:, WINNER] += heads * (seat - state[:, WINNER])
        state[:, TRICK_LEN] = position + 1
        state[:, TO_ACT] = (seat + 1) & 3
        full = np.flatnonzero(position == NUM_SEATS - 1)
        last = full[:0]  # positions in ``rows`` of the games whose hand just ended
        if len(full):
            ending = state.take(full, axis=0)
            last = full[self._end_tricks(rows.take(full), ending)]
            state[full] = ending
        self.state[rows] = state
        return rows.take(last)

    def _show_voids(
        self,
        base: np.ndarray,
        state: np.ndarray,
        seats: np.ndarray,
        cards: np.ndarray,
        position: np.ndarray,
    ) -> None:
        """A seat that does not follow the suit led holds none of it, nor any trump unless it
        trumps (a seat void in the suit led must trump): its "voids" entries, as the encoder's."""
        led = _SUIT.take(state[:, TRICK])  # the card led, where the trick has one
        suit = _SUIT.take(cards)
        off = np.flatnonzero((position > 0) & (suit != led))
        if not len(off):
            return
        who, led, suit, trump = seats.take(off), led.take(off), suit.take(off), state[off, TRUMP]
        self._observations[base.take(off)[:, None] + self._void_entries.take(who * NUM_SUITS + led, axis=0)] = 1.0
        no_trump = np.flatnonzero((suit != trump) & (led != trump))
        if len(no_trump):
            at = base.take(off.take(no_trump))[:, None]
            self._observations[
                at + self._void_entries.take(who.take(no_trump) * NUM_SUITS + trump.take(no_trump), axis=0)
            ] = 1.0

    def _take(self, rows: np.ndarray, seats: np.ndarray, cards: np.ndarray, base: np.ndarray) -> tuple:
        """Take one copy of ``cards[k]`` out of the hand of ``seats[k]`` in game ``rows[k]`` (whose
        rows start at ``base[k]`` in the buffer): counts, held bits and the seat's "hand" entries.
        Returns the keys (seat * 24 + card) and their indices into ``hands``."""
        key = seats * NUM_TYPES + cards
        at = rows * (NUM_SEATS * NUM_TYPES) + key
        left = self.hands.take(at) - 1
        self.hands[at] = left
        player = rows * NUM_SEATS + seats
        self.held[player] = self.held.take(player) ^ ((left == 0) << cards)  # clear the bit of a last copy
        self._observations[base + self._hand_entries.take(key * 5 + left)] = 0.0
        return key, at

    def _end_tricks(self, rows: np.ndarray, state: np.ndarray) -> np.ndarray:
        """Score the full tricks of ``rows`` (``state``: their rows, updated in place); their
        winners lead next. Returns which of them were the hand's last trick."""
        done = state[:, DONE].copy()
        last = done == NUM_TRICKS - 1
        leader, winner, cards = state[:, LEADER], state[:, WINNER], state[:, TRICK:LEADER]
        self.history[rows * NUM_TRICKS + done] = state[:, TRICK:]
        points = self._values.take(cards).sum(axis=1) + LAST_TRICK_BONUS * last
        team = winner & 1
        flat = state.reshape(-1)
        at = np.arange(0, len(rows) * _COLUMNS, _COLUMNS) + team
        won = flat.take(at + WON) + 1
        flat[at + WON] = won
        total = flat.take(at + POINTS) + points
        flat[at + POINTS] = total
        base = rows[:, None] * self._row_size
        observations = self._observations
        played_by = ((leader[:, None] + np.arange(NUM_SEATS)) & 3) * NUM_TYPES + cards
        observations[base[:, :, None] + self._trick_entries.take(played_by, axis=0)] = 0.0  # the trick is gone
        observations[base + self._leader_entries.take(leader, axis=0)] = 0.0
        observations[base + self._leader_entries.take(winner, axis=0)] = 1.0
        scores = np.empty((len(rows), 2 * NUM_SEATS), dtype=np.float32)
        scores[:, :NUM_SEATS] = (won / NUM_TRICKS)[:, None]
        scores[:, NUM_SEATS:] = (total / HAND_POINTS)[:, None]
        observations[base + self._score_entries.take(team, axis=0)] = scores
        state[:, LEADER] = state[:, TO_ACT] = winner
        state[:, TRICK_LEN] = 0
        state[:, HEADING] = NO_CARD
        state[:, DONE] = done + 1
        return last

    def legal(self, rows: np.ndarray, state: np.ndarray) -> np.ndarray:
        """(len(rows), 24) 0/1: the cards the seat to act in each game of ``rows`` (``state``: their
        rows) may play, by :func:`rules.legal_card_bits` on bit masks, one int per game."""
        held = self.held.take(rows * NUM_SEATS + state[:, TO_ACT])
        led_suit = _SUIT.take(state[:, TRICK])
        heading = state[:, HEADING]
        trump = state[:, TRUMP]
        following = held & _SUIT_BITS.take(led_suit)
        target = self._card_to_head(state, led_suit, heading, trump)
        if target is not None:
            above = following & _ABOVE_BITS.take(target)
            following = np.where(above != 0, above, following)
        trumps = held & _SUIT_BITS.take(trump)
        if self.rules.must_overtrump:
            over = trumps & _ABOVE_BITS.take(heading)  # empty unless a trump heads the trick
            trumps = np.where(over != 0, over, trumps)
        legal = np.where(following != 0, following, np.where(trumps != 0, trumps, held))
        legal = np.where(state[:, TRICK_LEN] == 0, held, legal)
        return bit_rows(legal)

    def _card_to_head(self, state, led_suit, heading, trump) -> np.ndarray | None:
        """Per game, the card a follower of the led suit must beat if it can (``NO_CARD``: any
        card of the suit will do), or None when the rule never asks to head: ``head_rule`` as in
        :func:`rules.legal_card_bits`."""
        head_rule = self.rules.head_rule
        if head_rule == "none":
            return None
        if head_rule == "led_card":
            return state[:, TRICK]
        if head_rule == "highest_led":
            cards = state[:, TRICK:LEADER]
            counted = (np.arange(NUM_SEATS) < state[:, TRICK_LEN, None]) & (_SUIT.take(cards) == led_suit[:, None])
            return led_suit * 6 + np.where(counted, cards % 6, -1).max(axis=1)
        heads = _SUIT.take(heading) == led_suit
        if head_rule == "trump_lead_only":
            heads &= led_suit == trump
        return np.where(heads, heading, NO_CARD)
