"""What the engines of the three games share.

:class:`Engine` is the state-machine machinery of every variant: legality as a bit mask from one
method per phase (``LEGAL_BITS``), a checked ``apply`` that dispatches to one method per phase
(``APPLY``), readable refusals, the common constructor checks, the next hand and copies.
:class:`AuctionEngine` adds what the two auction games (partnership and cutthroat) share: the
auction itself, the trump, throw-in and card-play legality, and the hand bookkeeping of counts and
held bits. Each game's module keeps only its own rules.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from . import rules as R
from .actions import integer_action, layout_for
from .cards import (
    COPIES,
    COUNTING_VALUES,
    NUM_TYPES,
    card_from_str,
    card_to_str,
    counts_from_cards,
    format_cards,
    sorted_for_display,
)
from .rules.switches import MIN_BID, Rules

#: The 48 cards of the deck; each deal shuffles a copy.
DECK = np.repeat(np.arange(NUM_TYPES), COPIES)


def shuffled_deck(rng: np.random.Generator) -> list[int]:
    """The 48 cards in a random order drawn from ``rng``."""
    deck = DECK.copy()
    rng.shuffle(deck)
    return deck.tolist()


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy integer, a bool not counted (``True`` is a bug, not 1)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def checked_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as numpy's generators take it: None (fresh entropy) or a whole number >= 0;
    ``ValueError`` naming ``what`` otherwise (numpy's own errors name neither, and ``int()`` would
    quietly cut 1.9 to 1)."""
    if seed is not None and (not is_integer(seed) or seed < 0):
        raise ValueError(f"{what} must be None or a whole number >= 0, got {seed!r}")
    return None if seed is None else int(seed)


def checked_rules(rules: Any) -> Rules | None:
    """``rules`` as an engine takes them, a :class:`Rules` or None; ``TypeError`` naming it otherwise
    (a variant's name or a dict of switches failed later on a missing attribute, or unhashable)."""
    if rules is not None and not isinstance(rules, Rules):
        raise TypeError(
            f"rules must be a Rules, such as Rules(variant='cutthroat') or Rules.from_mapping(switches), or None; "
            f"got {type(rules).__name__}: {rules!r:.60}"
        )
    return rules


def is_engine(value: Any) -> bool:
    """Whether ``value`` is a game engine rather than a seat's view of one: an engine shows each
    seat its view (``view(seat)``), a view has no such method (the check that tells apart what
    callers mix up: ``decide`` takes a game, ``sample_deals`` a view)."""
    return callable(getattr(value, "view", None))


def card_types(cards: Any) -> list[int]:
    """Card types of cards given as card strings (``"TS"``) or integers, in the order given
    (``ValueError`` for anything else: ``1.5`` is no card)."""
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence | np.ndarray):
        raise ValueError(f"a hand is a list of cards (card strings such as 'TS', or card types), got {cards!r:.60}")
    types = []
    for card in cards:
        if not (isinstance(card, str) or is_integer(card)):
            raise ValueError(f"a card is a card string such as 'TS' or a card type, got {card!r:.60}")
        types.append(card_from_str(card) if isinstance(card, str) else int(card))
    return types


def parse_hands(hands: Any, num_hands: int, hand_size: int) -> list[list[int]]:
    """Card types (sorted) of preset hands given as card strings or integers, refusing a wrong
    number of hands or cards or a card type outside the deck."""
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence | np.ndarray):
        raise ValueError(f"a deal is a list of {num_hands} hands (lists of cards), got {hands!r:.60}")
    if len(hands) != num_hands:
        raise ValueError(f"a deal needs {num_hands} hands, got {len(hands)}")
    parsed = [sorted(card_types(hand)) for hand in hands]
    for seat, hand in enumerate(parsed):
        if len(hand) != hand_size:
            raise ValueError(f"hand of seat {seat} has {len(hand)} cards; each hand needs {hand_size}")
        if any(not 0 <= c < NUM_TYPES for c in hand):
            raise ValueError(f"hand of seat {seat} holds a card type outside 0..{NUM_TYPES - 1}")
    return parsed


