"""The rules engine: one game of partnership Pinochle as an explicit state machine.

``Game`` holds a whole game (hands until a team reaches the target). Each hand goes through the
phases of :class:`Phase`; ``legal_actions()`` and ``apply(action)`` dispatch to one small method
per phase. Chance (the shuffle, the first dealer) comes only from the ``numpy.random.Generator``
passed in. Everything that happens is also appended to ``events`` as ``(kind, seat, value,
audience)`` tuples, ``audience`` a bit mask of the seats that see it; the observation encoder and
the information-set views are built from those events, so a seat can never see more than the
events addressed to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

from ... import rules as R
from ...cards import (
    NUM_TYPES,
    SUITS,
    counts_from_cards,
    format_cards,
)
from ...engine import AuctionEngine
from ...protocol import GamePhase
from ...rules.switches import MIN_BID, Rules
from .render import render_game

NUM_SEATS = 4
HAND_SIZE = 12
NUM_TRICKS = 12
EVERYONE = 0b1111


class Phase(GamePhase):
    """Where a hand stands, and the kind of decision taken there; ``HAND_OVER`` until
    ``next_hand()`` deals again."""

    AUCTION = 0, "auction"
    TRUMP = 1, "trump"
    PASS_TO_DECLARER = 2, "passing"
    PASS_BACK = 3, "passing"
    THROW_IN = 4, "throw_in"
    PLAY = 5, "play"
    HAND_OVER = 6


class Event(IntEnum):
    """Kinds of entries in ``Game.events``; the value field's meaning is given per kind."""

    HAND_START = 0  # seat = dealer, value = running totals (team 0, team 1)
    DEAL = 1  # value = the seat's 12 card types; audience: that seat
    BID = 2  # value = bid
    PASS = 3  # value = True for a pass with help
    STUCK = 4  # dealer is declarer at 250 after three passes; value = 250
    AUCTION_END = 5  # seat = declarer, value = contract
    TRUMP = 6  # value = suit
    PASS_CARD = 7  # seat = passer, value = card; audience: passer (and receiver when sequential)
    RECEIVE = 8  # seat = receiver, value = card (simultaneous passing only); audience: receiver
    MELD = 9  # value = rules.Meld
    THROW_IN = 10  # seat = declarer, value = True when thrown in
    PLAY = 11  # value = card
    TRICK_END = 12  # seat = winner, value = trick points
    HAND_END = 13  # value = (score, totals)


# Event kinds as module constants: the hot paths read them on every decision.
_PLAY, _TRICK_END, _PASS_CARD = Event.PLAY, Event.TRICK_END, Event.PASS_CARD
_BID, _PASS, _HAND_START, _DEAL = Event.BID, Event.PASS, Event.HAND_START, Event.DEAL


