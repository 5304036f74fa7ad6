"""How ``pinochle-play`` tells a person about each game: narration, the table, prompts, refusals.

:class:`Table` holds what every game shares (seat names from the game's kit, the trick narration,
the score lines, the rules of play when a card is refused); :class:`AuctionTable` adds what the
auction games share (calls, trump, meld, throw-in); each game's own table, in a module of its own,
adds what only that game has (:class:`~.partnership.PartnershipTable`: passing to the partner,
help, two teams; :class:`~.cutthroat.CutthroatTable`: the widow and the buried cards;
:class:`~.two_hand.TwoHandTable`: the turn-up and the stock, the meld turns, the dix and the
draws).

Everything is told from the person's information-set views only: after each action the session
hands the table the person's view before and after it (:meth:`Table.narrate`), so nothing the
seat may not know can reach the screen. The actor of each action is public (whose turn it was);
the action itself is read from the views, never from the game.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pinochle_env import rules as R
from pinochle_env.actions import ActionLayout
from pinochle_env.cards import (
    COUNTING_VALUES,
    NUM_SUITS,
    NUM_TYPES,
    RANK_OF,
    RANKS,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
    card_to_str,
    cards_from_counts,
    sorted_for_display,
)
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import AuctionView, View
from pinochle_env.records import dealer_stuck
from pinochle_env.rules.switches import VARIANT_SWITCHES, Rules, spell

#: A card moved face down as one line per run (passing, burying): (mover, receiver), the cards (None
#: where the person may not see one).
Transfer = tuple[tuple[int, int], list[int | None]]
#: The view of the game a table tells (its own game's view class in each game's table).
ViewT = TypeVar("ViewT", bound=View)
AuctionViewT = TypeVar("AuctionViewT", bound=AuctionView)


class Table(Generic[ViewT]):
    """What every game shares in the person's view of the table (see the module docstring).

    ``say`` prints one line; ``layout`` is the game's action layout; ``bold`` marks trump in bold
    too (ANSI, for a terminal). A subclass sets ``PHASES`` (its game's phase enum), ``NUM_TRICKS``,
    ``GAME_NAME`` and the ``PROMPTS`` by kind of decision (``phase.decision``), and implements
    :meth:`narrate`, :meth:`status`, :meth:`why_illegal`, :meth:`hand_result` and :meth:`meld_table`.
    """

    PHASES: ClassVar[Any]
    NUM_TRICKS: ClassVar[int]
    GAME_NAME: ClassVar[str]
    PROMPTS: ClassVar[dict[str | None, str]]
    #: What a person may type for an action, besides the layout's own names.
    ALIASES: ClassVar[dict[str, str]] = {}
    #: The move lines of the ``?`` help.
    MOVES: ClassVar[str] = ""

    def __init__(self, rules: Rules, seat: int, layout: Any, say: Callable[[str], None], bold: bool = False) -> None:
        kit = variant_kit(rules)
        self.rules, self.seat, self.layout, self._emit = rules, seat, layout, say
        self.bold = bold
        self.num_seats = kit.num_seats
        self.teams = kit.teams
        self.seat_names = ("you", *kit.seat_names[1:])
        self.partners = len(set(self.teams)) < len(self.teams)
        self._values = COUNTING_VALUES[rules.counting]
        self._pending: Transfer | None = None
        #: The last line :meth:`say` printed (a status leaves out a hand line that repeats it).
        self._last_said = ""

    # ------------------------------------------------------------------ names

    def short_name(self, seat: int) -> str:
        """Where ``seat`` sits from the person: ``you``, ``left``, ``partner``, ``right``, ``opponent``."""
        return self.seat_names[(seat - self.seat) % self.num_seats]

    def name(self, seat: int) -> str:
        """``player 1 (left)``: the absolute seat and where it sits from the person's seat."""
        return f"player {seat} ({self.short_name(seat)})"

    def who(self, seat: int) -> str:
        """The subject of a sentence: ``you``, or ``player 1 (left)``."""
        return "you" if seat == self.seat else self.name(seat)

    def does(self, seat: int, verb: str) -> str:
        """``seat`` doing ``verb`` (given in the third person): ``you pass``, ``player 1 (left) passes``."""
        return f"{self.who(seat)} {_base_form(verb) if seat == self.seat else verb}"

    def team_name(self, team: int) -> str:
        """``us`` / ``them`` where partners share a team, else the seat's short name."""
        seats = [s for s in range(self.num_seats) if self.teams[s] == team]
        if len(seats) > 1:
            return "us" if self.seat in seats else "them"
        return self.short_name(seats[0])

    def team_order(self) -> list[int]:
        """The teams, the person's first, then clockwise from the person."""
        seats = [(self.seat + k) % self.num_seats for k in range(self.num_seats)]
        return list(dict.fromkeys(self.teams[s] for s in seats))

    def scores(self, values: Sequence[int]) -> str:
        """Per-team values as ``us 300, them 120`` or ``you 300, left 120, right 80``."""
        return ", ".join(f"{self.team_name(t)} {values[t]}" for t in self.team_order())

    def seat_note(self) -> str:
        """What the welcome line adds after the person's seat (the team, where there are partners)."""
        return ""

    def winner_name(self, team: int) -> str:
        """``your team`` / ``the other team``, or ``you`` / ``player 1 (left)`` without partners."""
        if self.partners:
            return "your team" if self.teams[self.seat] == team else "the other team"
        return self.who(team)

    def winner_line(self, team: int) -> str:
        if self.teams[self.seat] == team:
            return "you and your partner win the game!" if self.partners else "you win the game!"
        if self.partners:
            return "the other team wins the game."
        return f"{self.name(team)} wins the game."

    def hand_text(self, counts: Sequence[int], trump: int = -1) -> str:
        """A hand grouped by suit, strongest first, the trump suit marked ``(trump)`` (and bold on a
        terminal): ``S: A T K | H (trump): A 9 | D: - | C: Q J``."""
        groups, cards = [], sorted_for_display(cards_from_counts(counts))
        for suit in range(NUM_SUITS):
            ranks = " ".join(RANKS[RANK_OF[c]] for c in cards if SUIT_OF[c] == suit) or "-"
            group = f"{SUITS[suit]}{' (trump)' if suit == trump else ''}: {ranks}"
            groups.append(f"\033[1m{group}\033[0m" if suit == trump and self.bold else group)
        return " | ".join(groups)

    # ------------------------------------------------------------------ narration

    def say(self, line: str) -> None:
        self.flush()
        self._last_said = line
        self._emit(line)

    def flush(self) -> None:
        """Say the run of cards moved face down that is still being collected, if any."""
        if self._pending is not None:
            (mover, receiver), cards = self._pending
            self._pending = None
            self._emit(self.transfer_line(mover, receiver, cards))

    def transfer(self, mover: int, receiver: int, card: int | None) -> None:
        """One card moved face down (``None``: the person may not see it), said with its run."""
        key = (mover, receiver)
        if self._pending is not None and self._pending[0] == key:
            self._pending[1].append(card)
            return
        self.flush()
        self._pending = (key, [card])

    def transfer_line(self, mover: int, receiver: int, cards: list[int | None]) -> str:
        """The line of a run of cards moved face down (the game's own words)."""
        raise NotImplementedError

    @staticmethod
    def face_down(cards: list[int | None]) -> str:
        """Cards moved face down as the person may see them: named, or only counted (``3 cards``)."""
        if None in cards:
            return "a card" if len(cards) == 1 else f"{len(cards)} cards"
        return " ".join(card_to_str(card) for card in cards if card is not None)

    def start_hand(self, view: ViewT, hand_number: int) -> None:
        self.say(f"\n== hand {hand_number + 1}: {self.name(view.dealer)} deals")
        self.say(f"your hand: {self.hand_text(view.hand)}")

    def hand_line(self, counts: Sequence[int], trump: int = -1) -> str:
        """``your hand: ...``, or an empty string when the last line said already showed that hand
        (a person who acts first in a hand saw it when it was dealt)."""
        line = f"your hand: {self.hand_text(counts, trump)}"
        return "" if line == self._last_said else line

    def with_hand(self, lines: list[str], counts: Sequence[int], trump: int = -1) -> list[str]:
        """A status's ``lines`` and then the hand (:meth:`hand_line`), where it is not already shown."""
        hand = self.hand_line(counts, trump)
        return [*lines, hand] if hand else lines

    def narrate(self, before: ViewT, after: ViewT, actor: int, forced: bool = False) -> None:
        """Tell what the action of ``actor`` changed, from the person's views before and after it
        (``forced``: the person's only legal card, played without asking)."""
        raise NotImplementedError

    def tell_plays(self, before: ViewT, after: ViewT, forced: bool = False) -> list[tuple[int, int]]:
        """Say the cards played (and the trick won) between two views; returns them as (seat, card)."""
        n = self.num_seats
        finished = after.tricks[len(before.tricks) :]
        if finished:
            leader, cards, winner = finished[0]
        else:
            leader, cards, winner = after.trick_leader, after.trick, -1
        plays = [((leader + i) % n, cards[i]) for i in range(len(before.trick), len(cards))]
        for seat, card in plays:
            note = " (your only legal card)" if forced and seat == self.seat else ""
            self.say(f"{self.does(seat, 'plays')} {card_to_str(card)}{note}")
        if winner >= 0:
            team = self.teams[winner]
            points = after.trick_points[team] - before.trick_points[team]
            self.say(f"  {self.does(winner, 'wins')} the trick ({points} points)")
        return plays

    # ------------------------------------------------------------------ the person's turn

    def prompt(self, view: ViewT) -> str:
        return self.PROMPTS[view.phase.decision]

    def short(self, action: int) -> str:
        """An action's name as a person would type it."""
        return str(self.layout.to_string(action))

    #: What the person does with the cards of :meth:`cards_to_pass` (a verb, for messages).
    PASS_VERB: ClassVar[str] = "pass"

    def cards_to_pass(self, view: ViewT) -> int | None:
        """How many cards the person still has to pass (or bury) in a row, or None where they do not:
        the decisions a person may type as several cards at once."""
        return None

    def legal_names(self, legal: Sequence[int]) -> str:
        """The legal actions as a person types them, cards in the order the hand shows them."""
        card0 = self.layout.card0

        def order(action: int) -> tuple[int, int]:
            card = action - card0
            return (SUIT_OF[card], -RANK_OF[card]) if 0 <= card < NUM_TYPES else (-1, action)

        return ", ".join(self.short(a) for a in sorted(legal, key=order))

    def parse(self, text: str, view: ViewT) -> int:
        """The action a person typed at ``view``'s decision (``ValueError`` naming what is wrong)."""
        return int(self.layout.from_string(self.ALIASES.get(text.lower(), text)))

    def moves(self) -> str:
        """The move lines of the ``?`` help, in this game's rules."""
        return self.MOVES

    def why_illegal(self, view: ViewT, action: int) -> str:
        """A short reason why ``action`` (a valid id) is not legal for the person now."""
        raise NotImplementedError

    def play_rule(self, view: ViewT, card: int, head_rule: str) -> str:
        """Which rule of play a held but illegal ``card`` breaks (the trick has been led), in the
        words of ``head_rule``."""
        return R.play_refusal(view.hand, view.trick, view.trump, card, head_rule)

    # ------------------------------------------------------------------ what the person asks for

    def status(self, view: ViewT, hand_number: int) -> list[str]:
        """The table as the person's seat sees it, shown before each of their decisions."""
        raise NotImplementedError

    def header(self, view: ViewT, hand_number: int) -> str:
        return f"-- hand {hand_number + 1}, dealer {self.name(view.dealer)}; game score: {self.scores(view.totals)}"

    def trick_lines(self, view: ViewT) -> list[str]:
        played = [
            f"{self.short_name((view.trick_leader + i) % self.num_seats)} {card_to_str(c)}"
            for i, c in enumerate(view.trick)
        ]
        won = [0] * (max(self.teams) + 1)
        for _, _, winner in view.tricks:
            won[self.teams[winner]] += 1
        tally = ", ".join(f"{self.team_name(t)} {won[t]} ({view.trick_points[t]} points)" for t in self.team_order())
        return [
            f"trick {len(view.tricks) + 1}: " + (", ".join(played) if played else "your lead"),
            f"tricks: {tally}",
        ]

    def hand_result(self, record: dict[str, Any]) -> list[str]:
        """The finished hand's result, from its record's public keys (its scores and meld)."""
        raise NotImplementedError

    def last_trick(self, view: ViewT) -> list[str]:
        """The ``last`` command: the last trick completed, card by card, and who took it."""
        if not view.tricks:
            return ["no trick has been completed in this hand yet"]
        leader, cards, winner = view.tricks[-1]
        plays = ", ".join(
            f"{self.short_name((leader + i) % self.num_seats)} {card_to_str(c)}" for i, c in enumerate(cards)
        )
        points = R.trick_points(cards, self._values, len(view.tricks) == self.NUM_TRICKS)
        return [f"last trick (trick {len(view.tricks)}): {plays}; {self.who(winner)} took it ({points} points)"]

    def meld_table(self, view: ViewT) -> list[str]:
        """The ``meld`` command: the meld on the table."""
        raise NotImplementedError

    def rules_lines(self) -> list[str]:
        """The ``rules`` command: every switch of this game, its value and what that means."""
        names = ("variant", *VARIANT_SWITCHES[self.rules.variant])
        return ["rules:", *(f"  {rule_words(name, getattr(self.rules, name))}" for name in names)]

    def rules_note(self) -> str:
        """The welcome's word on the rules: the switches away from docs/rules.md's standard rules."""
        standard = Rules(variant=self.rules.variant)
        changed = [
            f"{name}={spell(getattr(self.rules, name), quoted=False)}"
            for name in VARIANT_SWITCHES[self.rules.variant]
            if getattr(self.rules, name) != getattr(standard, name)
        ]
        return "docs/rules.md's standard rules" + (f" except {', '.join(changed)}" if changed else "")


class AuctionTable(Table[AuctionViewT]):
    """What the auction games (partnership and cutthroat) share: calls, trump, meld, throw-in."""

    ALIASES: ClassVar[dict[str, str]] = {"throw": "throw in", "throw-in": "throw in", "play-on": "play on"}
    PROMPTS: ClassVar[dict[str | None, str]] = {
        "auction": "your bid",
        "trump": "name trump",
        "throw_in": "throw or play",
        "play": "your card",
    }
    layout: ActionLayout

    #: What the person may type at each decision, for a line not understood.
    HINTS: ClassVar[dict[str, str]] = {
        "auction": "a bid such as '260', or 'pass'",
        "trump": "a suit such as 'hearts' or 'H'",
        "passing": "a card such as 'TS', or several such as 'AC TC'",
        "throw_in": "'throw' or 'play'",
        "play": "a card such as 'TS'",
    }

    def parse(self, text: str, view: AuctionViewT) -> int:
        """The action typed; a line that names no action is refused with what this decision takes
        (the layout's own hint lists every kind of action: a bid where trump is named)."""
        try:
            return super().parse(text, view)
        except ValueError as error:
            decision = view.phase.decision
            if not str(error).startswith("not an action") or decision is None:
                raise
            takes = f"the {_phase_name(view.phase)} takes {self.HINTS[decision]}"
            raise ValueError(f"not understood: {text!r} ({takes})") from None

    def moves(self) -> str:
        """The move lines of the ``?`` help, with the raises the rules allow."""
        if self.rules.bid_raises == "seed":
            raises = "a raise of 10 or 20 over the high bid"
        else:
            raises = f"any multiple of 10 above the high bid, up to {self.layout.max_bid}"
        return self.MOVES.format(raises=raises)

    def short(self, action: int) -> str:
        """``260`` rather than ``bid 260``, ``hearts``, ``throw``, ``play``."""
        name = self.layout.to_string(action)
        for prefix in ("bid ", "trump "):
            if name.startswith(prefix):
                return name[len(prefix) :]
        return {"throw in": "throw", "play on": "play"}.get(name, name)

    # ------------------------------------------------------------------ narration

    def narrate(self, before: AuctionViewT, after: AuctionViewT, actor: int, forced: bool = False) -> None:
        if before.phase == self.PHASES.AUCTION:
            self.tell_call(before, after, actor)
        if before.declarer < 0 <= after.declarer:
            self.tell_auction_end(after)
        if before.trump < 0 <= after.trump:
            self.say(f"{self.does(after.declarer, 'names')} trump: {SUIT_NAMES[after.trump]}")
        self.tell_cards_moved(before, after, actor)
        if before.meld[0] is None and after.meld[0] is not None:
            for seat in self.seats_from_me():
                meld = after.meld_of(seat)
                shown = ", ".join(f"{name} {points}" for name, points in meld.melds) or "nothing"
                self.say(f"{self.does(seat, 'melds')} {meld.points}: {shown}")
        if before.thrown_in is None and after.thrown_in is not None:
            self.tell_throw_in(before, after)
        self.tell_plays(before, after, forced)

    def seats_from_me(self) -> list[int]:
        return [(self.seat + k) % self.num_seats for k in range(self.num_seats)]

    def tell_call(self, before: AuctionViewT, after: AuctionViewT, actor: int) -> None:
        if len(after.auction) > len(before.auction):
            call = after.auction[-1][1]
            text = {"pass": "passes", "help": "passes with help"}.get(str(call), f"bids {call}")
            self.say(f"{self.who(actor)} {_base_form(text) if actor == self.seat else text}")
            return
        # Everyone passed and the same dealer deals again (all_pass="redeal"): a new auction.
        self.say(f"{self.does(actor, 'passes')}")
        self.say(f"nobody bid: {self.does(after.dealer, 'deals')} again")
        self.say(f"your hand: {self.hand_text(after.hand)}")

    def tell_auction_end(self, view: AuctionViewT) -> None:
        declarer = view.declarer
        if not any(isinstance(call, int) for _, call in view.auction):
            is_ = "are" if declarer == self.seat else "is"
            self.say(f"nobody bid: the dealer, {self.who(declarer)}, {is_} stuck at {view.contract}")
        else:
            self.say(f"{self.does(declarer, 'wins')} the auction at {view.contract}")

    def tell_cards_moved(self, before: AuctionViewT, after: AuctionViewT, actor: int) -> None:
        """Cards the declaring side moves face down (passing, burying): the game's own."""

    def tell_throw_in(self, before: AuctionViewT, after: AuctionViewT) -> None:
        """The declarer's choice, or a hand thrown in by the rule (short by more than 250 after
        meld); nothing is said of a hand played out by the rule."""
        declarer = after.declarer
        if before.phase == self.PHASES.THROW_IN:
            self.say(
                f"{self.does(declarer, 'throws')} the hand in"
                if after.thrown_in
                else f"{self.does(declarer, 'plays')} the hand out"
            )
        elif after.thrown_in:
            meld = self.side_meld(after)
            self.say(
                f"{self.does_side(declarer, 'melds')} {meld}, {after.contract - meld} short of {after.contract}: "
                "the hand is thrown in (short by more than 250)"
            )

    def side_meld(self, view: AuctionViewT) -> int:
        """The meld of the declaring team (the declarer's own without partners)."""
        team = self.teams[view.declarer]
        return sum(view.meld_of(s).points for s in range(self.num_seats) if self.teams[s] == team)

    def does_side(self, declarer: int, verb: str) -> str:
        """The declaring side doing ``verb``: ``your team needs``, ``the other team needs``, ``you need``."""
        if not self.partners:
            return self.does(declarer, verb)
        return f"{'your' if self.teams[declarer] == self.teams[self.seat] else 'the other'} team {verb}"

    # ------------------------------------------------------------------ the person's turn

    def why_illegal(self, view: AuctionViewT, action: int) -> str:
        layout, phase = self.layout, view.phase
        if phase.decision is None or _action_kind(layout, action) != _ACTION_KIND[phase.decision]:
            return f"this is the {_phase_name(phase)}"
        if phase == self.PHASES.AUCTION:
            return self.bid_rule(view, action)
        card = action - layout.card0
        if not view.hand[card]:
            return f"you do not hold {card_to_str(card)}"
        return self.play_rule(view, card, self.rules.head_rule)

    def bid_rule(self, view: AuctionViewT, action: int) -> str:
        """Why an auction call is refused: help switched off, or a bid too low or too high."""
        layout = self.layout
        if action == layout.help:
            return "passing with help is switched off (rule pass_with_help=false)"
        bid = layout.bid_value(action)
        if bid <= view.high_bid:
            return f"the high bid is already {view.high_bid}"
        allowed = [layout.bid_value(a) for a in view.legal_actions if a < layout.num_bids]
        if not allowed:
            return f"no bid is possible any more (the highest bid is {layout.max_bid})"
        if self.rules.bid_raises == "seed":
            return (
                f"a bid raises the high bid by 10 or 20 (docs/rules.md's standard raises), so the highest bid "
                f"allowed now is {max(allowed)}"
            )
        return f"the highest bid allowed is {max(allowed)} (rule max_bid={layout.max_bid})"

    # ------------------------------------------------------------------ what the person asks for

    def status(self, view: AuctionViewT, hand_number: int) -> list[str]:
        lines = [self.header(view, hand_number)]
        if view.phase == self.PHASES.AUCTION:
            calls = ", ".join(f"{self.short_name(s)} {c}" for s, c in view.auction)
            lines.append(f"auction: {calls or '(you open)'}")
        else:
            trump = SUIT_NAMES[view.trump] if view.trump >= 0 else "not named yet"
            lines.append(f"contract: {view.contract} by {self.name(view.declarer)}; trump: {trump}")
        if view.meld[0] is not None:
            melds = (f"{self.short_name(s)} {view.meld_of(s).points}" for s in self.seats_from_me())
            lines.append("meld: " + ", ".join(melds))
        lines += self.status_extra(view)
        if view.phase in (self.PHASES.THROW_IN, self.PHASES.PLAY):
            meld = self.side_meld(view)
            if meld < view.contract:
                needs = self.does_side(view.declarer, "needs")
                lines.append(f"to make {view.contract}, {needs} {view.contract - meld} in tricks (meld {meld})")
            else:
                lines.append(f"the contract of {view.contract} is made in meld ({meld}) if the meld is kept")
        if view.phase == self.PHASES.PLAY:
            lines.extend(self.trick_lines(view))
        return self.with_hand(lines, view.hand, view.trump)

    def status_extra(self, view: AuctionViewT) -> list[str]:
        return []

    def meld_table(self, view: AuctionViewT) -> list[str]:
        if view.meld[0] is None:
            return ["nobody has melded yet in this hand"]
        lines = []
        for seat in self.seats_from_me():
            meld = view.meld_of(seat)
            names = ", ".join(f"{name} {points}" for name, points in meld.melds)
            cards = " ".join(card_to_str(c) for c in sorted_for_display(cards_from_counts(meld.shown)))
            lines.append(f"{self.short_name(seat)}: {meld.points}" + (f" ({names}): {cards}" if names else ""))
        return lines

    # ------------------------------------------------------------------ the hand's result

    #: How the declaring team is called in the hand result.
    DECLARING: ClassVar[str] = "declaring"

    def hand_result(self, record: dict[str, Any]) -> list[str]:
        """Who bid what and how it went, then per team its meld plus its tricks and its score."""
        declarer, bid = record["declarer"], record["bid"]
        stuck = dealer_stuck(record)
        was = "were" if declarer == self.seat else "was"
        outcome = "threw the hand in" if record["thrown_in"] else ("made it" if record["made"] else f"{was} set")
        contract = f"{was} stuck at {bid}" if stuck else f"bid {bid}"
        lines = [f"hand over: {self.who(declarer)} {contract} and {outcome}"]
        declaring = self.teams[declarer]
        for team in sorted(self.team_order(), key=lambda t: t != declaring):
            label = self.team_name(team) + (f" ({self.DECLARING})" if team == declaring else "")
            lines.append(f"  {label}: {self.breakdown(record, team, team == declaring)}")
        lines.append(f"game: {self.scores(record['totals'])}")
        if record["game_winner"] is not None:
            lines.append(self.winner_line(record["game_winner"]))
        return lines

    def breakdown(self, record: dict[str, Any], team: int, declaring: bool) -> str:
        """``meld 120 + tricks 90 = 210: +210`` for one team of a finished hand (its record)."""
        score = record["score"][team]
        meld = sum(points for seat, points in enumerate(record["meld"]) if self.teams[seat] == team)
        if record["thrown_in"]:
            return f"meld {meld}, thrown in: {score:+d}" if declaring else f"meld {meld}: {score:+d}"
        points = record["points"][team]
        tricks = sum(1 for trick in record["tricks"] if self.teams[trick["winner"]] == team)
        rules = self.rules
        kept = R.meld_kept(declaring, points, tricks, rules.save_meld, rules.save_meld_applies_to)
        lost = {"points": "no trick points", "trick": "no trick"}.get(rules.save_meld, "")
        parts = [f"meld {meld}" if kept or not meld else f"meld {meld} lost ({lost})", *self.point_parts(record, team)]
        total = (meld if kept else 0) + points
        short = f", short of {record['bid']}" if declaring and not record["made"] else ""
        return f"{' + '.join(parts)} = {total}{short}: {score:+d}"

    def point_parts(self, record: dict[str, Any], team: int) -> list[str]:
        """The team's trick points in the breakdown (cutthroat adds the buried cards)."""
        return [f"tricks {record['points'][team]}"]


#: Each switch value in words, for the ``rules`` command and the welcome line. ``seed`` is the name
#: docs/rules.md gives its standard bidding and throw-in rules, not a random seed: it is always worded.
STANDARD = "docs/rules.md's standard rule, which it names 'seed'; not a random seed"
RULE_WORDS: dict[str, dict[Any, str]] = {
    "bid_raises": {
        "seed": f"a bid raises the high bid by 10 or 20 ({STANDARD})",
        "any": "a bid raises the high bid by any multiple of 10",
    },
    "pass_with_help": {True: "a player may pass with help, telling the partner it can help", False: "no help"},
    "all_pass": {
        "dealer_stuck": "if nobody bids, the dealer takes the contract at 250",
        "redeal": "if nobody bids, the same dealer deals again",
    },
    "pass_count": {
        4: "the partner passes 4 cards to the declarer, who passes 4 back",
        3: "the partner passes 3 cards to the declarer, who passes 3 back",
        0: "no cards are passed",
    },
    "pass_mode": {
        "sequential": "the declarer passes back after receiving",
        "simultaneous": "both pass at once, the declarer without seeing the partner's cards",
    },
    "throw_in": {
        "seed": f"after meld a hand short of its bid by more than 250 is thrown in; at exactly 250 the "
        f"declarer chooses ({STANDARD})",
        "always": "after meld the declarer may always throw the hand in",
        "never": "every hand is played out",
    },
    "run_extras": {
        "consume": "a run uses up its king and queen: a royal marriage besides needs another pair",
        "reuse": "a run with a spare trump king or queen also scores a royal marriage",
        "royal_in_run": "a run's own king and queen also score a royal marriage",
    },
    "head_rule": {
        "winner": "following suit, you must beat the card winning the trick when you can",
        "highest_led": "following suit, you must beat the highest card of the suit led when you can",
        "led_card": "following suit, you must beat the card led when you can",
        "trump_lead_only": "following suit, you must beat only on a trump lead",
        "none": "following suit, any card of the suit will do",
    },
    "must_overtrump": {True: "trumping, you must beat a winning trump when you can", False: "any trump will do"},
    "counting": {
        "counters": "aces, tens and kings count 10 each, the last trick 10",
        "ak10_kq5": "aces and tens count 10, kings and queens 5, the last trick 10",
        "classic": "A 11, 10 10, K 4, Q 3, J 2, the last trick 10",
    },
    "save_meld": {
        "points": "a side keeps its meld only if it takes a trick point",
        "trick": "a side keeps its meld only if it takes a trick",
        "none": "meld always counts",
    },
    "save_meld_applies_to": {
        "defenders": "the declaring side always keeps its meld",
        "both": "the declaring side too must save its meld",
    },
}


def rule_words(name: str, value: Any) -> str:
    """``bid_raises=seed: a bid raises ...``: a switch, its value and what that means (a game, as its
    kit describes it)."""
    words = RULE_WORDS.get(name, {}).get(value)
    if name == "variant":
        words = variant_kit(Rules(variant=value)).description
    elif name == "max_bid":
        words = f"bids go up to {value}"
    elif name == "target_score":
        words = f"the game is won at {value}"
    return f"{name}={spell(value, quoted=False)}" + (f": {words}" if words else "")


def _base_form(verb: str) -> str:
    """The verb of a third-person phrase in the second person: ``passes`` -> ``pass``,
    ``buries`` -> ``bury``, ``is`` -> ``are`` (only the first word changes)."""
    word, space, rest = verb.partition(" ")
    if word == "is":
        base = "are"
    elif word.endswith("ies"):
        base = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes")):
        base = word[:-2]
    else:
        base = word.removesuffix("s")
    return base + space + rest


#: What kind of action each kind of decision takes (see :func:`_action_kind`).
_ACTION_KIND = {"auction": "call", "trump": "suit", "passing": "card", "throw_in": "throw-in", "play": "card"}


def _action_kind(layout: ActionLayout, action: int) -> str:
    """``call`` (bid, pass, help), ``suit``, ``card`` or ``throw-in``: the id range of ``action``."""
    if action < layout.trump0:
        return "call"
    if action < layout.card0:
        return "suit"
    return "card" if action < layout.throw_in else "throw-in"


def _phase_name(phase: Any) -> str:
    """``auction``, ``trump``, ``passing``, ``throw in``, ``play``."""
    if phase.decision == "passing":
        return "passing"
    return str(phase.name.lower().replace("_", " "))


def table_for(rules: Rules, seat: int, layout: Any, say: Callable[[str], None], bold: bool = False) -> Table[Any]:
    """The table that tells the person at ``seat`` about a game under ``rules``: the class its kit
    names (``VariantKit.terminal_table``)."""
    table: type[Table[Any]] = pkgutil.resolve_name(variant_kit(rules).terminal_table)
    return table(rules, seat, layout, say, bold)


__all__ = ["AuctionTable", "Table", "table_for"]