def check_copies(cards: list[int], whole_deck: bool) -> None:
    """Refuse ``cards`` that are not the whole deck (each type exactly twice) or, when part of the
    deck is left out (``whole_deck=False``), that hold a type more than twice."""
    if any(not 0 <= c < NUM_TYPES for c in cards):
        raise ValueError(f"a deal holds a card type outside 0..{NUM_TYPES - 1}")
    counts = counts_from_cards(cards)
    wrong = [c for c in range(NUM_TYPES) if (counts[c] != COPIES if whole_deck else counts[c] > COPIES)]
    if wrong:
        names = ", ".join(f"{card_to_str(c)} x{counts[c]}" for c in wrong)
        rule = "exactly twice; wrong counts" if whole_deck else "at most twice; too many"
        raise ValueError(f"a deal must hold each card {rule}: {names}")


class IllegalActionError(ValueError):
    """An action that is out of range or not legal now; the game state is left unchanged."""


class ActionTypeError(IllegalActionError, TypeError):
    """An action that is not an integer at all (a float, a bool, a string, a list, a 1-element
    array...): an :class:`IllegalActionError` that is also a ``TypeError``. The environments raise
    it in every ``illegal_action`` mode: it is a bug of the caller, not a move to penalise."""


def action_id(action: Any) -> int:
    """``action`` as a Python int: what ``gymnasium.spaces.Discrete.contains`` takes as an integer (a
    Python or numpy integer, or a 0-d integer array such as Stable-Baselines3's ``predict``
    returns), whether in range or not. Booleans are refused although ``Discrete.contains`` takes
    ``True`` (a Python bool is an int): an action ``True`` is a bug, not the action id 1.
    Anything else raises :class:`ActionTypeError` naming its type."""
    checked = integer_action(action)
    if checked is not None:
        return checked
    raise ActionTypeError(
        f"an action must be an integer (a Python or numpy integer, or a 0-d integer array), got {_type_name(action)}"
    )


def _type_name(value: Any) -> str:
    """The type of ``value`` and the value, for a refusal (``float: 2.0``, ``numpy.float32:
    np.float32(2.0)``, ``numpy array of shape (1,) and dtype int64: array([2])``)."""
    if isinstance(value, np.ndarray):
        kind = f"numpy array of shape {value.shape} and dtype {value.dtype}"
    else:
        module = type(value).__module__
        kind = type(value).__qualname__ if module == "builtins" else f"{module}.{type(value).__qualname__}"
    text = repr(value)
    return f"{kind}: {text[:60] + '...' if len(text) > 60 else text}"


