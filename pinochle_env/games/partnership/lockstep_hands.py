"""Whole partnership hands of many games as arrays, stepped together: the batched API's fast path
for large batches (``BatchedGames(arrays=True)``).

Played one game at a time, every decision costs Python calls into the engine, events, the
encoder's update of the observation rows and a legality check. :class:`LockstepHands` keeps the
state of every game's hand as arrays (one row per game) from the opening bid to the last trick and
does those jobs for all games at once: the auction, trump, the card passing, meld and the throw-in
here, the trick play in :class:`~.lockstep.LockstepPlay`. A step costs a few hundred
numpy calls whatever the number of games, so this wins over the engines only from about a hundred
games on. What still runs game by game, once a hand: each seat's meld (``rules.meld``), the score
(``rules.score_hand``, :meth:`LockstepHands.score`) and the next deal (:meth:`LockstepHands.deal`).

It implements docs/rules.md's sections 2 to 5 (the auction to the throw-in) a second time, so it
is checked against the engine:

- A game enters at the start of each hand's auction: from its engine, just dealt
  (:meth:`LockstepHands.load`), or dealt here for a new game whose engine is made only if read.
  Every action is also logged, and :meth:`LockstepHands.sync` catches an engine up by applying the
  logged actions through the engine itself, so an engine that is read (``BatchedGames.games``,
  ``views()``, a refused action's message, a hand record) always holds exactly the state, events
  and records the rules give.
- A game leaves when its hand ends (played out or thrown in), or when everybody passed under
  ``all_pass="redeal"`` (its engine then catches up and deals again from its generator).
- The observation entries are written through the encoder's own index tables, so both paths put
  the same value in the same place. The batched-versus-env tests compare every decision, the
  engines' whole state, the rewards and the records under every rule switch, and
  ``tests/games/partnership/test_lockstep.py`` the scores under the save-meld switches, which random play seldom tells
  apart.
"""

from __future__ import annotations

import numpy as np

from ... import rules as R
from ...actions import layout_for
from ...cards import NUM_TYPES
from ...encoding import POINT_SCALE, ObservationSpec
from ...rules.switches import BID_STEP, MIN_BID
from .encoding import index_tables, rule_writes
from .game import HAND_SIZE, NUM_SEATS, NUM_TRICKS, Game, Phase
from .lockstep import POINTS, TO_ACT, WON, LockstepPlay, bit_rows

_SEATS = np.arange(NUM_SEATS)
_SEAT_OF_CARD = np.repeat(_SEATS, HAND_SIZE)  # the seat of each card of a deal, seat by seat
_CARD_BITS = 1 << np.arange(NUM_TYPES, dtype=np.int64)
#: Per 4-bit mask of the seats that passed: the one seat still in, or -1 when it is not one seat.
_ALONE = np.array(
    [next(s for s in range(NUM_SEATS) if not bits >> s & 1) if bin(bits).count("1") == 3 else -1 for bits in range(16)]
)
#: ``_NEXT[bits * 4 + seat]``: the first seat after ``seat`` clockwise that has not passed.
_NEXT = np.array(
    [
        next(((seat + k) % NUM_SEATS for k in range(1, NUM_SEATS) if not bits >> ((seat + k) % NUM_SEATS) & 1), seat)
        for bits in range(16)
        for seat in range(NUM_SEATS)
    ]
)


def _entries(table) -> np.ndarray:
    """An index table of the encoder as an int64 array (its last axis: the entry in each row)."""
    return np.array(table, dtype=np.int64)