def team_of(seat: int) -> int:
    """Team index of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat & 1


@dataclass
class PlayerView:
    """Everything one seat may know at one moment, and nothing else (an information set).

    Built by :meth:`Game.view` from the events addressed to the seat. Seats are absolute here;
    the observation encoder makes them relative.
    """

    seat: int
    rules: Rules
    phase: Phase
    to_act: int
    dealer: int
    hand: list[int]  # count vector of the cards the seat holds now
    auction: list[tuple[int, int | str]]  # (seat, bid / "pass" / "help")
    high_bid: int  # 0 before any bid
    high_bidder: int  # -1 before any bid
    declarer: int  # -1 until the auction ends
    contract: int  # 0 until the auction ends
    trump: int  # -1 until named
    cards_passed: list[int]  # cards this seat passed, in order
    cards_received: list[int]  # cards this seat received, in order
    meld: list[R.Meld | None]  # per seat, once melded
    tricks: list[tuple[int, list[int], int]]  # completed tricks: (leader, cards, winner)
    trick_leader: int
    trick: list[int]  # cards of the trick in progress, in play order
    trick_points: list[int]  # per team, this hand
    tricks_won: list[int]  # per team, this hand
    totals: list[int]  # running score per team before this hand's result
    thrown_in: bool | None  # None until decided
    legal_actions: list[int]  # empty unless this seat is to act

    def meld_of(self, seat: int) -> R.Meld:
        """The meld ``seat`` showed this hand (``RuntimeError`` before the meld)."""
        return R.shown_meld(self.meld, seat)


class Game(AuctionEngine):
    """A game of partnership Pinochle: hands dealt and scored until a team reaches the target.

    ``rng`` shuffles and picks the first dealer (unless ``dealer`` is given); ``deal`` presets the
    first hand's cards (4 lists of 12 card strings or card types); ``totals`` the running scores
    per team to start from.
    """

    NUM_SEATS: ClassVar[int] = NUM_SEATS
    VARIANT: ClassVar[str] = "partnership"
    WINNER: ClassVar[str] = "team"
    HELP_CALL: ClassVar[bool] = True
    HAND_SIZE: ClassVar[int] = HAND_SIZE
    NUM_TRICKS: ClassVar[int] = NUM_TRICKS
    PHASES: ClassVar[type[Phase]] = Phase

    # ------------------------------------------------------------------ hand set-up

    def _start_hand(self, dealer: int, deal: list[list[int]] | None) -> None:
        self._deal(dealer, deal)
        self.events: list[tuple[int, int, Any, int]] = [(_HAND_START, dealer, tuple(self.totals), EVERYONE)]
        self.events += [(_DEAL, s, tuple(self.deal[s]), 1 << s) for s in range(NUM_SEATS)]
        self.phase = Phase.AUCTION
        self.passed_to_declarer: list[int] = []
        self.passed_back: list[int] = []
        self.trick_points = [0, 0]
        self.tricks_won = [0, 0]
        self.score: tuple[int, int] | None = None
        self.made: bool | None = None

    # ------------------------------------------------------------------ queries

    @property
    def partner_of_declarer(self) -> int:
        return (self.declarer + 2) % NUM_SEATS

    def _legal_pass(self) -> int:
        return self.held[self.to_act] << self.layout.card0

    #: Per phase, the method listing the legal actions (read through the module alias below).
    LEGAL_BITS: ClassVar[dict[Phase, Callable[[Game], int]]] = {
        Phase.AUCTION: AuctionEngine._legal_auction,
        Phase.TRUMP: AuctionEngine._legal_trump,
        Phase.PASS_TO_DECLARER: _legal_pass,
        Phase.PASS_BACK: _legal_pass,
        Phase.THROW_IN: AuctionEngine._legal_throw_in,
        Phase.PLAY: AuctionEngine._legal_play,
        Phase.HAND_OVER: AuctionEngine._legal_none,
    }

    # ------------------------------------------------------------------ transitions

    def _on_call(self, seat: int, call: int | str) -> None:
        if isinstance(call, int):
            self.events.append((_BID, seat, call, EVERYONE))
        else:
            self.events.append((_PASS, seat, call == "help", EVERYONE))

    def _on_stuck(self) -> None:
        self.events.append((Event.STUCK, self.dealer, MIN_BID, EVERYONE))

    def _end_auction(self, declarer: int, contract: int) -> None:
        self.declarer, self.contract = declarer, contract
        self.events.append((Event.AUCTION_END, declarer, contract, EVERYONE))
        self.phase = Phase.TRUMP
        self.to_act = declarer

    def _apply_trump(self, action: int) -> None:
        self.trump = action - self.layout.trump0
        self.events.append((Event.TRUMP, self.declarer, self.trump, EVERYONE))
        if self.rules.pass_count == 0:
            self._meld()
        else:
            self.phase = Phase.PASS_TO_DECLARER
            self.to_act = self.partner_of_declarer

    def _apply_pass(self, action: int) -> None:
        card = action - self.layout.card0
        passer = self.to_act
        receiver = (passer + 2) % NUM_SEATS
        count = self.rules.pass_count
        sequential = self.rules.pass_mode == "sequential"
        self._take(passer, card)
        if sequential:
            self._give(receiver, card)
        audience = sum(1 << seat for seat in range(NUM_SEATS) if self.rules.sees_passed_card(passer, seat))
        self.events.append((_PASS_CARD, passer, card, audience))
        if self.phase == Phase.PASS_TO_DECLARER:
            self.passed_to_declarer.append(card)
            if len(self.passed_to_declarer) == count:
                self.phase = Phase.PASS_BACK
                self.to_act = self.declarer
            return
        self.passed_back.append(card)
        if len(self.passed_back) < count:
            return
        if not sequential:
            for cards, seat in ((self.passed_to_declarer, self.declarer), (self.passed_back, self.partner_of_declarer)):
                for c in cards:
                    self._give(seat, c)
                    self.events.append((Event.RECEIVE, seat, c, 1 << seat))
        self._meld()

    def _meld(self) -> None:
        for seat in range(NUM_SEATS):
            shown = R.meld(self.hands[seat], self.trump, self.rules.run_extras)
            self.melds[seat] = shown
            self.events.append((Event.MELD, seat, shown, EVERYONE))
        team_meld = self.meld_of(self.declarer).points + self.meld_of(self.partner_of_declarer).points
        self._offer_throw_in(self.contract - team_meld)

    def _on_throw_in(self, thrown: bool) -> None:
        self.events.append((Event.THROW_IN, self.declarer, thrown, EVERYONE))

    def _apply_play(self, action: int) -> None:
        """:meth:`AuctionEngine._apply_play` with the event log, inlined: the engine's hottest path."""
        card = action - self._card0
        seat = self.to_act
        counts = self.hands[seat]
        counts[card] -= 1
        if not counts[card]:
            self.held[seat] &= ~(1 << card)
        trick = self.trick
        if not trick or R.BEATEN_BY[self.trump][self._winning] >> card & 1:
            self._winning = card
        trick.append(card)
        self.events.append((_PLAY, seat, card, EVERYONE))
        if len(trick) < NUM_SEATS:
            self.to_act = (seat + 1) & 3
            return
        self._end_trick()

    def _on_trick(self, winner: int, points: int) -> None:
        self.events.append((_TRICK_END, winner, points, EVERYONE))

    def _end_hand(self) -> None:
        team_meld = [self.meld_of(0).points + self.meld_of(2).points, self.meld_of(1).points + self.meld_of(3).points]
        rules = self.rules
        declaring_team = team_of(self.declarer)
        result = R.score_hand(
            declaring_team,
            self.contract,
            team_meld,
            self.trick_points,
            self.tricks_won,
            bool(self.thrown_in),
            rules.save_meld,
            rules.save_meld_applies_to,
        )
        self.score, self.made = result.score, result.made
        self.totals = [self.totals[0] + result.score[0], self.totals[1] + result.score[1]]
        self.winner = R.game_winner(self.totals, declaring_team, rules.target)
        self.phase = Phase.HAND_OVER
        self.to_act = -1
        self.events.append((Event.HAND_END, self.declarer, (result.score, tuple(self.totals)), EVERYONE))

    #: Per phase, the method applying an action (read through the module alias below).
    APPLY: ClassVar[dict[Phase, Callable[[Game, int], None]]] = {
        Phase.AUCTION: AuctionEngine._apply_auction,
        Phase.TRUMP: _apply_trump,
        Phase.PASS_TO_DECLARER: _apply_pass,
        Phase.PASS_BACK: _apply_pass,
        Phase.THROW_IN: AuctionEngine._apply_throw_in,
        Phase.PLAY: _apply_play,
    }

    # ------------------------------------------------------------------ copies, views, records

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now, rebuilt from the events addressed to it."""
        hand = [0] * NUM_TYPES
        passed: list[int] = []
        received: list[int] = []
        bit = 1 << seat
        for kind, who, value, audience in self.events:
            if not audience & bit:
                continue
            if kind == Event.DEAL:
                hand = counts_from_cards(value)
            elif kind == Event.PASS_CARD:
                if who == seat:
                    hand[value] -= 1
                    passed.append(value)
                else:
                    hand[value] += 1
                    received.append(value)
            elif kind == Event.RECEIVE:
                hand[value] += 1
                received.append(value)
            elif kind == Event.PLAY and who == seat:
                hand[value] -= 1
        return self.view_with_private(seat, hand, passed, received)

    def view_with_private(
        self, seat: int, hand: list[int], cards_passed: list[int], cards_received: list[int]
    ) -> PlayerView:
        """``seat``'s view from its private knowledge (its hand now, the cards it passed and
        received, as given) plus everything public. :meth:`view` derives the private part from the
        events; a search bot that already holds it for a sampled deal can skip that."""
        return PlayerView(
            seat=seat,
            rules=self.rules,
            phase=self.phase,
            to_act=self.to_act,
            dealer=self.dealer,
            hand=hand,
            auction=list(self.auction),
            high_bid=self.high_bid,
            high_bidder=self.high_bidder,
            declarer=self.declarer,
            contract=self.contract,
            trump=self.trump,
            cards_passed=cards_passed,
            cards_received=cards_received,
            meld=list(self.melds),
            tricks=[(leader, list(cards), winner) for leader, cards, winner in self.tricks],
            trick_leader=self.trick_leader,
            trick=list(self.trick),
            trick_points=list(self.trick_points),
            tricks_won=list(self.tricks_won),
            totals=list(self._totals_before()),
            thrown_in=self.thrown_in,
            legal_actions=self.legal_actions() if seat == self.to_act else [],
        )

    def _totals_before(self) -> tuple[int, int]:
        return self.events[0][2]

    def record(self) -> dict[str, Any]:
        """The finished hand in the hand-record format of docs/rules.md, section 10 (plus a few extra keys)."""
        start = self._record_start()
        assert self.score is not None, "a finished hand has its score"
        return {
            **start,
            "auction": [[seat, call] for seat, call in self.auction],
            "declarer": self.declarer,
            "bid": self.contract,
            "trump": SUITS[self.trump],
            "passed_to_declarer": format_cards(self.passed_to_declarer),
            "passed_back": format_cards(self.passed_back),
            "meld": [meld.points for meld in self.shown_melds()],
            "thrown_in": self.thrown_in,
            "tricks": [
                {"leader": leader, "cards": format_cards(cards), "winner": winner}
                for leader, cards, winner in self.tricks
            ],
            "points": list(self.trick_points),
            "score": list(self.score),
            "totals": list(self.totals),
            # Extra keys (allowed by the format): what each seat showed, and the outcome.
            "melds": [[list(m) for m in meld.melds] for meld in self.shown_melds()],
            "made": self.made,
            "hand_number": self.hand_number,
            "game_winner": self.winner,
        }

    def __str__(self) -> str:
        return render_game(self)