class Engine:
    """Machinery shared by every variant's engine (see the module docstring).

    A subclass sets ``NUM_SEATS``, ``VARIANT``, ``LEGAL_BITS`` and ``APPLY`` (per phase: public, so
    that a caller that checked legality already, the batched API, can call them directly), keeps
    ``phase``, ``to_act`` (-1 once the hand is over), ``dealer``, ``layout`` and ``winner``, and
    implements ``_start_hand(dealer, deal)``.
    """

    NUM_SEATS: ClassVar[int]
    VARIANT: ClassVar[str]
    #: What ``winner`` and the running totals are indexed by: a team, or a player where every
    #: player is its own team.
    WINNER: ClassVar[str] = "player"
    LEGAL_BITS: ClassVar[dict[Any, Callable[[Any], int]]]
    APPLY: ClassVar[dict[Any, Callable[[Any, int], None]]]
    # The state every engine keeps (set by ``_start_hand``).
    phase: Any  # the game's phase enum member
    to_act: int
    dealer: int
    layout: Any  # the game's action layout
    deal: Any  # the hands as dealt

    def _begin(self, rules: Rules | None, rng: np.random.Generator | None, dealer: int | None, totals: Any) -> int:
        """The constructor's common part: the rules (refusing another variant's), the generator,
        the running totals (one per team) and the first dealer (drawn from ``rng`` unless given)."""
        self.rules = checked_rules(rules) or Rules(variant=self.VARIANT)
        if self.rules.variant != self.VARIANT:
            raise ValueError(
                f"{type(self).__name__} plays variant={self.VARIANT!r}, not {self.rules.variant!r}; "
                "use pinochle_env.new_game(rules) for any variant"
            )
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"rng must be a numpy Generator, such as np.random.default_rng(seed), or None; "
                f"got {type(rng).__name__}: {rng!r:.60}"
            )
        self.rng = rng if rng is not None else np.random.default_rng()
        teams = max(self.rules.teams) + 1
        self.totals = [0] * teams if totals is None else [int(t) for t in totals]
        if len(self.totals) != teams:
            raise ValueError(f"totals needs one running score per {self.WINNER} ({teams}), got {len(self.totals)}")
        self.hand_number = 0
        self.winner: int | None = None
        if dealer is None:
            return self.random_dealer(self.rng)
        if not is_integer(dealer) or dealer not in range(self.NUM_SEATS):
            raise ValueError(f"dealer must be a seat 0..{self.NUM_SEATS - 1}, got {dealer!r}")
        return int(dealer)

    @classmethod
    def random_dealer(cls, rng: np.random.Generator) -> int:
        """A first dealer drawn from ``rng``: a new game's first draw when no dealer is given."""
        return int(rng.integers(cls.NUM_SEATS))

    def _start_hand(self, dealer: int, deal: Any) -> None:
        raise NotImplementedError

    def next_hand(self) -> None:
        """Deal the next hand of the game; the dealer rotates clockwise."""
        if not self.hand_over:
            raise RuntimeError("next_hand() called before the hand is over")
        if self.winner is not None:
            raise RuntimeError(f"the game is over: {self.WINNER} {self.winner} won")
        self.hand_number += 1
        self._start_hand((self.dealer + 1) % self.NUM_SEATS, None)

    @property
    def hand_over(self) -> bool:
        return self.to_act < 0

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    def legal_bits(self) -> int:
        """The legal actions as a bit mask (bit ``a`` set when action ``a`` is legal): the fast path."""
        return self.LEGAL_BITS[self.phase](self)

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat ``to_act``, ascending (empty when the hand is over)."""
        bits = self.legal_bits()
        actions = []
        while bits:  # one pass per legal action, lowest first
            lowest = bits & -bits
            actions.append(lowest.bit_length() - 1)
            bits ^= lowest
        return actions

    def apply(self, action: int) -> None:
        """Apply the action of the seat ``to_act``; ``IllegalActionError`` if it is not legal, and
        :class:`ActionTypeError` if it is not an integer (:func:`action_id` says what is one)."""
        if type(action) is not int:
            action = action_id(action)
        if action < 0 or not self.legal_bits() >> action & 1:
            raise IllegalActionError(self.illegal_message(action))
        self.APPLY[self.phase](self, action)

    def illegal_message(self, action: Any) -> str:
        """Why ``action`` is refused, naming the legal ones (the batched API asks for it too)."""
        try:
            name = f"{action} ({self.layout.to_string(int(action))})"
        except (TypeError, ValueError):
            name = f"{action!r} (out of range 0..{self.layout.size - 1})"
        if self.hand_over:
            return f"action {name} is not legal: the hand is over"
        legal_names = ", ".join(self.layout.to_string(a) for a in self.legal_actions())
        return (
            f"action {name} is not legal for player {self.to_act} in phase {self.phase.name.lower()}; "
            f"legal actions: {legal_names}"
        )

    def _legal_none(self) -> int:
        return 0

    def _record_start(self) -> dict[str, Any]:
        """The keys every game's hand record starts with (``RuntimeError`` before the hand is over)."""
        if not self.hand_over:
            raise RuntimeError("record() needs a finished hand")
        return {
            "variant": self.rules.variant,
            "options": self.rules.to_dict(),
            "dealer": self.dealer,
            "deal": [format_cards(sorted_for_display(cards)) for cards in self.deal],
        }

    def clone(self) -> Any:
        """An independent copy (its own generator state too): changing one never touches the other."""
        return copy.deepcopy(self)


