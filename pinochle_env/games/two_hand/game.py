"""Two-handed Pinochle: a turned-up trump, a stock to draw from, and melding during play.

The rules as implemented are in ``docs/two_hand.md``. In short: 12 cards each; the next card is
turned up for trump and lies under the 23-card stock. Phase 1 is twelve tricks of free play;
after each the winner may meld one combination (putting at least one new card on the table) and
may show or exchange a dix, then the winner and the loser each draw a card, the loser taking the
turn-up with the last draw. Phase 2 is twelve tricks with must-follow, must-head and must-trump.
A hand scores each player its meld plus its trick points; the game is played to 1000.

:class:`TwoHandGame` implements the engine protocol of :mod:`pinochle_env.protocol` (``legal_bits``,
``apply``, ``view``, ``record``, ...). Chance comes only from the ``numpy.random.Generator``.
The meld kinds are in :mod:`.melds`, the action ids in :mod:`.actions`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ... import rules as R
from ...cards import (
    COPIES,
    COUNTING_VALUES,
    NINE,
    NUM_TYPES,
    RANK_OF,
    SUIT_OF,
    SUITS,
    card,
    card_to_str,
    counts_from_cards,
    format_cards,
)
from ...engine import Engine, card_types, check_copies, parse_hands, shuffled_deck
from ...protocol import GamePhase
from ...rules.switches import Rules
from .actions import LAYOUT
from .melds import MELD_CARDS, MELD_KINDS, USED_DIX, meld_points, most_worn
from .render import render_game

NUM_SEATS = 2
HAND_SIZE = 12
STOCK_SIZE = 23
PHASE_TRICKS = 12
NUM_TRICKS = 2 * PHASE_TRICKS
DIX_POINTS = 10


class Phase(GamePhase):
    """Where a hand stands: stock play, the trick winner's meld turn, play-out, over (with the
    kind of decision taken there)."""

    PLAY1 = 0, "play"
    MELD = 1, "meld"
    PLAY2 = 2, "play"
    HAND_OVER = 3


# ------------------------------------------------------------------------------------------------
# Views


@dataclass
class TwoHandView:
    """Everything one seat may know at one moment, and nothing else (an information set).

    Seats are absolute. ``known`` is, per seat, the cards both players know that seat holds: its
    table cards plus turn-ups it took in view of the other (a lower bound; the encoder completes it
    by elimination once the stock is gone).
    """

    seat: int
    rules: Rules
    phase: Phase
    to_act: int
    dealer: int
    hand: list[int]  # count vector: the seat's concealed cards plus its cards on the table
    concealed: list[int]  # the seat's cards not on the table
    table: list[list[int]]  # per seat, count vector of its melded cards still on the table
    known: list[list[int]]  # per seat, count vector of the cards everyone knows it holds
    trump: int
    turn_up: int  # the card under the stock, -1 once taken
    stock_size: int
    tricks: list[tuple[int, list[int], int]]  # completed tricks: (leader, cards, winner)
    trick_leader: int
    trick: list[int]  # cards of the trick in progress, in play order
    meld_points: list[int]  # per seat, this hand (the dealer's turned-up dix included)
    meld_counts: list[list[int]]  # per seat, how often each meld action (kinds, dix exchange, dix show) scored
    melds: list[list[dict[str, Any]]]  # per phase-1 trick, the meld entries of the hand record
    trick_points: list[int]  # per seat, this hand
    totals: list[int]  # running score per seat before this hand's result
    legal_actions: list[int]  # empty unless this seat is to act


# ------------------------------------------------------------------------------------------------
# The engine


class TwoHandGame(Engine):
    """A game of two-handed Pinochle: hands dealt and scored until a player reaches the target.

    ``deal`` presets the first hand: ``[hand0, hand1]`` (12 card strings or types each; the turn-up
    and stock are then shuffled from the other 24 cards) or a dict ``{"hands": [...], "turn_up":
    card, "stock": [23 cards, top first]}`` for an exact hand.
    """

    NUM_SEATS: ClassVar[int] = NUM_SEATS
    VARIANT: ClassVar[str] = "two_hand"

    def __init__(
        self,
        rules: Rules | None = None,
        rng: np.random.Generator | None = None,
        dealer: int | None = None,
        deal: list[list[Any]] | dict[str, Any] | None = None,
        totals: list[int] | tuple[int, int] | None = None,
    ) -> None:
        dealer = self._begin(rules, rng, dealer, totals)
        self.layout = LAYOUT
        self._values = COUNTING_VALUES[self.rules.counting]
        self._start_hand(dealer, deal)

    # ------------------------------------------------------------------ hand set-up

    @classmethod
    def deal_from_deck(cls, cards: list[int]) -> dict[str, Any]:
        """The deal a deck in the order ``cards`` (the 48 card types) gives: seat 0 the first 12
        cards, seat 1 the next 12, then the turn-up and the stock in draw order (what a shuffled
        deck gives; OpenSpiel's chance nodes deal card by card in this order)."""
        hands = [sorted(cards[:HAND_SIZE]), sorted(cards[HAND_SIZE : NUM_SEATS * HAND_SIZE])]
        return {"hands": hands, "turn_up": cards[NUM_SEATS * HAND_SIZE], "stock": cards[NUM_SEATS * HAND_SIZE + 1 :]}

    def _start_hand(self, dealer: int, deal: list[list[Any]] | dict[str, Any] | None) -> None:
        self.dealer = dealer
        hands, turn_up, stock = _validated_deal(deal, self.rng)
        self.deal, self.stock = hands, stock
        self.turn_up_dealt = self.turn_up = turn_up
        self.trump = SUIT_OF[turn_up]
        self.drawn = 0  # stock cards drawn so far
        self.concealed = [counts_from_cards(h) for h in hands]
        # Per seat and card type, one entry per copy on the table: the USED_* bits it has served in.
        self.table: list[list[list[int]]] = [[[] for _ in range(NUM_TYPES)] for _ in range(NUM_SEATS)]
        self.known_concealed = [[0] * NUM_TYPES for _ in range(NUM_SEATS)]
        self.turn_up_dix = RANK_OF[turn_up] == NINE
        self.meld_points = [0, 0]
        self.meld_points[dealer] += DIX_POINTS if self.turn_up_dix else 0
        self.meld_counts = [[0] * (len(MELD_KINDS) + 2) for _ in range(NUM_SEATS)]
        self.melds: list[list[dict[str, Any]]] = []
        self.draws: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.melded = False  # the trick winner has made its one meld of this turn
        self.tricks: list[tuple[int, list[int], int]] = []
        self.trick: list[int] = []
        self.trick_leader = self.to_act = 1 - dealer
        self.trick_points = [0, 0]
        self.phase = Phase.PLAY1
        self.score: list[int] | None = None
        self.totals_before = list(self.totals)

    # ------------------------------------------------------------------ queries

    @property
    def hands(self) -> list[list[int]]:
        """Per seat, the count vector of the cards it holds now (concealed and on the table)."""
        return [self.hand_of(seat) for seat in range(NUM_SEATS)]

    def hand_of(self, seat: int) -> list[int]:
        """Count vector of ``seat``'s cards, concealed and on the table."""
        return [n + len(copies) for n, copies in zip(self.concealed[seat], self.table[seat], strict=True)]

    def table_counts(self, seat: int) -> list[int]:
        """Count vector of ``seat``'s cards on the table."""
        return [len(copies) for copies in self.table[seat]]

    def known(self, seat: int) -> list[int]:
        """Count vector of the cards both players know ``seat`` holds (table cards and turn-ups taken)."""
        return [k + len(copies) for k, copies in zip(self.known_concealed[seat], self.table[seat], strict=True)]

    @property
    def stock_left(self) -> list[int]:
        """The stock cards not yet drawn, top first."""
        return self.stock[self.drawn :]

    def _legal_stock_play(self) -> int:
        """Phase 1: any card the player holds, concealed or on the table."""
        return R.held_bits(self.hand_of(self.to_act)) << LAYOUT.card0

    def _legal_final_play(self) -> int:
        """Phase 2: follow suit and beat if able, else trump, else any card."""
        held = R.held_bits(self.concealed[self.to_act])
        return R.legal_card_bits(held, self.trick, self.trump, "winner", True) << LAYOUT.card0

    def _legal_meld(self) -> int:
        seat = self.to_act
        bits = 1 << LAYOUT.no_meld
        if not self.melded:
            for kind in range(len(MELD_KINDS)):
                if self._meld_plan(seat, kind) is not None:
                    bits |= 1 << LAYOUT.meld_action(kind)
        nine = card(NINE, self.trump)
        if self.concealed[seat][nine]:
            bits |= 1 << LAYOUT.dix_show
            if self.turn_up >= 0 and self.turn_up != nine:
                bits |= 1 << LAYOUT.dix_exchange
        return bits

    def _meld_plan(self, seat: int, kind: int) -> list[tuple[int, int, int]] | None:
        """How ``seat`` would meld ``kind``: (card type, copies from the table, copies from the
        concealed hand) per card of the meld, or None if it cannot.

        Table copies that may serve again are used first; at least one card must come from the
        concealed hand (the first card of the meld's list that can).
        """
        blocked = MELD_KINDS[kind].blocked
        concealed, table = self.concealed[seat], self.table[seat]
        plan = []
        for c, copies in MELD_CARDS[self.trump][kind]:
            reusable = min(copies, sum(1 for uses in table[c] if not uses & blocked))
            if reusable + concealed[c] < copies:
                return None
            plan.append((c, reusable, copies - reusable))
        if any(new for _, _, new in plan):
            return plan
        for index, (c, reused, new) in enumerate(plan):
            if concealed[c]:
                plan[index] = (c, reused - 1, new + 1)
                return plan
        return None

    # ------------------------------------------------------------------ transitions

    def _apply_card(self, action: int) -> None:
        self._apply_play(action - LAYOUT.card0)

    def _apply_play(self, c: int) -> None:
        seat = self.to_act
        self._take_for_play(seat, c)
        self.trick.append(c)
        if len(self.trick) < NUM_SEATS:
            self.to_act = 1 - seat
        else:
            self._end_trick()

    def _take_for_play(self, seat: int, c: int) -> None:
        """Remove one ``c`` from ``seat``: a table copy if there is one (the most used), else a concealed one."""
        copies = self.table[seat][c]
        if copies:
            copies.pop(most_worn(copies))
        else:
            self._take_concealed(seat, c)

    def _take_concealed(self, seat: int, c: int) -> None:
        self.concealed[seat][c] -= 1
        known = self.known_concealed[seat]
        known[c] = max(0, known[c] - 1)

    def _end_trick(self) -> None:
        trick, leader = self.trick, self.trick_leader
        winner = (leader + R.trick_winner(trick, self.trump)) % NUM_SEATS
        last = len(self.tricks) == NUM_TRICKS - 1
        self.trick_points[winner] += R.trick_points(trick, self._values, last)
        self.tricks.append((leader, trick, winner))
        self.trick = []
        self.trick_leader = self.to_act = winner
        if self.phase == Phase.PLAY1:
            self.melds.append([])
            self.melded = False
            self.phase = Phase.MELD
            self._end_meld_turn_if_done()
        elif last:
            self._end_hand()

    def _apply_meld(self, action: int) -> None:
        if action == LAYOUT.no_meld:
            self._end_meld_turn()
            return
        if action == LAYOUT.dix_exchange:
            self._exchange_dix()
        elif action == LAYOUT.dix_show:
            self._show_dix()
        else:
            self._declare(action - LAYOUT.meld0)
        self._end_meld_turn_if_done()

    def _declare(self, kind: int) -> None:
        """Put meld ``kind`` on the table: reusable table copies first (the most used), then new cards."""
        seat, marks = self.to_act, MELD_KINDS[kind].marks
        blocked = MELD_KINDS[kind].blocked
        table, cards, new = self.table[seat], [], []
        plan = self._meld_plan(seat, kind)
        assert plan is not None, "only a legal meld is declared"
        for c, reused, fresh in plan:
            for _ in range(reused):
                table[c][most_worn(table[c], blocked)] |= marks
            for _ in range(fresh):
                self._take_concealed(seat, c)
                table[c].append(marks)
            cards += [c] * (reused + fresh)
            new += [c] * fresh
        self.melded = True
        self._score_meld(LAYOUT.meld_action(kind), meld_points(kind, self.trump), cards, new)

    def _show_dix(self) -> None:
        seat, nine = self.to_act, card(NINE, self.trump)
        self._take_concealed(seat, nine)
        self.table[seat][nine].append(USED_DIX)
        self._score_meld(LAYOUT.dix_show, DIX_POINTS, [nine], [nine])

    def _exchange_dix(self) -> None:
        seat, nine, taken = self.to_act, card(NINE, self.trump), self.turn_up
        self._take_concealed(seat, nine)
        self._receive(seat, taken, public=True)
        self.turn_up = nine
        self._score_meld(LAYOUT.dix_exchange, DIX_POINTS, [nine], [nine], took=taken)

    def _score_meld(self, action: int, points: int, cards: list[int], new: list[int], took: int | None = None) -> None:
        seat = self.to_act
        self.meld_points[seat] += points
        self.meld_counts[seat][action - LAYOUT.meld0] += 1
        entry = {"seat": seat, "meld": LAYOUT.to_string(action), "points": points}
        entry |= {"cards": format_cards(cards), "new": format_cards(new)}
        if took is not None:
            entry["took"] = card_to_str(took)
        self.melds[-1].append(entry)

    def _receive(self, seat: int, c: int, public: bool) -> None:
        self.concealed[seat][c] += 1
        if public:
            self.known_concealed[seat][c] += 1

    def _end_meld_turn_if_done(self) -> None:
        if self._legal_meld() == 1 << LAYOUT.no_meld:
            self._end_meld_turn()

    def _end_meld_turn(self) -> None:
        """The draws: the winner takes the top stock card, the loser the next (the turn-up last)."""
        winner = self.trick_leader
        loser = 1 - winner
        first = self.stock[self.drawn]
        self._receive(winner, first, public=False)
        self.drawn += 1
        if self.drawn < len(self.stock):
            second = self.stock[self.drawn]
            self.drawn += 1
            self._receive(loser, second, public=False)
        else:
            second, self.turn_up = self.turn_up, -1
            self._receive(loser, second, public=True)
        self.draws.append(((winner, first), (loser, second)))
        self.to_act = winner
        self.phase = Phase.PLAY1 if self.turn_up >= 0 else Phase.PLAY2
        if self.phase == Phase.PLAY2:
            self._pick_up_melds()

    def _pick_up_melds(self) -> None:
        """Phase 2 begins: every card on the table goes back to its owner's hand (still known)."""
        for seat in range(NUM_SEATS):
            for c, copies in enumerate(self.table[seat]):
                self.concealed[seat][c] += len(copies)
                self.known_concealed[seat][c] += len(copies)
                copies.clear()

    def _end_hand(self) -> None:
        self.score = [self.meld_points[s] + self.trick_points[s] for s in range(NUM_SEATS)]
        self.totals = [self.totals[s] + self.score[s] for s in range(NUM_SEATS)]
        self.winner = game_winner(self.totals, self.rules.target)
        self.phase = Phase.HAND_OVER
        self.to_act = -1

    #: Per phase, the method listing the legal actions and the one applying an action.
    LEGAL_BITS: ClassVar[dict[Phase, Callable[[TwoHandGame], int]]] = {
        Phase.PLAY1: _legal_stock_play,
        Phase.MELD: _legal_meld,
        Phase.PLAY2: _legal_final_play,
        Phase.HAND_OVER: Engine._legal_none,
    }
    APPLY: ClassVar[dict[Phase, Callable[[TwoHandGame, int], None]]] = {
        Phase.PLAY1: _apply_card,
        Phase.MELD: _apply_meld,
        Phase.PLAY2: _apply_card,
    }

    # ------------------------------------------------------------------ copies, views, records

    def view(self, seat: int) -> TwoHandView:
        """What ``seat`` may know now: its own concealed cards and everything public."""
        return TwoHandView(
            seat=seat,
            rules=self.rules,
            phase=self.phase,
            to_act=self.to_act,
            dealer=self.dealer,
            hand=self.hand_of(seat),
            concealed=list(self.concealed[seat]),
            table=[self.table_counts(s) for s in range(NUM_SEATS)],
            known=[self.known(s) for s in range(NUM_SEATS)],
            trump=self.trump,
            turn_up=self.turn_up,
            stock_size=len(self.stock) - self.drawn,
            tricks=[(leader, list(cards), winner) for leader, cards, winner in self.tricks],
            trick_leader=self.trick_leader,
            trick=list(self.trick),
            meld_points=list(self.meld_points),
            meld_counts=[list(counts) for counts in self.meld_counts],
            melds=[[dict(entry) for entry in entries] for entries in self.melds],
            trick_points=list(self.trick_points),
            totals=list(self.totals_before),
            legal_actions=self.legal_actions() if seat == self.to_act else [],
        )

    def record(self) -> dict[str, Any]:
        """The finished hand as a record (format in ``docs/two_hand.md``); replays with :func:`replay`."""
        start = self._record_start()
        assert self.score is not None, "a finished hand has its score"
        return {
            **start,
            "turn_up": card_to_str(self.turn_up_dealt),
            "stock": format_cards(self.stock),
            "trump": SUITS[self.trump],
            "turn_up_dix": self.turn_up_dix,
            "tricks": [
                {"phase": 1 + i // PHASE_TRICKS, "leader": leader, "cards": format_cards(cards), "winner": winner}
                for i, (leader, cards, winner) in enumerate(self.tricks)
            ],
            "melds": copy.deepcopy(self.melds),
            "draws": [[[s, card_to_str(c)] for s, c in pair] for pair in self.draws],
            "meld": list(self.meld_points),
            "points": list(self.trick_points),
            "score": list(self.score),
            "totals": list(self.totals),
            "game_winner": self.winner,
            "hand_number": self.hand_number,
        }

    def __str__(self) -> str:
        return render_game(self)


def game_winner(totals: list[int], target: int) -> int | None:
    """The player who has won after a hand: the only one at ``target`` or more, else the higher of two
    (None while nobody has reached it, or on an exact tie)."""
    over = [seat for seat in range(NUM_SEATS) if totals[seat] >= target]
    if len(over) < NUM_SEATS:
        return over[0] if over else None
    return None if totals[0] == totals[1] else int(totals[1] > totals[0])


def _validated_deal(
    deal: list[list[Any]] | dict[str, Any] | None, rng: np.random.Generator
) -> tuple[list[list[int]], int, list[int]]:
    """(hands, turn-up, stock top first) of a preset deal, the rng filling what it leaves open.

    A random deal shuffles the 48 cards: seat 0 gets the first 12, seat 1 the next 12, then comes the
    turn-up and the stock in draw order. ``ValueError`` on anything but a whole deck.
    """
    if deal is None:
        deal = TwoHandGame.deal_from_deck(shuffled_deck(rng))
    if isinstance(deal, dict):
        unknown = set(deal) - {"hands", "turn_up", "stock"}
        if unknown or "hands" not in deal or ("turn_up" in deal) != ("stock" in deal):
            raise ValueError("a deal dict needs 'hands', and 'turn_up' with 'stock' (both or neither)")
        hands = parse_hands(deal["hands"], NUM_SEATS, HAND_SIZE)
        rest = card_types([deal["turn_up"], *deal["stock"]]) if "stock" in deal else None
        if rest is not None and len(rest) != STOCK_SIZE + 1:
            raise ValueError(f"the stock needs {STOCK_SIZE} cards, got {len(rest) - 1}")
    else:
        hands, rest = parse_hands(deal, NUM_SEATS, HAND_SIZE), None
    if rest is None:
        check_copies([c for hand in hands for c in hand], whole_deck=False)
        left = counts_from_cards(c for hand in hands for c in hand)
        deck = np.array([c for c in range(NUM_TYPES) for _ in range(COPIES - left[c])])
        rng.shuffle(deck)
        rest = deck.tolist()
    check_copies([c for hand in hands for c in hand] + rest, whole_deck=True)
    return hands, rest[0], rest[1:]
