"""``heuristic``: a rule-based partnership Pinochle player that a club player would recognise.

:class:`~agents.heuristic.HeuristicAgent` (:mod:`agents.heuristic.agent`) is the bot of every
game: it plays each by the rules of the game's own module, which the game's kit names
(:mod:`agents.heuristic.games`). This module holds the partnership game's, as the agent's
:class:`PartnershipPlay` methods; the other games have their own, simpler rules
(:mod:`agents.heuristic.cutthroat` and :mod:`agents.heuristic.two_hand`).

Every decision is a function of the seat's :class:`~pinochle_env.PlayerView` and the legal mask
(plus a seeded tie-break order), so the bot can never see a hidden card:

- **Auction**: the hand is valued as its best meld plus the trick points the declaring team can
  expect with that trump, plus a fixed expectation for the partner (its meld and the cards it
  passes), larger if the partner passed with help. The bot bids the smallest raise the rules
  allow while that stays within its valuation, passes with help to signal meld it cannot bid on,
  and passes otherwise. It outbids its own partner only with a clearly better hand.
- **Trump**: the suit with the most meld plus trick-taking strength.
- **Passing**: the partner passes trump, aces and run cards, never breaking its own meld for
  little gain; the declarer returns cards that break no meld and keeps control: trump and aces
  stay, low off-suit cards (preferably voiding a short suit) go back.
- **Throw-in**: thrown in when the team's meld plus the estimated trick points cannot reach the
  contract.
- **Card play** (:class:`CardCount` does the counting: cards played, voids shown by earlier
  tricks, cards known from meld and passing, which cards are masters): leads draw trump when the
  declaring side is strong in it, cash masters that are unlikely to be trumped, lead into the
  partner's void, else lead low; followers weigh each legal card by the chance that their team
  takes the trick, the points at stake and what the card is worth kept for later, which feeds
  counters to a partner who is winning safely, wins cheaply, and plays low when the opponents
  have the trick.

Parameters (``heuristic:aggression=1.1,help_meld=60``): ``aggression`` scales the valuation the
bot bids up to; ``help_meld`` is the meld (averaged over the four possible trumps) from which it
passes with help; ``partner_value`` and ``help_value`` are the points it expects from the partner
and the extra expected when the partner passed with help.
"""

from __future__ import annotations

from pinochle_env import PlayerView
from pinochle_env import rules as R
from pinochle_env.actions import ActionLayout
from pinochle_env.cards import (
    ACE,
    COPIES,
    COUNTING_VALUES,
    NUM_SUITS,
    NUM_TYPES,
    RANK_OF,
    SUIT_OF,
    TEN,
    counts_from_cards,
)
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import HAND_SIZE, Phase

from .hand_value import hand_value, meld_loss, meld_points, suit_length, trick_estimate

#: The search kernel's compiled copy of this bot (see :mod:`agents.heuristic.games`): its card play,
#: and its decisions before the first card.
PLAY_OUT_POLICY = "heuristic"
COMPILED_BIDDING = True
#: The :class:`HeuristicAgent` parameters this game's rules read: all of them.
PARAMETERS_READ = ("aggression", "help_meld", "partner_value", "help_value")

#: Card types of each suit, weakest first.
SUIT_TYPES = R.SUIT_CARDS
#: Card types of the same suit ranked above each card type.
HIGHER = tuple(tuple(x for x in SUIT_TYPES[SUIT_OF[c]] if RANK_OF[x] > RANK_OF[c]) for c in range(NUM_TYPES))
#: Expected points of one unknown card, used for the cards still to come in a trick.
AVERAGE_CARD_POINTS = 250 / 48
#: Probability threshold above which an opponent is expected to trump a side-suit lead.
RUFF_RISK = 0.4


