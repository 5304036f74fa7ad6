"""The trick play of many partnership games as arrays, stepped together: the batched API's fast path.

Trick play is most of a hand's decisions. Played one game at a time, each card costs a Python call
into the engine, an event, the encoder's update of four observation rows and a legality check.
:class:`LockstepPlay` instead keeps the play state of every game in play as arrays (one row per
game) and does each of those jobs for all of them at once, in about seventy numpy calls per batch
step whatever the number of games.

It implements RULES.md section 5 a second time, so its results are checked against the engine's:

- A game enters when its hand reaches the play phase (:meth:`LockstepPlay.load`). The engine's
  ``Game`` and its ``GameEncoder`` then lag behind until :meth:`LockstepPlay.sync` writes the
  arrays back into both: hands, tricks, the trick in progress, counts, the ``PLAY`` and
  ``TRICK_END`` events, and the encoder's counters and cursor. The result is exactly the state the
  engine would have reached card by card. ``BatchedGames`` syncs a game before anything reads its
  engine (``games``, ``views()``, a refused action's message); when a hand's last trick ends,
  :meth:`LockstepPlay.finish` hands the game back to the engine, which scores it.
- The observation entries are written through the encoder's own index tables, so both paths put
  the same value in the same place. The batched-versus-env tests compare every decision and the
  engines' whole state under every trick rule switch.

Numpy's cost here is per call, not per game, so each step reads and writes a game's row of
:attr:`LockstepPlay.state` in one call, and legality works on card bit masks (one int per game),
as the engine's does.
"""

from __future__ import annotations

import numpy as np

from . import rules as R
from .cards import COUNTING_VALUES, LAST_TRICK_BONUS, NUM_SUITS, NUM_TYPES, RANK_OF, SUIT_OF
from .encoding import HAND_POINTS, GameEncoder, ObservationSpec, _index_tables
from .game import EVERYONE, NUM_SEATS, NUM_TRICKS, Event, Game, Phase
from .options import Rules

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