class AuctionEngine(Engine):
    """An :class:`Engine` for the auction games: auction, trump, throw-in and trick legality.

    A subclass sets ``HAND_SIZE``, calls :meth:`_deal` at the start of each hand (the hands as
    counts and held bits, the auction, trump, meld and trick state) and implements
    ``_end_auction(declarer, contract)`` and ``_end_hand()``; ``PHASES`` is its phase
    enum (with ``THROW_IN`` and ``PLAY``), ``NUM_TRICKS`` its tricks per hand, and ``trick_points``
    and ``tricks_won`` are indexed by team. The ``_on_...`` methods are hooks for what a game notes
    besides (the partnership game's event log).
    """

    #: Whether "pass with help" exists (only with a partner, and only if the rules allow it).
    HELP_CALL: ClassVar[bool] = False
    HAND_SIZE: ClassVar[int]
    NUM_TRICKS: ClassVar[int]
    PHASES: ClassVar[Any]
    trick_points: list[int]  # per team, this hand
    tricks_won: list[int]  # per team, this hand

    def __init__(
        self,
        rules: Rules | None = None,
        rng: np.random.Generator | None = None,
        dealer: int | None = None,
        deal: list[list[Any]] | None = None,
        totals: Any = None,
    ) -> None:
        dealer = self._begin(rules, rng, dealer, totals)
        self.layout = layout_for(self.rules.max_bid)
        self._card0 = self.layout.card0
        self._values = COUNTING_VALUES[self.rules.counting]
        self._start_hand(dealer, self._validated_deal(deal) if deal is not None else None)

    @classmethod
    def random_hands(cls, rng: np.random.Generator) -> list[list[int]]:
        """Each seat's hand (sorted card types) dealt from a deck shuffled by ``rng``: a hand's
        draw when no deal is given (after :meth:`random_dealer` in a new game)."""
        return cls.deal_from_deck(shuffled_deck(rng))

    @classmethod
    def deal_from_deck(cls, cards: list[int]) -> list[list[int]]:
        """The deal a deck in the order ``cards`` (the 48 card types) gives: seat 0 the first
        ``HAND_SIZE`` cards, seat 1 the next, ... (sorted); what is left over (cutthroat's widow)
        is the rest. An outside driver that deals card by card (OpenSpiel's chance nodes) builds
        the deal this way, as a shuffled deck does."""
        return [sorted(cards[s * cls.HAND_SIZE : (s + 1) * cls.HAND_SIZE]) for s in range(cls.NUM_SEATS)]

    def _validated_deal(self, deal: list[list[Any]]) -> list[list[int]]:
        """A preset deal's hands as card types (``ValueError`` naming what is wrong)."""
        hands = parse_hands(deal, self.NUM_SEATS, self.HAND_SIZE)
        check_copies([c for hand in hands for c in hand], whole_deck=len(DECK) == self.NUM_SEATS * self.HAND_SIZE)
        return hands

    def _deal(self, dealer: int, deal: list[list[int]] | None) -> None:
        """Deal (or take the preset ``deal``) and open the auction left of ``dealer``: the state
        every hand of an auction game starts from."""
        self.dealer = dealer
        self.deal = deal if deal is not None else self.random_hands(self.rng)
        self.hands = [counts_from_cards(cards) for cards in self.deal]
        self.held = [R.held_bits(counts) for counts in self.hands]
        self.to_act = (dealer + 1) % self.NUM_SEATS
        self.auction: list[tuple[int, int | str]] = []
        self.high_bid = 0
        self.high_bidder = -1
        self.passed = [False] * self.NUM_SEATS
        self.declarer = -1
        self.contract = 0
        self.trump = -1
        self.melds: list[R.Meld | None] = [None] * self.NUM_SEATS
        self.thrown_in: bool | None = None
        self.tricks: list[tuple[int, list[int], int]] = []
        self.trick: list[int] = []
        self._winning = -1  # the card winning the trick in progress (kept as cards are played; -1: none yet)
        self.trick_leader = -1

    def meld_of(self, seat: int) -> R.Meld:
        """The meld ``seat`` showed this hand (``RuntimeError`` before the meld)."""
        return R.shown_meld(self.melds, seat)

    def shown_melds(self) -> list[R.Meld]:
        """Every seat's meld this hand, seat by seat (``RuntimeError`` before the meld)."""
        return [self.meld_of(seat) for seat in range(self.NUM_SEATS)]

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

    def _legal_auction(self) -> int:
        """A raise (10 or 20 under ``bid_raises="seed"``, any under ``"any"``) up to ``max_bid``,
        pass, and pass with help where it exists."""
        layout = self.layout
        first = layout.bid_action(max(self.high_bid, MIN_BID - 10) + 10)
        last = layout.num_bids - 1
        if self.rules.bid_raises == "seed":
            last = min(first + 1, last)
        bits = ((1 << (last - first + 1)) - 1) << first if first <= last else 0
        bits |= 1 << layout.passing
        if self.HELP_CALL and self.rules.pass_with_help:
            bits |= 1 << layout.help
        return bits

    def _legal_trump(self) -> int:
        return 0b1111 << self.layout.trump0

    def _legal_throw_in(self) -> int:
        return 0b11 << self.layout.throw_in

    def _legal_play(self) -> int:
        rules = self.rules
        held, trick = self.held[self.to_act], self.trick
        bits = R.legal_card_bits(held, trick, self.trump, rules.head_rule, rules.must_overtrump, self._winning)
        return bits << self._card0

    def _apply_auction(self, action: int) -> None:
        """A bid or a pass; the auction ends when one seat is left in (the high bidder, or a dealer
        stuck at 250 when nobody bid, or a redeal under ``all_pass="redeal"``)."""
        seat = self.to_act
        layout = self.layout
        if action < layout.num_bids:
            bid = layout.bid_value(action)
            self.high_bid, self.high_bidder = bid, seat
            self.auction.append((seat, bid))
        else:
            self.passed[seat] = True
            self.auction.append((seat, "help" if action == layout.help else "pass"))
        self._on_call(seat, self.auction[-1][1])
        passed = self.passed
        alone = passed.index(False) if passed.count(False) == 1 else -1  # the one seat still in, if so
        if self.high_bidder >= 0 and alone == self.high_bidder:
            self._end_auction(self.high_bidder, self.high_bid)
        elif self.high_bidder < 0 and alone == self.dealer:
            if self.rules.all_pass == "redeal":
                self._start_hand(self.dealer, None)
            else:
                self._on_stuck()
                self._end_auction(self.dealer, MIN_BID)
        else:
            nxt = (seat + 1) % self.NUM_SEATS
            while passed[nxt]:
                nxt = (nxt + 1) % self.NUM_SEATS
            self.to_act = nxt

    def _offer_throw_in(self, short: int) -> None:
        """After meld (and burying): the throw-in rule, the declaring side being ``short`` of its
        contract by that many points of meld. Under ``throw_in="seed"`` a hand short by more than
        250 is thrown in, one short by exactly 250 leaves the declarer the choice; ``"always"``
        always asks, ``"never"`` never throws in."""
        mode = self.rules.throw_in
        if mode == "always" or (mode == "seed" and short == 250):
            self.phase = self.PHASES.THROW_IN
            self.to_act = self.declarer
        else:
            self._decide_throw_in(mode == "seed" and short > 250)

    def _apply_throw_in(self, action: int) -> None:
        self._decide_throw_in(action == self.layout.throw_in)

    def _decide_throw_in(self, thrown: bool) -> None:
        self.thrown_in = thrown
        self._on_throw_in(thrown)
        if thrown:
            self._end_hand()
        else:
            self.phase = self.PHASES.PLAY
            self.to_act = self.trick_leader = self.declarer

    def _apply_play(self, action: int) -> None:
        """A card played to the trick; the last card of a trick ends it."""
        card = action - self._card0
        seat = self.to_act
        self._take(seat, card)
        if not self.trick or R.BEATEN_BY[self.trump][self._winning] >> card & 1:
            self._winning = card
        self.trick.append(card)
        if len(self.trick) < self.NUM_SEATS:
            self.to_act = (seat + 1) % self.NUM_SEATS
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        """Score the full trick; its winner leads the next one (or the hand ends after the last)."""
        trick = self.trick
        # Of two identical cards the first played wins, and ``index`` finds the first.
        winner = (self.trick_leader + trick.index(self._winning)) % self.NUM_SEATS
        last = len(self.tricks) == self.NUM_TRICKS - 1
        points = R.trick_points(trick, self._values, last)
        team = self.rules.teams[winner]
        self.trick_points[team] += points
        self.tricks_won[team] += 1
        self.tricks.append((self.trick_leader, trick, winner))
        self._on_trick(winner, points)
        self.trick = []
        self.to_act = self.trick_leader = winner
        if last:
            self._end_hand()

    def _on_call(self, seat: int, call: int | str) -> None:
        """Hook: ``seat`` made ``call`` (a bid, ``"pass"`` or ``"help"``)."""

    def _on_stuck(self) -> None:
        """Hook: nobody bid, so the dealer becomes declarer at 250."""

    def _on_throw_in(self, thrown: bool) -> None:
        """Hook: the hand is thrown in (``thrown``) or played."""

    def _on_trick(self, winner: int, points: int) -> None:
        """Hook: ``winner`` took the trick just completed, worth ``points``."""

    def _end_auction(self, declarer: int, contract: int) -> None:
        raise NotImplementedError

    def _end_hand(self) -> None:
        raise NotImplementedError