class CardCount:
    """What one seat knows about the cards during play, derived from its view only.

    ``played_by[p]`` and ``played`` count the cards each seat (and everyone) played; ``void[p]`` is
    a bit mask of the suits seat ``p`` showed it is out of (it did not follow, or did not trump);
    ``known[p]`` counts cards certainly in ``p``'s hand (shown meld not yet played, cards passed
    between the seat and its partner); ``unknown`` counts the other cards the three other hands
    hold, and ``free[p]`` how many of ``p``'s cards are unknown.
    """

    def __init__(self, view: PlayerView) -> None:
        self.seat = view.seat
        self.partner = (view.seat + 2) % 4
        self.others = [p for p in range(4) if p != view.seat]
        self.trump = view.trump
        self.hand = view.hand
        self.points = [COUNTING_VALUES[view.rules.counting][RANK_OF[c]] for c in range(NUM_TYPES)]
        self.played = [0] * NUM_TYPES
        self.played_by = [[0] * NUM_TYPES for _ in range(4)]
        self.void = [0] * 4
        for leader, cards, _ in view.tricks:
            self._read_trick(leader, cards)
        self._read_trick(view.trick_leader, view.trick)
        self.known = self._known_cards(view)
        self.unknown = [COPIES - n - m for n, m in zip(self.hand, self.played, strict=True)]
        for p in self.others:
            self.unknown = [n - k for n, k in zip(self.unknown, self.known[p], strict=True)]
        self.free = [0] * 4
        for p in self.others:
            self.free[p] = HAND_SIZE - sum(self.played_by[p]) - sum(self.known[p])
        #: Per suit, the unknown cards of the seats that may still hold that suit.
        self.pool = [sum(self.free[p] for p in self.others if not self.void[p] >> s & 1) for s in range(NUM_SUITS)]

    def _read_trick(self, leader: int, cards: list[int]) -> None:
        """Count a trick's cards and note the voids it shows."""
        if not cards:
            return
        led = SUIT_OF[cards[0]]
        for position, c in enumerate(cards):
            who = (leader + position) % 4
            self.played[c] += 1
            self.played_by[who][c] += 1
            if SUIT_OF[c] != led:
                self.void[who] |= 1 << led
                if SUIT_OF[c] != self.trump:
                    self.void[who] |= 1 << self.trump

    def _known_cards(self, view: PlayerView) -> list[list[int]]:
        """Cards certainly held by the other seats: shown meld and passed cards not played since.

        The declarer's partner keeps what the declarer gave back; the declarer keeps what its
        partner gave, except (when passing is sequential) what it may have given straight back.
        """
        known = [[0] * NUM_TYPES for _ in range(4)]
        for p in self.others:
            known[p] = [n - m if n > m else 0 for n, m in zip(view.meld_of(p).shown, self.played_by[p], strict=True)]
        if self.seat == view.declarer:
            gift = counts_from_cards(view.cards_passed)
        elif self.partner == view.declarer:
            gift = counts_from_cards(view.cards_passed)
            if view.rules.pass_mode == "sequential":
                gift = [max(0, n - m) for n, m in zip(gift, counts_from_cards(view.cards_received), strict=True)]
        else:
            return known
        played = self.played_by[self.partner]
        known[self.partner] = [
            n - m if n - m > k else k for k, n, m in zip(known[self.partner], gift, played, strict=True)
        ]
        return known

    # ------------------------------------------------------------------ probabilities

    def holds_any(self, seat: int, cards: tuple[int, ...]) -> float:
        """Probability that ``seat`` holds at least one of ``cards`` (all of one suit)."""
        if not cards:
            return 0.0
        if seat == self.seat:
            return 1.0 if any(self.hand[c] for c in cards) else 0.0
        known = self.known[seat]
        if any(known[c] for c in cards):
            return 1.0
        suit = SUIT_OF[cards[0]]
        free, pool = self.free[seat], self.pool[suit]
        if self.void[seat] >> suit & 1 or not free:
            return 0.0
        unknown = sum(self.unknown[c] for c in cards)
        return 1.0 - (1.0 - free / pool) ** unknown

    def is_void(self, seat: int, suit: int) -> float:
        """Probability that ``seat`` holds no card of ``suit``."""
        return 1.0 - self.holds_any(seat, SUIT_TYPES[suit])

    def is_master(self, c: int) -> bool:
        """Whether no other hand can hold a card of ``c``'s suit that beats it."""
        return not any(COPIES - self.hand[x] - self.played[x] for x in HIGHER[c])

    def beat_chance(self, seat: int, winning: int, led: int) -> float:
        """Probability that ``seat``, playing later in a trick led in ``led``, beats the card ``winning``."""
        trump = self.trump
        above = HIGHER[winning]
        if SUIT_OF[winning] == trump:
            chance = self.holds_any(seat, above)
            return chance if led == trump else self.is_void(seat, led) * chance
        ruff = self.is_void(seat, led) * self.holds_any(seat, SUIT_TYPES[trump])
        return min(1.0, self.holds_any(seat, above) + ruff)

    def ruff_risk(self, suit: int) -> float:
        """Probability that an opponent trumps a lead of ``suit``."""
        safe = 1.0
        for opponent in ((self.seat + 1) % 4, (self.seat + 3) % 4):
            safe *= 1.0 - self.is_void(opponent, suit) * self.holds_any(opponent, SUIT_TYPES[self.trump])
        return 1.0 - safe

    def keep_value(self, c: int) -> float:
        """What holding ``c`` for later is worth to the team, in trick points (margin)."""
        suit, points = SUIT_OF[c], self.points[c]
        if self.is_master(c):
            wins = 1.0 if suit == self.trump else 1.0 - self.ruff_risk(suit)
            return wins * (points + 3 * AVERAGE_CARD_POINTS) - (1.0 - wins) * points
        if suit == self.trump:
            return 6.0 + RANK_OF[c]
        return 0.5 * RANK_OF[c] - 0.3 * points