class LockstepPlay:
    """The play state of up to ``num_games`` partnership games (one row each), stepped together.

    ``observations`` is the batch's (num_games, 4, size) float32 buffer of the encoders' rows: the
    fast path writes the same entries the encoders would. Rows of games not in play are ignored.
    """

    PHASE = Phase.PLAY  # where a game enters

    def __init__(self, num_games: int, spec: ObservationSpec, observations: np.ndarray) -> None:
        rules: Rules = spec.rules
        if rules.head_rule not in _HEAD_RULES:
            raise ValueError(f"head_rule {rules.head_rule!r} has no lockstep legality; known: {_HEAD_RULES}")
        self.rules = rules
        self._observations = observations.reshape(-1)  # a view: writes land in the encoders' rows
        self._row_size = NUM_SEATS * spec.size
        tables = _index_tables(spec)
        # Flat indices into one game's four rows, by [(seat * 24 + card) * copies + copy].
        self._play_entries = np.array(tables.play, dtype=np.int64).reshape(-1, 8)  # "played" and "trick", 8
        self._hand_entries = np.array(tables.own["hand"], dtype=np.int64).reshape(-1)  # 5 "copies" each
        self._trick_entries = self._play_entries[::2, 4:].copy()  # [seat * 24 + card] -> its 4 "trick" entries
        self._leader_entries = np.array([entries[0] for entries in tables.relative["trick_leader"]], dtype=np.int64)
        # [team] -> its "tricks_won" then its "trick_points" entry in each row
        self._score_entries = np.hstack([tables.team["tricks_won"], tables.team["trick_points"]]).astype(np.int64)
        values = COUNTING_VALUES[rules.counting]
        self._values = np.array([values[RANK_OF[c]] for c in _CARDS], dtype=np.int64)
        n = num_games
        self.active = np.zeros(n, dtype=bool)  # the game's hand is in play here
        self._start = [0] * n  # length of the game's event log when its play began
        self.state = np.zeros((n, _COLUMNS), dtype=np.int64)  # see the column names above
        self.hands = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)  # copies held, [(game * 4 + seat) * 24 + card]
        self.played = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)  # copies played this hand, likewise
        self.held = np.zeros(n * NUM_SEATS, dtype=np.int64)  # bit mask of the card types held, [game * 4 + seat]
        # Finished tricks, [game * 12 + trick]: cards, leader, winner.
        self.history = np.zeros((n * NUM_TRICKS, NUM_SEATS + 2), dtype=np.int64)

    # -- entering and leaving -----------------------------------------------------------------
    def load(self, i: int, game: Game, encoder: GameEncoder) -> None:
        """Take over game ``i``, which has just reached the play phase (``encoder`` up to date)."""
        self.active[i] = True
        self._start[i] = len(game.events)
        self.hands[self._cards(i)] = encoder._hands  # the game's hands, flat
        self.played[self._cards(i)] = 0
        self.held[i * NUM_SEATS : (i + 1) * NUM_SEATS] = game.held
        row = self.state[i]
        row[:] = 0
        row[TO_ACT] = row[LEADER] = game.trick_leader
        row[HEADING] = NO_CARD
        row[TRUMP] = game.trump

    def sync(self, i: int, game: Game, encoder: GameEncoder) -> None:
        """Write game ``i``'s play so far into ``game`` and ``encoder``, as the engine would have."""
        self._write_engine(i, game)
        events = game.events
        del events[self._start[i] :]
        values = COUNTING_VALUES[self.rules.counting]
        for number, (leader, cards, winner) in enumerate(game.tricks):
            events += [(Event.PLAY, (leader + k) & 3, card, EVERYONE) for k, card in enumerate(cards)]
            points = R.trick_points(cards, values, number == NUM_TRICKS - 1)
            events.append((Event.TRICK_END, winner, points, EVERYONE))
        leader = game.trick_leader
        events += [(Event.PLAY, (leader + k) & 3, card, EVERYONE) for k, card in enumerate(game.trick)]
        encoder._hands, encoder._played = self.hands[self._cards(i)].tolist(), self.played[self._cards(i)].tolist()
        encoder._leader = leader
        encoder._tricks_won, encoder._trick_points = list(game.tricks_won), list(game.trick_points)
        encoder._cursor = len(events)

    def finish(self, i: int, game: Game) -> None:
        """Game ``i`` has played its last trick: hand it back to the engine, which scores the hand.

        Only the engine's state is written back (every hand empty now), not the play's events nor
        the encoder's rows: the batch restarts the hand at once, which replaces both.
        """
        self.active[i] = False
        game.hands = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        game.held = [0] * NUM_SEATS
        self._write_play(i, game)
        game._end_hand()

    def _write_engine(self, i: int, game: Game) -> None:
        """Set ``game``'s hands and play state (not its events) to game ``i``'s arrays."""
        hands = self.hands[self._cards(i)].tolist()
        for seat in range(NUM_SEATS):
            game.hands[seat][:] = hands[seat * NUM_TYPES : (seat + 1) * NUM_TYPES]
        game.held[:] = self.held[i * NUM_SEATS : (i + 1) * NUM_SEATS].tolist()
        self._write_play(i, game)

    @staticmethod
    def _cards(i: int) -> slice:
        """Game ``i``'s entries of ``hands`` and ``played``."""
        return slice(i * NUM_SEATS * NUM_TYPES, (i + 1) * NUM_SEATS * NUM_TYPES)

    def _write_play(self, i: int, game: Game) -> None:
        """Set ``game``'s tricks, trick in progress, turn and counts to game ``i``'s arrays."""
        row = self.state[i].tolist()
        done = self.history[i * NUM_TRICKS : i * NUM_TRICKS + row[DONE]].tolist()
        game.tricks = [(leader, cards, winner) for *cards, leader, winner in done]
        game.trick = row[TRICK : TRICK + row[TRICK_LEN]]
        game.to_act, game.trick_leader = row[TO_ACT], row[LEADER]
        game.tricks_won, game.trick_points = row[WON : WON + 2], row[POINTS : POINTS + 2]
        # The engine's card heading the trick: None before the first card, then kept past a trick's end.
        if game.trick:
            game._winning = row[HEADING]
        elif done:
            *cards, leader, winner = done[-1]
            game._winning = cards[(winner - leader) & 3]
        else:
            game._winning = None

    # -- one batch step -------------------------------------------------------------------------
    def play(self, rows: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play ``cards[k]`` (card types, legal) in game ``rows[k]``.

        Returns the rows whose hand's last trick just ended (:meth:`finish` them), the others, and
        for those the seat to act next and its legal cards ((n, 24) int64, 1 = legal).
        """
        state = self.state.take(rows, axis=0)
        seat = state[:, TO_ACT].copy()
        key = seat * NUM_TYPES + cards
        at = rows * (NUM_SEATS * NUM_TYPES) + key
        left = self.hands.take(at) - 1
        self.hands[at] = left
        copy = self.played.take(at)
        self.played[at] = copy + 1
        player = rows * NUM_SEATS + seat
        self.held[player] = self.held.take(player) ^ ((left == 0) << cards)  # clear the bit of a last copy
        base = rows * self._row_size
        observations = self._observations
        observations[base[:, None] + self._play_entries.take(key * 2 + copy, axis=0)] = 1.0  # in every row
        observations[base + self._hand_entries.take(key * 5 + left)] = 0.0  # gone from the player's "hand"
        position = state[:, TRICK_LEN].copy()
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
        finished = rows.take(last)
        if len(last):
            going = np.ones(len(rows), dtype=bool)
            going[last] = False
            rows, state = rows[going], state[going]
        return finished, rows, state[:, TO_ACT], self._legal(rows, state)

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

    def _legal(self, rows: np.ndarray, state: np.ndarray) -> np.ndarray:
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
        return (legal[:, None] >> _BIT_ORDER) & 1

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
