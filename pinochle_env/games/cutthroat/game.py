"""Three-handed cutthroat auction Pinochle (``variant="cutthroat"``) as an explicit state machine.

Each player plays for itself: 15 cards each and a 3-card widow; the auction winner (declarer) shows
the widow, takes it, names trump, buries 3 cards and plays 15 tricks of 3 cards against the two
others. ``docs/cutthroat.md`` is the rule book; the pure rule functions (meld, trick legality,
partnership scoring) come from :mod:`pinochle_env.rules`, and the action ids are the partnership
game's (:class:`pinochle_env.actions.ActionLayout`), so both variants share one action space.

:class:`CutthroatGame` duck-types :class:`pinochle_env.game.Game`; chance comes only from the
``numpy.random.Generator`` passed in. :meth:`CutthroatGame.view` builds a seat's information set
directly from the state, leaving out what the seat may not see (the other hands, the widow until
it is shown, the buried cards unless the seat is the declarer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ... import rules as R
from ...cards import COPIES, NUM_TYPES, SUITS, counts_from_cards, format_cards, sorted_for_display
from ...engine import AuctionEngine
from ...protocol import GamePhase
from ...rules.switches import Rules
from .render import render_game

NUM_SEATS = 3
HAND_SIZE = 15
BURY_COUNT = 3
NUM_TRICKS = 15


class Phase(GamePhase):
    """Where a hand stands, and the kind of decision taken there (burying counts as passing);
    ``HAND_OVER`` until ``next_hand()`` deals again."""

    AUCTION = 0, "auction"
    TRUMP = 1, "trump"
    BURY = 2, "passing"
    THROW_IN = 3, "throw_in"
    PLAY = 4, "play"
    HAND_OVER = 5


class HandScore(NamedTuple):
    """A hand's result per seat: ``score`` is this hand's change, ``made`` says if the declarer made it."""

    score: tuple[int, int, int]
    made: bool


def opponents(declarer: int) -> tuple[int, int]:
    """The two seats playing against ``declarer``, clockwise from its left."""
    return (declarer + 1) % NUM_SEATS, (declarer + 2) % NUM_SEATS


def score_hand(
    declarer: int,
    bid: int,
    meld: list[int] | tuple[int, ...],
    points: list[int] | tuple[int, ...],
    tricks: list[int] | tuple[int, ...],
    thrown_in: bool,
    save_meld: str = "points",
    save_meld_applies_to: str = "defenders",
) -> HandScore:
    """Score one hand per seat: the declarer against each opponent as a one-player team.

    :func:`pinochle_env.rules.score_hand` scores a declaring side against one defending side; the
    declarer's result there never depends on the defenders, so scoring it once per opponent gives
    the declarer's score (the same each time) and each opponent's own (save meld applied per player).
    """
    score = [0] * NUM_SEATS
    made = False
    for other in opponents(declarer):
        pair = R.score_hand(
            0,
            bid,
            (meld[declarer], meld[other]),
            (points[declarer], points[other]),
            (tricks[declarer], tricks[other]),
            thrown_in,
            save_meld,
            save_meld_applies_to,
        )
        (score[declarer], score[other]), made = pair.score, pair.made
    return HandScore((score[0], score[1], score[2]), made)


def game_winner(totals: list[int] | tuple[int, ...], declarer: int, target: int) -> int | None:
    """The seat that has won after a hand, or None (nobody reached ``target``, or an exact tie).

    Of the seats at or over the target, the declarer wins if it is one of them, else the higher
    total; two opponents with the same highest total play another hand.
    """
    over = [seat for seat in range(NUM_SEATS) if totals[seat] >= target]
    if not over:
        return None
    if declarer in over:
        return declarer
    best = max(totals[seat] for seat in over)
    leaders = [seat for seat in over if totals[seat] == best]
    return leaders[0] if len(leaders) == 1 else None


@dataclass
class CutthroatView:
    """Everything one seat may know at one moment, and nothing else (an information set).

    Seats are absolute here; the observation encoder makes them relative (me, left, right).
    """

    seat: int
    rules: Rules
    phase: Phase
    to_act: int
    dealer: int
    hand: list[int]  # count vector of the cards the seat holds now
    auction: list[tuple[int, int | str]]  # (seat, bid / "pass")
    high_bid: int  # 0 before any bid
    high_bidder: int  # -1 before any bid
    stuck: bool  # the dealer is declarer at 250 after two passes
    declarer: int  # -1 until the auction ends
    contract: int  # 0 until the auction ends
    widow: list[int]  # the widow's cards once shown (at the end of the auction), else empty
    trump: int  # -1 until named
    buried: list[int]  # cards buried, in order: the declarer's own view only, else empty
    meld: list[R.Meld | None]  # per seat, once melded
    thrown_in: bool | None  # None until decided
    tricks: list[tuple[int, list[int], int]]  # completed tricks: (leader, cards, winner)
    trick_leader: int  # -1 until play starts
    trick: list[int]  # cards of the trick in progress, in play order
    trick_points: list[int]  # per seat, points taken in tricks this hand (buried cards not included)
    tricks_won: list[int]  # per seat, this hand
    totals: list[int]  # running score per seat (after this hand's result once it is over)
    score: list[int] | None  # this hand's change per seat once the hand is over
    legal_actions: list[int]  # empty unless this seat is to act

    def meld_of(self, seat: int) -> R.Meld:
        """The meld ``seat`` showed this hand (``RuntimeError`` before the meld)."""
        return R.shown_meld(self.meld, seat)


class CutthroatGame(AuctionEngine):
    """A game of cutthroat Pinochle: hands dealt and scored until a player reaches the target.

    ``rng`` shuffles and picks the first dealer (unless ``dealer`` is given); ``deal`` presets the
    first hand's cards: 3 lists of 15 card strings or card types, the widow being the 3 cards of
    the deck they leave out. ``totals`` are the running scores per seat to start from.
    """

    NUM_SEATS: ClassVar[int] = NUM_SEATS
    VARIANT: ClassVar[str] = "cutthroat"
    HAND_SIZE: ClassVar[int] = HAND_SIZE
    NUM_TRICKS: ClassVar[int] = NUM_TRICKS
    PHASES: ClassVar[type[Phase]] = Phase

    # ------------------------------------------------------------------ hand set-up

    def _start_hand(self, dealer: int, deal: list[list[int]] | None) -> None:
        """Deal (or take the preset ``deal``) and open the auction left of ``dealer``."""
        self._deal(dealer, deal)
        self.widow = _widow_of(self.deal)
        self.phase = Phase.AUCTION
        self.stuck = False
        self.widow_shown = False
        self.buried: list[int] = []
        self.trick_points = [0] * NUM_SEATS
        self.tricks_won = [0] * NUM_SEATS
        self.points: list[int] | None = None  # per seat at the end: trick points, buried counters to the declarer
        self.buried_points = 0
        self.score: list[int] | None = None
        self.made: bool | None = None

    # ------------------------------------------------------------------ legality

    def _legal_bury(self) -> int:
        """Copies beyond those the declarer's meld shows; once there are none, any card it holds."""
        counts, shown = self.hands[self.declarer], self.meld_of(self.declarer).shown
        free = sum(1 << t for t in range(NUM_TYPES) if counts[t] > shown[t])
        return (free or self.held[self.declarer]) << self.layout.card0

    #: Per phase, the method listing the legal actions.
    LEGAL_BITS: ClassVar[dict[Phase, Callable[[CutthroatGame], int]]] = {
        Phase.AUCTION: AuctionEngine._legal_auction,
        Phase.TRUMP: AuctionEngine._legal_trump,
        Phase.BURY: _legal_bury,
        Phase.THROW_IN: AuctionEngine._legal_throw_in,
        Phase.PLAY: AuctionEngine._legal_play,
        Phase.HAND_OVER: AuctionEngine._legal_none,
    }

    # ------------------------------------------------------------------ transitions

    def _on_stuck(self) -> None:
        self.stuck = True

    def _end_auction(self, declarer: int, contract: int) -> None:
        """The declarer shows the widow to everyone and takes it (18 cards), then names trump."""
        self.declarer, self.contract = declarer, contract
        self.widow_shown = True
        for card in self.widow:
            self._give(declarer, card)
        self.phase = Phase.TRUMP
        self.to_act = declarer

    def _apply_trump(self, action: int) -> None:
        """Trump named: every seat's meld is scored and shown, then the declarer buries."""
        self.trump = action - self.layout.trump0
        self.melds = [R.meld(self.hands[seat], self.trump, self.rules.run_extras) for seat in range(NUM_SEATS)]
        self.phase = Phase.BURY

    def _apply_bury(self, action: int) -> None:
        card = action - self.layout.card0
        self._take(self.declarer, card)
        self.buried.append(card)
        if len(self.buried) < BURY_COUNT:
            return
        self._offer_throw_in(self.contract - self.meld_of(self.declarer).points)

    def _end_hand(self) -> None:
        """Score the hand (buried counters count for the declarer in a played hand) and check the game end."""
        rules = self.rules
        points = list(self.trick_points)
        if not self.thrown_in:
            self.buried_points = R.trick_points(self.buried, self._values, False)
            points[self.declarer] += self.buried_points
        self.points = points
        result = score_hand(
            self.declarer,
            self.contract,
            [meld.points for meld in self.shown_melds()],
            points,
            self.tricks_won,
            bool(self.thrown_in),
            rules.save_meld,
            rules.save_meld_applies_to,
        )
        self.score, self.made = list(result.score), result.made
        self.totals = [total + change for total, change in zip(self.totals, self.score, strict=True)]
        self.winner = game_winner(self.totals, self.declarer, rules.target)
        self.phase = Phase.HAND_OVER
        self.to_act = -1

    #: Per phase, the method applying an action.
    APPLY: ClassVar[dict[Phase, Callable[[CutthroatGame, int], None]]] = {
        Phase.AUCTION: AuctionEngine._apply_auction,
        Phase.TRUMP: _apply_trump,
        Phase.BURY: _apply_bury,
        Phase.THROW_IN: AuctionEngine._apply_throw_in,
        Phase.PLAY: AuctionEngine._apply_play,
    }

    # ------------------------------------------------------------------ copies, views, records

    def view(self, seat: int) -> CutthroatView:
        """What ``seat`` may know now: its own hand and buried cards, and everything public."""
        return CutthroatView(
            seat=seat,
            rules=self.rules,
            phase=self.phase,
            to_act=self.to_act,
            dealer=self.dealer,
            hand=list(self.hands[seat]),
            auction=list(self.auction),
            high_bid=self.high_bid,
            high_bidder=self.high_bidder,
            stuck=self.stuck,
            declarer=self.declarer,
            contract=self.contract,
            widow=list(self.widow) if self.widow_shown else [],
            trump=self.trump,
            buried=list(self.buried) if seat == self.declarer else [],
            meld=list(self.melds),
            thrown_in=self.thrown_in,
            tricks=[(leader, list(cards), winner) for leader, cards, winner in self.tricks],
            trick_leader=self.trick_leader,
            trick=list(self.trick),
            trick_points=list(self.trick_points),
            tricks_won=list(self.tricks_won),
            totals=list(self.totals),
            score=list(self.score) if self.score is not None else None,
            legal_actions=self.legal_actions() if seat == self.to_act else [],
        )

    def record(self) -> dict[str, Any]:
        """The finished hand as a hand record (``docs/cutthroat.md``, "Hand record")."""
        start = self._record_start()
        assert self.score is not None and self.points is not None, "a finished hand has its score"
        return {
            **start,
            "widow": format_cards(sorted_for_display(self.widow)),
            "auction": [[seat, call] for seat, call in self.auction],
            "declarer": self.declarer,
            "bid": self.contract,
            "trump": SUITS[self.trump],
            "buried": format_cards(self.buried),
            "meld": [meld.points for meld in self.shown_melds()],
            "melds": [[list(m) for m in meld.melds] for meld in self.shown_melds()],
            "thrown_in": self.thrown_in,
            "tricks": [
                {"leader": leader, "cards": format_cards(cards), "winner": winner}
                for leader, cards, winner in self.tricks
            ],
            "points": list(self.points),
            "buried_points": self.buried_points,
            "score": list(self.score),
            "totals": list(self.totals),
            "made": self.made,
            "hand_number": self.hand_number,
            "game_winner": self.winner,
        }

    def __str__(self) -> str:
        return render_game(self)


def _widow_of(deal: list[list[int]]) -> list[int]:
    """The cards of the deck that the three hands of ``deal`` leave out, sorted."""
    counts = counts_from_cards(c for hand in deal for c in hand)
    return [c for c in range(NUM_TYPES) for _ in range(COPIES - counts[c])]