class LockstepHands(LockstepPlay):
    """The hands of up to ``num_games`` partnership games (one row each), stepped together."""

    def __init__(self, num_games: int, spec: ObservationSpec, observations: np.ndarray) -> None:
        super().__init__(num_games, spec, observations)
        rules = self.rules
        tables = index_tables(spec)
        self.layout = layout = layout_for(rules.max_bid)
        self._count, self._sequential = rules.pass_count, rules.pass_mode == "sequential"
        relative, base, own = tables.relative, tables.base, tables.own
        self._bid_entries = _entries(relative["bids"])  # [who, bid index] -> 4 entries
        self._high_entries = _entries(base["high_bid"])  # [bid index] -> 4 entries
        self._passed_entries = _entries(relative["auction_passed"])[:, 0]  # [who] -> 4 entries
        self._help_entries = _entries(relative["auction_help"])[:, 0]
        self._stuck_entries = _entries(base["dealer_stuck"])[0]
        self._declarer_entries = _entries(relative["declarer"])[:, 0]
        self._dealer_entries = _entries(relative["dealer"])[:, 0]
        self._trump_entries = _entries(base["trump"])  # [suit] -> 4 entries
        self._thrown_entries = _entries(base["thrown_in"])  # [0: thrown in, 1: played] -> 4 entries
        self._card_passed_entries = _entries(own["cards_passed"]).reshape(-1)  # [key * 5 + copy], as hand entries
        self._card_received_entries = _entries(own["cards_received"]).reshape(-1)
        self._meld_shown = _entries(relative["meld_shown"])  # [who, copy * 24 + card] -> 4 entries
        self._meld_points = _entries(relative["meld_points"])[:, 0]  # [who] -> 4 entries
        self._rule_writes = rule_writes(spec)  # the "rules" piece: (4 entries, value) per non-zero entry
        # The mask of each auction's bids is a range of action ids; pass (and help) are always legal.
        self._ids = np.arange(layout.size)
        self._calls = np.zeros(layout.size, dtype=np.int8)
        self._calls[layout.passing] = 1
        self._calls[layout.help] = rules.pass_with_help
        n = num_games
        self.active = np.zeros(n, dtype=bool)  # the game's hand is here
        self.phase = np.zeros(n, dtype=np.int64)
        self.to_act = np.zeros(n, dtype=np.int64)  # the seat to act outside trick play
        self.dealer = np.zeros(n, dtype=np.int64)
        self.high_index = np.zeros(n, dtype=np.int64)  # bid index of the high bid, -1 before any bid
        self.high_bidder = np.zeros(n, dtype=np.int64)
        self.passed = np.zeros(n, dtype=np.int64)  # 4-bit mask of the seats that passed
        self.declarer = np.zeros(n, dtype=np.int64)
        self.contract = np.zeros(n, dtype=np.int64)
        self.trump = np.zeros(n, dtype=np.int64)
        self.passes = np.zeros((n, 2 * self._count), dtype=np.int64)  # the cards passed, in order
        self.passes_done = np.zeros(n, dtype=np.int64)
        # The encoder's copies passed and received, per seat and card, as ``hands``.
        self.cards_passed = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)
        self.cards_received = np.zeros(n * NUM_SEATS * NUM_TYPES, dtype=np.int64)
        self.meld = np.zeros((n, NUM_SEATS), dtype=np.int64)  # each seat's meld points
        self.thrown = np.zeros(n, dtype=bool)
        # The hand's actions, in order; the longest hand has every bid, a pass per seat, trump, the
        # passes, the throw-in decision and every card.
        longest = layout.num_bids + NUM_SEATS + 1 + 2 * self._count + 1 + NUM_SEATS * NUM_TRICKS
        self.log = np.zeros((n, longest), dtype=np.int64)
        self.logged = np.zeros(n, dtype=np.int64)
        self._synced = [0] * n  # actions of the log already applied to the engine
        self._totals = [[0, 0] for _ in range(n)]  # running totals before the hand
        # Set by each step: the games whose hand ended (played out or thrown in) and those whose
        # auction was passed out under ``all_pass="redeal"``.
        self.ended: list[int] = []
        self.redealt: list[int] = []

    # -- entering and leaving -----------------------------------------------------------------
    def load(self, rows: list[int], games: list[Game]) -> None:
        """Take over games ``rows`` at the start of their auctions: their engines ``games`` have just
        dealt, and the encoders have written the hands' opening observation rows."""
        dealers = np.array([game.dealer for game in games], dtype=np.int64)
        counts = np.array([game.hands for game in games], dtype=np.int64).reshape(len(games), -1)  # seat by seat
        self._open(np.array(rows), dealers, counts, [list(game.totals) for game in games])

    def draw(self, rng: np.random.Generator) -> tuple[int, list[list[int]]]:
        """The first dealer and hands of a new game, drawn from ``rng`` exactly as a new engine draws them."""
        return Game.random_dealer(rng), Game.random_hands(rng)

    def deal(self, rows: np.ndarray, dealers: list[int], hands: list[list[list[int]]]) -> None:
        """Start new games in ``rows`` with no engine: ``dealers[k]`` dealt ``hands[k]`` (each seat's
        sorted card types), running totals 0. Writes the observation rows the encoder writes at
        such a hand's start: all zero but the dealer, each seat's own hand and the rules."""
        k = len(rows)
        cards = np.array(hands, dtype=np.int64).reshape(k, -1)  # seat by seat, HAND_SIZE each
        keys = (np.arange(k)[:, None] * NUM_SEATS + _SEAT_OF_CARD) * NUM_TYPES + cards
        counts = np.bincount(keys.reshape(-1), minlength=k * NUM_SEATS * NUM_TYPES).reshape(k, -1)
        self._observations.reshape(-1, self._row_size)[rows] = 0.0  # the scores too: totals are 0
        dealt_by = np.array(dealers, dtype=np.int64)
        self._write(rows, self._dealer_entries[dealt_by])
        for entries, value in self._rule_writes:
            self._write(rows, np.array(entries, dtype=np.int64), value)
        base = rows * self._row_size
        for copy in range(2):
            game, key = np.nonzero(counts > copy)
            self._observations[base[game] + self._hand_entries[key * 5 + copy]] = 1.0
        self._open(rows, dealt_by, counts, [[0, 0] for _ in range(k)])

    def _open(self, rows: np.ndarray, dealers: np.ndarray, counts: np.ndarray, totals: list[list[int]]) -> None:
        """Set the arrays of games ``rows`` to the start of an auction: ``dealers`` dealt the hands
        ``counts`` ((k, 4 * 24), seat by seat); ``totals`` are the running scores before the hand."""
        self.active[rows] = True
        self.phase[rows] = Phase.AUCTION
        self.to_act[rows] = (dealers + 1) % NUM_SEATS
        self.dealer[rows] = dealers
        self.high_index[rows] = -1
        self.high_bidder[rows] = -1
        self.passed[rows] = 0
        self.thrown[rows] = False
        self.logged[rows] = 0
        self.hands.reshape(len(self.active), -1)[rows] = counts
        held = (counts.reshape(-1, NUM_TYPES) > 0).astype(np.int64) @ _CARD_BITS
        self.held.reshape(len(self.active), -1)[rows] = held.reshape(-1, NUM_SEATS)
        for i, total in zip(rows.tolist(), totals, strict=True):
            self._synced[i] = 0
            self._totals[i] = total

    def sync(self, i: int, game: Game) -> None:
        """Bring game ``i``'s engine up to date by applying its logged actions through the engine."""
        actions = self.log[i, self._synced[i] : self.logged[i]].tolist()
        for action in actions:
            game.APPLY[game.phase](game, action)
        self._synced[i] += len(actions)

    def score(self, i: int) -> tuple[list[int], int | None]:
        """The score per team of game ``i``'s hand, which has ended, and the game's winner after it
        (``rules.score_hand`` and ``rules.game_winner`` on the arrays, as the engine's hand end)."""
        rules = self.rules
        meld = self.meld[i].tolist()
        team = int(self.declarer[i]) & 1
        row = self.state[i].tolist()  # the trick play's (left from an earlier hand, and not counted, if thrown in)
        result = R.score_hand(
            team,
            int(self.contract[i]),
            [meld[0] + meld[2], meld[1] + meld[3]],
            row[POINTS : POINTS + 2],
            row[WON : WON + 2],
            bool(self.thrown[i]),
            rules.save_meld,
            rules.save_meld_applies_to,
        )
        totals = [t + s for t, s in zip(self._totals[i], result.score, strict=True)]
        return list(result.score), R.game_winner(totals, team, rules.target)

    # -- one batch step -------------------------------------------------------------------------
    def step(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """Apply ``actions[rows]`` (legal) to games ``rows``; :attr:`ended` and :attr:`redealt` then
        list the games that left."""
        self.ended, self.redealt = [], []
        taken = actions.take(rows)
        at = self.logged.take(rows)
        self.log[rows, at] = taken
        self.logged[rows] = at + 1
        # The games of each phase, in the order of the phases: one sort and slices of it.
        phases = self.phase.take(rows)
        order = phases.argsort(kind="stable")
        rows, taken = rows.take(order), taken.take(order)
        start = 0
        for phase, stop in enumerate(np.bincount(phases, minlength=len(Phase)).cumsum().tolist()):
            if stop > start:
                self._APPLY[phase](self, rows[start:stop], taken[start:stop])
            start = stop

    def decisions(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The seat to act, the phase and the mask (int8) of games ``rows``, all here."""
        layout = self.layout
        phases = self.phase.take(rows)
        seats = self.to_act.take(rows)
        masks = np.zeros((len(rows), layout.size), dtype=np.int8)
        in_play = phases == Phase.PLAY
        if in_play.any():
            playing = rows[in_play]
            state = self.state.take(playing, axis=0)
            seats[in_play] = state[:, TO_ACT]
            masks[in_play, layout.card0 : layout.card0 + NUM_TYPES] = self.legal(playing, state)
        bidding = np.flatnonzero(phases == Phase.AUCTION)
        if len(bidding):
            first = self.high_index.take(rows.take(bidding))[:, None] + 1  # the lowest bid now allowed
            last: int | np.ndarray = layout.num_bids - 1
            if self.rules.bid_raises == "seed":  # a raise of 10 or 20
                last = np.minimum(first + 1, last)
            ids = self._ids
            masks[bidding] = ((ids >= first) & (ids <= last)) | self._calls
        masks[phases == Phase.TRUMP, layout.trump0 : layout.trump0 + 4] = 1
        masks[phases == Phase.THROW_IN, layout.throw_in : layout.throw_in + 2] = 1
        passing = np.flatnonzero((phases == Phase.PASS_TO_DECLARER) | (phases == Phase.PASS_BACK))
        if len(passing):
            held = self.held.take(rows.take(passing) * NUM_SEATS + seats.take(passing))
            masks[passing, layout.card0 : layout.card0 + NUM_TYPES] = bit_rows(held)
        return seats, phases, masks

    def _write(self, rows: np.ndarray, entries: np.ndarray, value: float = 1.0) -> None:
        """Store ``value`` at ``entries[k]`` (one per seat's row) of game ``rows[k]``, or at the
        same ``entries`` (one row of them) in every game of ``rows``."""
        self._observations[(rows * self._row_size)[:, None] + entries] = value

    # -- the phases (each applies one action per game of ``rows``) ------------------------------
    def _auction(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """A bid or a pass; the auction ends when one seat is left in (see ``AuctionEngine._apply_auction``)."""
        layout = self.layout
        seats = self.to_act.take(rows)
        bid = actions < layout.num_bids
        if bid.any():
            bidders, index, who = rows[bid], actions[bid], seats[bid]
            self._write(bidders, self._bid_entries[who, index])
            old = self.high_index.take(bidders)
            raised = old >= 0
            self._write(bidders[raised], self._high_entries[old[raised]], 0.0)
            self._write(bidders, self._high_entries[index])
            self.high_index[bidders] = index
            self.high_bidder[bidders] = who
        if not bid.all():
            passers, who = rows[~bid], seats[~bid]
            self.passed[passers] |= 1 << who
            self._write(passers, self._passed_entries[who])
            helped = actions[~bid] == layout.help
            self._write(passers[helped], self._help_entries[who[helped]])
        passed = self.passed.take(rows)
        alone = _ALONE.take(passed)
        bidder = self.high_bidder.take(rows)
        won = (bidder >= 0) & (alone == bidder)
        nobody = (bidder < 0) & (alone == self.dealer.take(rows))
        if nobody.any():
            if self.rules.all_pass == "redeal":
                redealt = rows[nobody]
                self.active[redealt] = False
                self.redealt += redealt.tolist()
            else:  # the dealer is stuck at 250
                stuck = rows[nobody]
                self._write(stuck, self._stuck_entries)
                self._write(stuck, self._high_entries[0])
                self.high_index[stuck] = 0
                self.high_bidder[stuck] = self.dealer.take(stuck)
                won |= nobody
        going = ~(won | nobody)
        self.to_act[rows[going]] = _NEXT.take(passed[going] * NUM_SEATS + seats[going])
        if won.any():
            ending = rows[won]
            declarer = self.high_bidder.take(ending)
            self._write(ending, self._declarer_entries[declarer])
            self.declarer[ending] = declarer
            self.contract[ending] = MIN_BID + BID_STEP * self.high_index.take(ending)
            self.phase[ending] = Phase.TRUMP
            self.to_act[ending] = declarer

    def _name_trump(self, rows: np.ndarray, actions: np.ndarray) -> None:
        suits = actions - self.layout.trump0
        self.trump[rows] = suits
        self._write(rows, self._trump_entries[suits])
        if not self._count:
            self._meld(rows)
            return
        self.phase[rows] = Phase.PASS_TO_DECLARER
        self.to_act[rows] = self.declarer.take(rows) ^ 2  # the partner passes first
        self.passes_done[rows] = 0
        self.cards_passed.reshape(-1, NUM_SEATS * NUM_TYPES)[rows] = 0
        self.cards_received.reshape(-1, NUM_SEATS * NUM_TYPES)[rows] = 0

    def _pass_card(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """One card passed: by the partner to the declarer, then back (see ``Game._apply_pass``)."""
        cards = actions - self.layout.card0
        passer = self.to_act.take(rows)
        base = rows * self._row_size
        key, at = self._take(rows, passer, cards, base)
        copy = self.cards_passed.take(at)
        self.cards_passed[at] = copy + 1
        self._observations[base + self._card_passed_entries.take(key * 5 + copy)] = 1.0
        if self._sequential:  # the card is the receiver's at once
            self._receive(rows, passer ^ 2, cards)
        done = self.passes_done.take(rows)
        self.passes[rows, done] = cards
        done += 1
        self.passes_done[rows] = done
        count = self._count
        declarer = self.declarer.take(rows)
        self.phase[rows] = np.where(done < count, Phase.PASS_TO_DECLARER, Phase.PASS_BACK)
        self.to_act[rows] = np.where(done < count, declarer ^ 2, declarer)
        over = done == 2 * count
        if over.any():
            finished = rows[over]
            if not self._sequential:  # each side receives its cards now, the declarer's first
                declarer = declarer[over]
                passes = self.passes.take(finished, axis=0)
                for k in range(2 * count):
                    self._receive(finished, declarer if k < count else declarer ^ 2, passes[:, k])
            self._meld(finished)

    def _receive(self, rows: np.ndarray, seats: np.ndarray, cards: np.ndarray) -> None:
        """Add one copy of ``cards[k]`` to the hand of ``seats[k]`` in game ``rows[k]`` as a card
        received: counts, held bits, and the seat's "hand" and "cards_received" entries."""
        key = seats * NUM_TYPES + cards
        at = rows * (NUM_SEATS * NUM_TYPES) + key
        have = self.hands.take(at)
        self.hands[at] = have + 1
        player = rows * NUM_SEATS + seats
        self.held[player] = self.held.take(player) | (1 << cards)
        copy = self.cards_received.take(at)
        self.cards_received[at] = copy + 1
        base = rows * self._row_size
        self._observations[base + self._hand_entries.take(key * 5 + have)] = 1.0
        self._observations[base + self._card_received_entries.take(key * 5 + copy)] = 1.0

    def _meld(self, rows: np.ndarray) -> None:
        """Every seat melds (``rules.meld``, game by game); then the throw-in rule (see
        ``AuctionEngine._offer_throw_in``) asks the declarer, throws the hand in or starts play."""
        rules = self.rules
        mode, run_extras = rules.throw_in, rules.run_extras
        seat_rows = ((rows * NUM_SEATS)[:, None] + _SEATS).reshape(-1)
        hands = self.hands.reshape(-1, NUM_TYPES).take(seat_rows, axis=0).tolist()
        trumps = np.repeat(self.trump.take(rows), NUM_SEATS).tolist()
        melds = [R.meld(cards, trump, run_extras) for cards, trump in zip(hands, trumps, strict=True)]
        meld = np.array([m.points for m in melds], dtype=np.int64).reshape(-1, NUM_SEATS)
        shown = np.array([m.shown for m in melds], dtype=np.int64).reshape(-1, NUM_SEATS, NUM_TYPES)
        for copy in range(2):  # each copy shown, in every seat's row
            game, seat, card = np.nonzero(shown > copy)
            self._write(rows[game], self._meld_shown[seat, copy * NUM_TYPES + card])
        points = (rows * self._row_size)[:, None, None] + self._meld_points
        self._observations[points] = (meld / POINT_SCALE)[:, :, None]
        self.meld[rows] = meld
        declarers, contracts = self.declarer.take(rows), self.contract.take(rows)
        short = contracts - meld[np.arange(len(rows)), declarers] - meld[np.arange(len(rows)), declarers ^ 2]
        asked = (short == 250) & (mode == "seed") | (mode == "always")
        self.phase[rows[asked]] = Phase.THROW_IN
        self.to_act[rows[asked]] = declarers[asked]
        thrown = (short > 250) & (mode == "seed")
        self._end_hands(rows[thrown], thrown=True)
        self._start_play(rows[~asked & ~thrown])

    def _throw_in(self, rows: np.ndarray, actions: np.ndarray) -> None:
        thrown = actions == self.layout.throw_in
        self._end_hands(rows[thrown], thrown=True)
        self._start_play(rows[~thrown])

    def _start_play(self, rows: np.ndarray) -> None:
        """The hand is played: the declarer leads the first trick."""
        if not len(rows):
            return
        declarers = self.declarer.take(rows)
        self._write(rows, self._thrown_entries[1])
        self._write(rows, self._leader_entries[declarers])
        self.phase[rows] = Phase.PLAY
        self.start(rows, declarers, self.trump.take(rows))

    def _play_card(self, rows: np.ndarray, actions: np.ndarray) -> None:
        self._end_hands(self.play(rows, actions - self.layout.card0), thrown=False)

    #: Per phase value (in the order of ``Phase``: auction, trump, the two passing phases, throw-in,
    #: play), the method applying one action per game of ``rows`` in that phase.
    _APPLY = (_auction, _name_trump, _pass_card, _pass_card, _throw_in, _play_card)

    def _end_hands(self, rows: np.ndarray, thrown: bool) -> None:
        if len(rows):
            self.active[rows] = False
            self.thrown[rows] = thrown
            self.ended += rows.tolist()