class PartnershipPlay:
    """The partnership game's rules of :class:`~agents.heuristic.HeuristicAgent` (the module
    docstring): a mixin of the agent, whose parameters and seeded tie-break order they read."""

    aggression: float
    help_meld: int
    partner_value: float
    help_value: float
    _order: list[int]

    def partnership_act(self, view: PlayerView, legal: list[int]) -> int:
        """The partnership game's decision among the ``legal`` action ids (more than one)."""
        layout = variant_kit(view.rules).layout
        phase = view.phase
        if phase == Phase.AUCTION:
            return self._auction(view, legal, layout)
        if phase == Phase.TRUMP:
            return layout.trump0 + self.choose_trump(view.hand, view.rules.run_extras)
        if phase == Phase.THROW_IN:
            return layout.throw_in if self.should_throw_in(view) else layout.play_on
        cards = [a - layout.card0 for a in legal]
        if phase == Phase.PLAY:
            return layout.card0 + self.choose_play(view, cards)
        return layout.card0 + self._choose_pass(view, cards)

    # ------------------------------------------------------------------ auction

    def _auction(self, view: PlayerView, legal: list[int], layout: ActionLayout) -> int:
        """Bid the smallest legal raise within the valuation, else pass (with help if holding meld)."""
        bids = [a for a in legal if a < layout.num_bids]
        limit = self.bid_limit(view)
        if view.high_bidder == (view.seat + 2) % 4:
            limit -= self.help_value  # outbid the partner only with a clearly better hand
        if bids and layout.bid_value(bids[0]) <= limit:
            return bids[0]
        if layout.help in legal and self.helps(view.hand, view.rules.run_extras):
            return layout.help
        return layout.passing

    def bid_limit(self, view: PlayerView) -> float:
        """The highest contract this seat will bid to: its hand's value plus the partner's expected share."""
        run_extras = view.rules.run_extras
        own = max(hand_value(view.hand, t, run_extras) for t in range(NUM_SUITS))
        return self.aggression * (own + self.partner_expectation(view))

    def partner_expectation(self, view: PlayerView) -> float:
        """Points expected from the partner's meld and passed cards, read from its calls so far."""
        partner = (view.seat + 2) % 4
        calls = [call for seat, call in view.auction if seat == partner]
        return self.partner_value + (self.help_value if "help" in calls else 0.0)

    def helps(self, hand: list[int], run_extras: str) -> bool:
        """Pass with help when the meld the partner can count on (any trump) reaches ``help_meld``."""
        average = sum(meld_points(hand, t, run_extras) for t in range(NUM_SUITS)) / NUM_SUITS
        return average >= self.help_meld

    # ------------------------------------------------------------------ trump, passing, throw-in

    def choose_trump(self, hand: list[int], run_extras: str) -> int:
        """The suit that maximises meld plus trick strength."""
        return max(range(NUM_SUITS), key=lambda t: (hand_value(hand, t, run_extras), self._order[t]))

    def _choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        """The next card to pass: the partner gives help, the declarer gets rid of what it needs least."""
        hand, trump, run_extras = list(view.hand), view.trump, view.rules.run_extras
        if view.seat == view.declarer:
            return min(cards, key=lambda c: (self._return_cost(hand, c, trump, run_extras), self._order[c]))
        return max(cards, key=lambda c: (self._gift_value(hand, c, trump, run_extras), self._order[c]))

    @staticmethod
    def _gift_value(hand: list[int], c: int, trump: int, run_extras: str) -> float:
        """How much passing ``c`` to the declarer helps: trump (run cards first) and aces, less own meld lost."""
        if SUIT_OF[c] == trump:
            value = 30.0 + 4 * RANK_OF[c]
        elif RANK_OF[c] == ACE:
            value = 25.0
        else:
            value = RANK_OF[c] * 0.5
        return value - meld_loss(hand, c, trump, run_extras)

    @staticmethod
    def _return_cost(hand: list[int], c: int, trump: int, run_extras: str) -> float:
        """What the declarer loses by returning ``c``: meld broken, control (trump, aces), counters.

        Cards of a short side suit cost a little less: returning them makes a void to trump in.
        """
        suit, rank = SUIT_OF[c], RANK_OF[c]
        if suit == trump:
            cost = 40.0 + 4 * rank
        elif rank == ACE:
            cost = 30.0
        else:
            cost = rank + (4.0 if rank == TEN else 0.0)
            cost -= 3.0 * max(0, 3 - suit_length(hand, suit))
        return cost + 2 * meld_loss(hand, c, trump, run_extras)

    def should_throw_in(self, view: PlayerView) -> bool:
        """Throw in when the team's meld plus the estimated trick points cannot reach the contract."""
        team_meld = view.meld_of(view.declarer).points + view.meld_of((view.declarer + 2) % 4).points
        return team_meld + trick_estimate(view.hand, view.trump) < view.contract

    # ------------------------------------------------------------------ card play

    def choose_play(self, view: PlayerView, cards: list[int]) -> int:
        """The card to play among the legal ``cards`` (card types)."""
        if len(cards) == 1:
            return cards[0]
        count = CardCount(view)
        if not view.trick:
            return self._lead(view, count, cards)
        return max(cards, key=lambda c: (self._follow_value(view, count, c), self._order[c]))

    def _lead(self, view: PlayerView, count: CardCount, cards: list[int]) -> int:
        """Draw trump when strong, cash safe masters, lead into the partner's void, else lead low."""
        for choose in (self._draw_trump, self._cash_master, self._lead_to_ruff):
            choice = choose(view, count, cards)
            if choice is not None:
                return choice
        declaring = view.declarer % 2 == view.seat % 2
        return min(cards, key=lambda c: (self._lead_cost(count, c, declaring), self._order[c]))

    def _draw_trump(self, view: PlayerView, count: CardCount, cards: list[int]) -> int | None:
        """The declarer leads its top trump while it is a master and the opponents may still hold trump."""
        trump = view.trump
        trumps = [c for c in cards if SUIT_OF[c] == trump]
        if view.seat != view.declarer or len(trumps) < 3:
            return None
        top = max(trumps, key=RANK_OF.__getitem__)
        opponents = ((view.seat + 1) % 4, (view.seat + 3) % 4)
        out = max(count.holds_any(p, SUIT_TYPES[trump]) for p in opponents)
        return top if count.is_master(top) and out > 0.1 else None

    def _cash_master(self, view: PlayerView, count: CardCount, cards: list[int]) -> int | None:
        """A side-suit master (most points, safest suit first) the opponents are unlikely to trump."""
        masters = [c for c in cards if SUIT_OF[c] != view.trump and count.is_master(c)]
        safe = [c for c in masters if count.ruff_risk(SUIT_OF[c]) < RUFF_RISK]
        if not safe:
            return None
        return max(safe, key=lambda c: (count.points[c], -count.ruff_risk(SUIT_OF[c]), self._order[c]))

    def _lead_to_ruff(self, view: PlayerView, count: CardCount, cards: list[int]) -> int | None:
        """A low card of a suit the partner is out of (and can trump) while the opponents follow."""
        trump = view.trump
        for c in sorted(cards, key=lambda c: (count.points[c], RANK_OF[c], self._order[c])):
            suit = SUIT_OF[c]
            partner_ruffs = count.void[count.partner] >> suit & 1 and count.holds_any(count.partner, SUIT_TYPES[trump])
            if suit != trump and partner_ruffs and count.ruff_risk(suit) < RUFF_RISK:
                return c
        return None

    @staticmethod
    def _lead_cost(count: CardCount, c: int, declaring: bool) -> float:
        """Cost of leading ``c`` when nothing better exists: its points and worth, trump spared by defenders."""
        cost = count.points[c] + max(0.0, count.keep_value(c))
        if SUIT_OF[c] == count.trump and not declaring:
            cost += 5.0
        return cost

    def _follow_value(self, view: PlayerView, count: CardCount, c: int) -> float:
        """Expected trick margin of playing ``c`` to the trick in progress, less what ``c`` is worth kept."""
        trick, trump, seat = view.trick, view.trump, view.seat
        led = SUIT_OF[trick[0]]
        best = R.trick_winner(trick, trump)
        winning, winner = trick[best], (view.trick_leader + best) % 4
        if R.beats(c, winning, trump):
            winning, winner = c, seat
        later = [(view.trick_leader + i) % 4 for i in range(len(trick) + 1, 4)]
        ours = self._our_chance(count, winning, winner % 2 == seat % 2, later, led)
        at_stake = sum(count.points[x] for x in trick) + count.points[c] + AVERAGE_CARD_POINTS * len(later)
        if len(view.tricks) == 11:
            at_stake += 10
        return (2 * ours - 1) * at_stake - count.keep_value(c)

    @staticmethod
    def _our_chance(count: CardCount, winning: int, ours: bool, later: list[int], led: int) -> float:
        """Probability that this seat's team takes the trick, given who is winning and who plays later."""
        partner = count.partner
        if ours:
            chance = 1.0
            for p in later:
                if p != partner:
                    chance *= 1.0 - count.beat_chance(p, winning, led)
            return chance
        if partner not in later:
            return 0.0
        chance = count.beat_chance(partner, winning, led)
        after = later[later.index(partner) + 1 :]
        for p in after:
            chance *= 1.0 - count.beat_chance(p, winning, led) / 2
        return chance


def act(agent: PartnershipPlay, view: PlayerView, legal: list[int]) -> int:
    """The partnership game's decision (the module's rules: see :mod:`agents.heuristic.games`)."""
    return agent.partnership_act(view, legal)
