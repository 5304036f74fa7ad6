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

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

from . import rules as R
from .actions import ActionLayout
from .cards import (
    COPIES,
    COUNTING_VALUES,
    NUM_TYPES,
    SUITS,
    counts_from_cards,
    format_cards,
    parse_cards,
    sorted_for_display,
)
from .options import MIN_BID, Rules

NUM_SEATS = 4
HAND_SIZE = 12
NUM_TRICKS = 12
EVERYONE = 0b1111


class Phase(IntEnum):
    """Where a hand stands; ``HAND_OVER`` until ``next_hand()`` deals again."""

    AUCTION = 0
    TRUMP = 1
    PASS_TO_DECLARER = 2
    PASS_BACK = 3
    THROW_IN = 4
    PLAY = 5
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

#: The 48 cards of the deck; each deal shuffles a copy.
_DECK = np.repeat(np.arange(NUM_TYPES), COPIES)


class IllegalActionError(ValueError):
    """An action that is out of range or not legal now; the game state is left unchanged."""


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


class Game:
    """A game of partnership Pinochle: hands dealt and scored until a team reaches the target.

    ``rng`` shuffles and picks the first dealer (unless ``dealer`` is given); ``deal`` presets the
    first hand's cards (4 lists of 12 card strings or card types).
    """

    def __init__(
        self,
        rules: Rules | None = None,
        rng: np.random.Generator | None = None,
        dealer: int | None = None,
        deal: list[list[Any]] | None = None,
        totals: tuple[int, int] = (0, 0),
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        if self.rules.variant != "partnership":
            variant = self.rules.variant
            raise ValueError(f"Game plays the partnership game; use pinochle_env.new_game for variant={variant!r}")
        self.layout = _action_layout(self.rules.max_bid)
        self._card0 = self.layout.card0
        self.rng = rng if rng is not None else np.random.default_rng()
        self._values = COUNTING_VALUES[self.rules.counting]
        self.totals = list(totals)
        self.hand_number = 0
        self.winner: int | None = None
        if dealer is None:
            dealer = int(self.rng.integers(NUM_SEATS))
        elif dealer not in range(NUM_SEATS):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self._start_hand(dealer, _validated_deal(deal) if deal is not None else None)

    # ------------------------------------------------------------------ hand set-up

    def _start_hand(self, dealer: int, deal: list[list[int]] | None) -> None:
        self.dealer = dealer
        if deal is None:
            deck = _DECK.copy()
            self.rng.shuffle(deck)
            cards = deck.tolist()
            deal = [sorted(cards[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(NUM_SEATS)]
        self.deal = deal
        self.hands = [counts_from_cards(cards) for cards in deal]
        self.held = [R.held_bits(counts) for counts in self.hands]
        self.events: list[tuple[int, int, Any, int]] = [(_HAND_START, dealer, tuple(self.totals), EVERYONE)]
        self.events += [(_DEAL, s, tuple(deal[s]), 1 << s) for s in range(NUM_SEATS)]
        self.phase = Phase.AUCTION
        self.to_act = (dealer + 1) % NUM_SEATS
        self.auction: list[tuple[int, int | str]] = []
        self.high_bid = 0
        self.high_bidder = -1
        self.passed = [False] * NUM_SEATS
        self.declarer = -1
        self.contract = 0
        self.trump = -1
        self.passed_to_declarer: list[int] = []
        self.passed_back: list[int] = []
        self.melds: list[R.Meld | None] = [None] * NUM_SEATS
        self.thrown_in: bool | None = None
        self.tricks: list[tuple[int, list[int], int]] = []
        self.trick: list[int] = []
        self._winning: int | None = None  # the card winning the trick in progress (kept as cards are played)
        self.trick_leader = -1
        self.trick_points = [0, 0]
        self.tricks_won = [0, 0]
        self.score: tuple[int, int] | None = None
        self.made: bool | None = None

    def next_hand(self) -> None:
        """Deal the next hand of the game; the dealer rotates clockwise."""
        if self.phase != Phase.HAND_OVER:
            raise RuntimeError("next_hand() called before the hand is over")
        if self.winner is not None:
            raise RuntimeError(f"the game is over: team {self.winner} won")
        self.hand_number += 1
        self._start_hand((self.dealer + 1) % NUM_SEATS, None)

    # ------------------------------------------------------------------ queries

    @property
    def hand_over(self) -> bool:
        return self.phase == Phase.HAND_OVER

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    @property
    def partner_of_declarer(self) -> int:
        return (self.declarer + 2) % NUM_SEATS

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat ``to_act``, ascending (empty when the hand is over)."""
        bits = self.legal_bits()
        actions = []
        while bits:  # one pass per legal action, lowest first
            lowest = bits & -bits
            actions.append(lowest.bit_length() - 1)
            bits ^= lowest
        return actions

    def legal_bits(self) -> int:
        """The legal actions as a bit mask (bit ``a`` set when action ``a`` is legal): the fast path."""
        return _LEGAL[self.phase](self)

    def _legal_auction(self) -> int:
        layout = self.layout
        first = layout.bid_action(max(self.high_bid, MIN_BID - 10) + 10)
        last = layout.num_bids - 1
        if self.rules.bid_raises == "seed":
            last = min(first + 1, last)
        bits = ((1 << (last - first + 1)) - 1) << first if first <= last else 0
        bits |= 1 << layout.passing
        if self.rules.pass_with_help:
            bits |= 1 << layout.help
        return bits

    def _legal_trump(self) -> int:
        return 0b1111 << self.layout.trump0

    def _legal_pass(self) -> int:
        return self.held[self.to_act] << self.layout.card0

    def _legal_throw_in(self) -> int:
        return 0b11 << self.layout.throw_in

    def _legal_play(self) -> int:
        rules = self.rules
        held, trick = self.held[self.to_act], self.trick
        bits = R.legal_card_bits(held, trick, self.trump, rules.head_rule, rules.must_overtrump, self._winning)
        return bits << self._card0

    def _legal_none(self) -> int:
        return 0

    #: Per phase, the method listing the legal actions (read through the module alias below).
    _LEGAL: ClassVar[dict[Phase, Callable[[Game], int]]] = {
        Phase.AUCTION: _legal_auction,
        Phase.TRUMP: _legal_trump,
        Phase.PASS_TO_DECLARER: _legal_pass,
        Phase.PASS_BACK: _legal_pass,
        Phase.THROW_IN: _legal_throw_in,
        Phase.PLAY: _legal_play,
        Phase.HAND_OVER: _legal_none,
    }

    def _take(self, seat: int, card: int) -> None:
        """Remove one ``card`` from ``seat``'s hand (counts and held bits)."""
        counts = self.hands[seat]
        counts[card] -= 1
        if not counts[card]:
            self.held[seat] &= ~(1 << card)

    def _give(self, seat: int, card: int) -> None:
        """Add one ``card`` to ``seat``'s hand (counts and held bits)."""
        self.hands[seat][card] += 1
        self.held[seat] |= 1 << card

    # ------------------------------------------------------------------ transitions

    def apply(self, action: int) -> None:
        """Apply the action of the seat ``to_act``; ``IllegalActionError`` if it is not legal."""
        bits = self.legal_bits()
        is_integer = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
        if not is_integer or action < 0 or not bits >> int(action) & 1:
            raise IllegalActionError(self._illegal_message(action, self.legal_actions()))
        _APPLY[self.phase](self, int(action))

    def apply_unchecked(self, action: int) -> None:
        """``apply`` for an action already known to be legal (the batched fast path)."""
        _APPLY[self.phase](self, action)

    def _illegal_message(self, action: Any, legal: list[int]) -> str:
        try:
            name = f"{action} ({self.layout.to_string(int(action))})"
        except (TypeError, ValueError):
            name = f"{action!r} (out of range 0..{self.layout.size - 1})"
        if self.phase == Phase.HAND_OVER:
            return f"action {name} is not legal: the hand is over"
        legal_names = ", ".join(self.layout.to_string(a) for a in legal)
        return (
            f"action {name} is not legal for player {self.to_act} in phase {self.phase.name.lower()}; "
            f"legal actions: {legal_names}"
        )

    def _apply_auction(self, action: int) -> None:
        seat = self.to_act
        layout = self.layout
        if action < layout.num_bids:
            bid = layout.bid_value(action)
            self.high_bid, self.high_bidder = bid, seat
            self.auction.append((seat, bid))
            self.events.append((_BID, seat, bid, EVERYONE))
        else:
            helped = action == layout.help
            self.passed[seat] = True
            self.auction.append((seat, "help" if helped else "pass"))
            self.events.append((_PASS, seat, helped, EVERYONE))
        passed = self.passed
        alone = passed.index(False) if passed.count(False) == 1 else -1  # the one seat still in, if so
        if self.high_bidder >= 0 and alone == self.high_bidder:
            self._end_auction(self.high_bidder, self.high_bid)
        elif self.high_bidder < 0 and alone == self.dealer:
            if self.rules.all_pass == "redeal":
                self._start_hand(self.dealer, None)
            else:
                self.events.append((Event.STUCK, self.dealer, MIN_BID, EVERYONE))
                self._end_auction(self.dealer, MIN_BID)
        else:
            nxt = (seat + 1) % NUM_SEATS
            while passed[nxt]:
                nxt = (nxt + 1) % NUM_SEATS
            self.to_act = nxt

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
        audience = (1 << passer) | (1 << receiver) if sequential else 1 << passer
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
        team_meld = self.melds[self.declarer].points + self.melds[self.partner_of_declarer].points
        short = self.contract - team_meld
        mode = self.rules.throw_in
        if mode == "always" or (mode == "seed" and short == 250):
            self.phase = Phase.THROW_IN
            self.to_act = self.declarer
        elif mode == "seed" and short > 250:
            self._decide_throw_in(True)
        else:
            self._decide_throw_in(False)

    def _apply_throw_in(self, action: int) -> None:
        self._decide_throw_in(action == self.layout.throw_in)

    def _decide_throw_in(self, thrown: bool) -> None:
        self.thrown_in = thrown
        self.events.append((Event.THROW_IN, self.declarer, thrown, EVERYONE))
        if thrown:
            self._end_hand()
        else:
            self.phase = Phase.PLAY
            self.to_act = self.trick_leader = self.declarer

    def _apply_play(self, action: int) -> None:
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
        self._end_trick(trick)

    def _end_trick(self, trick: list[int]) -> None:
        """Score the full ``trick``; its winner leads the next one (or the hand ends after the 12th)."""
        # Of two identical cards the first played wins, and ``index`` finds the first.
        winner = (self.trick_leader + trick.index(self._winning)) % NUM_SEATS
        last = len(self.tricks) == NUM_TRICKS - 1
        points = R.trick_points(trick, self._values, last)
        self.trick_points[winner & 1] += points
        self.tricks_won[winner & 1] += 1
        self.tricks.append((self.trick_leader, trick, winner))
        self.events.append((_TRICK_END, winner, points, EVERYONE))
        self.trick = []
        self.to_act = self.trick_leader = winner
        if last:
            self._end_hand()

    def _end_hand(self) -> None:
        team_meld = [self.melds[0].points + self.melds[2].points, self.melds[1].points + self.melds[3].points]
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
        self.winner = R.game_winner(self.totals, declaring_team, rules.target_score)
        self.phase = Phase.HAND_OVER
        self.to_act = -1
        self.events.append((Event.HAND_END, self.declarer, (result.score, tuple(self.totals)), EVERYONE))

    #: Per phase, the method applying an action (read through the module alias below).
    _APPLY: ClassVar[dict[Phase, Callable[[Game, int], None]]] = {
        Phase.AUCTION: _apply_auction,
        Phase.TRUMP: _apply_trump,
        Phase.PASS_TO_DECLARER: _apply_pass,
        Phase.PASS_BACK: _apply_pass,
        Phase.THROW_IN: _apply_throw_in,
        Phase.PLAY: _apply_play,
    }

    # ------------------------------------------------------------------ copies, views, records

    def clone(self) -> Game:
        """An independent copy (its own generator state too): changing one never touches the other."""
        return copy.deepcopy(self)

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
        """The finished hand in the RULES.md section 8 hand-record format (plus a few extra keys)."""
        if self.phase != Phase.HAND_OVER:
            raise RuntimeError("record() needs a finished hand")
        return {
            "variant": self.rules.variant,
            "options": self.rules.to_dict(),
            "dealer": self.dealer,
            "deal": [format_cards(sorted_for_display(cards)) for cards in self.deal],
            "auction": [[seat, call] for seat, call in self.auction],
            "declarer": self.declarer,
            "bid": self.contract,
            "trump": SUITS[self.trump],
            "passed_to_declarer": format_cards(self.passed_to_declarer),
            "passed_back": format_cards(self.passed_back),
            "meld": [m.points for m in self.melds],
            "thrown_in": self.thrown_in,
            "tricks": [
                {"leader": leader, "cards": format_cards(cards), "winner": winner}
                for leader, cards, winner in self.tricks
            ],
            "points": list(self.trick_points),
            "score": list(self.score),
            "totals": list(self.totals),
            # Extra keys (allowed by the format): what each seat showed, and the outcome.
            "melds": [[list(m) for m in meld.melds] for meld in self.melds],
            "made": self.made,
            "hand_number": self.hand_number,
            "game_winner": self.winner,
        }

    def __str__(self) -> str:
        from .render import render_game

        return render_game(self)


# The dispatch tables as module globals: the hot paths read these faster than class attributes.
_LEGAL, _APPLY = Game._LEGAL, Game._APPLY


@functools.cache
def _action_layout(max_bid: int) -> ActionLayout:
    """The action layout of a bid cap, built once and shared by every game (it never changes)."""
    return ActionLayout(max_bid)


def _validated_deal(deal: list[list[Any]]) -> list[list[int]]:
    """Card types of a preset deal, refusing anything that is not 4 x 12 cards of a Pinochle deck."""
    if len(deal) != NUM_SEATS:
        raise ValueError(f"a deal needs {NUM_SEATS} hands, got {len(deal)}")
    hands = [sorted(parse_cards(h) if h and isinstance(h[0], str) else [int(c) for c in h]) for h in deal]
    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise ValueError(f"hand of seat {seat} has {len(hand)} cards; each hand needs {HAND_SIZE}")
        if any(not 0 <= c < NUM_TYPES for c in hand):
            raise ValueError(f"hand of seat {seat} holds a card type outside 0..{NUM_TYPES - 1}")
    counts = counts_from_cards(c for hand in hands for c in hand)
    wrong = [c for c in range(NUM_TYPES) if counts[c] != COPIES]
    if wrong:
        names = ", ".join(f"{format_cards([c])[0]} x{counts[c]}" for c in wrong)
        raise ValueError(f"a deal must hold each card exactly twice; wrong counts: {names}")
    return hands
