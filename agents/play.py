"""``pinochle-play``: play partnership Pinochle in the terminal against agents.

You take a seat (``--seat``, default 0); your partner and the opponents are agent specs as the
arena takes them (``random``, ``heuristic``, ``pimc:samples=32``, ``checkpoint:PATH``, ``mix:...``;
all default to ``random``): ``--partner``, ``--opponents`` for both, or ``--left`` / ``--right``.
Rule switches pass through as ``--rule name=value`` (repeatable), ``--seed`` makes the deals and
the agents reproducible, ``--hands N`` plays N hands (fewer if a team wins the game first) and
``--game`` (the default) plays to the target score. ``--save FILE.jsonl`` writes the finished
hands as hand records (also when you quit).

Type moves by name: a bid (``260``), ``pass``, ``help`` (pass with help), a suit for trump
(``hearts`` or ``H``), a card to pass or play (``TS``, ``10S``, ``qd``), ``throw`` / ``play`` for
the throw-in choice. ``?`` shows the commands and your legal moves; ``quit`` or end of input
(Ctrl-D) stops with a summary. Anything not understood or not legal is refused with the reason,
and you are asked again.

You see only what your seat may know: the table is narrated from the events addressed to you,
and the agents get only their own views (through :func:`agents.base.decide`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from pinochle_env.actions import ActionLayout
from pinochle_env.cards import SUIT_NAMES, card_to_str, counts_from_cards
from pinochle_env.games.partnership.game import NUM_SEATS, Event, Game, Phase, PlayerView, team_of
from pinochle_env.records import write_jsonl
from pinochle_env.render import format_hand
from pinochle_env.rules import play_refusal
from pinochle_env.switches import Rules, parse_rule_assignment

from .base import Agent, decide
from .registry import load_agent

SEAT_NAMES = ("you", "left", "partner", "right")
QUIT_WORDS = ("quit", "exit", "q")
ALIASES = {"throw": "throw in", "throw-in": "throw in", "play-on": "play on"}
PROMPTS = {
    Phase.AUCTION: "your bid",
    Phase.TRUMP: "name trump",
    Phase.PASS_TO_DECLARER: "pass a card to your partner",
    Phase.PASS_BACK: "pass a card back to your partner",
    Phase.THROW_IN: "throw or play",
    Phase.PLAY: "your card",
}
COMMANDS = """commands:
  260           bid 260 (bids go up in tens)
  pass / help   pass, or pass with help (tells your partner you hold help)
  hearts / H    name trump
  TS / 10S      pass or play a card (rank 9 J Q K T A, then suit S H D C)
  throw / play  throw the hand in, or play it out (declarer, after meld)
  ?             this help and your legal moves
  quit          stop (Ctrl-D too): the finished hands are summarised and saved"""


@dataclass
class PlayOptions:
    """What ``pinochle-play`` was asked for: the person's seat and the agent specs around it."""

    seat: int = 0
    left: str = "random"
    partner: str = "random"
    right: str = "random"
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    hands: int | None = None  # None: play the game to the target score
    save: str | None = None


class PlaySession:
    """One sitting at the table: the game, the agents, the narration and the person's prompts.

    ``read(prompt)`` returns a line typed by the person (``input`` by default; ``EOFError`` ends
    the session, as ``KeyboardInterrupt`` does anywhere); everything is written to ``out``. ``game`` is the
    game being played (tests read it to pick legal moves).
    """

    def __init__(self, options: PlayOptions, read: Callable[[str], str] = input, out: TextIO | None = None) -> None:
        self.options = options
        self.seat = options.seat
        self.read = read
        self.out = out if out is not None else sys.stdout
        rng = np.random.default_rng(options.seed)
        specs = (options.left, options.partner, options.right)
        self.agents: dict[int, Agent] = {
            (self.seat + relative) % NUM_SEATS: load_agent(spec, seed=int(rng.integers(2**63)))
            for relative, spec in enumerate(specs, start=1)
        }
        self.game = Game(options.rules, rng)
        self.records: list[dict[str, Any]] = []
        self.quit = False
        self._events: list = []
        self._cursor = 0

    # ------------------------------------------------------------------ the main loop

    def run(self) -> list[dict[str, Any]]:
        """Play until the hands asked for are done, the game is won, or the person quits."""
        self._say(self._welcome())
        try:
            self.quit = not self._play()
        except KeyboardInterrupt:  # Ctrl-C, even while an agent thinks: stop like ``quit``
            self.quit = True
        self._say(self._summary())
        return self.records

    def _play(self) -> bool:
        """The hands themselves; ``False`` when the person quits."""
        game = self.game
        while True:
            if game.hand_over or game.to_act == self.seat:
                self._narrate()
            if game.hand_over:
                self.records.append(game.record())
                if self._finished():
                    return True
                game.next_hand()
                continue
            action = self._ask() if game.to_act == self.seat else decide(self.agents[game.to_act], game)
            if action is None:
                return False
            game.apply(action)

    def _finished(self) -> bool:
        hands = self.options.hands
        return self.game.game_over or (hands is not None and len(self.records) >= hands)

    # ------------------------------------------------------------------ the person's turn

    def _ask(self) -> int | None:
        """The person's legal action, asking until one comes; ``None`` to quit."""
        self._say(self._status())
        prompt = f"{PROMPTS[self.game.phase]}{self._pass_progress()}> "
        while True:
            try:
                text = self.read(prompt).strip()
            except EOFError:
                self._say("")
                return None
            if text.lower() in QUIT_WORDS:
                return None
            if text == "?":
                self._say(f"{COMMANDS}\nlegal now: {self._legal_names()}")
            elif text:
                action, problem = self._parse(text)
                if problem is None:
                    return action
                self._say(f"  {problem}; legal now: {self._legal_names()} (? for help)")

    def _parse(self, text: str) -> tuple[int | None, str | None]:
        """``(action, None)`` for legal input, ``(None, reason)`` otherwise."""
        layout = self.game.layout
        try:
            action = layout.from_string(ALIASES.get(text.lower(), text))
        except ValueError as error:
            return None, str(error)
        if action in self.game.legal_actions():
            return action, None
        return None, f"{layout.to_string(action)} is not legal now: {self._why_illegal(action)}"

    def _why_illegal(self, action: int) -> str:
        """A short reason why ``action`` (a valid id) is not legal for the person now."""
        game, layout = self.game, self.game.layout
        phase = game.phase
        if _action_kind(layout, action) != _ACTION_KIND[phase]:
            return f"this is the {_phase_name(phase)}"
        if phase == Phase.AUCTION:
            return self._bid_rule(action)
        card = action - layout.card0
        if not game.hands[self.seat][card]:
            return f"you do not hold {card_to_str(card)}"
        return self._play_rule(card)

    def _bid_rule(self, action: int) -> str:
        """Why an auction call is refused: help switched off, or a bid too low or too high."""
        game, layout = self.game, self.game.layout
        if action == layout.help:
            return "passing with help is switched off (rule pass_with_help=false)"
        bid = layout.bid_value(action)
        if bid <= game.high_bid:
            return f"the high bid is already {game.high_bid}"
        allowed = [layout.bid_value(a) for a in game.legal_actions() if a < layout.num_bids]
        return f"the highest bid allowed now is {max(allowed)}" if allowed else "no bid is possible any more"

    def _play_rule(self, card: int) -> str:
        """Which rule of play a held but illegal ``card`` breaks (the trick has been led)."""
        game = self.game
        return play_refusal(game.hands[self.seat], game.trick, game.trump, card)

    def _legal_names(self) -> str:
        layout = self.game.layout
        return ", ".join(_short(layout.to_string(a)) for a in self.game.legal_actions())

    def _pass_progress(self) -> str:
        game = self.game
        passed = {Phase.PASS_TO_DECLARER: game.passed_to_declarer, Phase.PASS_BACK: game.passed_back}.get(game.phase)
        return "" if passed is None else f" ({len(passed) + 1} of {game.rules.pass_count})"

    # ------------------------------------------------------------------ what the person sees

    def _name(self, seat: int) -> str:
        """``player 1 (left)``: the absolute seat and where it sits from the person's seat."""
        return f"player {seat} ({self._short_name(seat)})"

    def _short_name(self, seat: int) -> str:
        return SEAT_NAMES[(seat - self.seat) % NUM_SEATS]

    def _welcome(self) -> str:
        others = ", ".join(f"{self._name(s)}: {agent.name}" for s, agent in self.agents.items())
        goal = f"{self.options.hands} hand(s)" if self.options.hands else f"a game to {self.game.rules.target_score}"
        return (
            f"Pinochle: you are player {self.seat} (team {team_of(self.seat)}); {others}.\nPlaying {goal}. ? for help."
        )

    def _status(self) -> str:
        """The table as the person's seat sees it, shown before each of their decisions."""
        view = self.game.view(self.seat)
        us, them = team_of(self.seat), 1 - team_of(self.seat)
        lines = [
            f"-- hand {self.game.hand_number + 1}, dealer {self._name(view.dealer)}; "
            f"game score: us {view.totals[us]}, them {view.totals[them]}"
        ]
        if view.phase == Phase.AUCTION:
            calls = ", ".join(f"{self._short_name(s)} {c}" for s, c in view.auction)
            lines.append(f"auction: {calls or '(you open)'}")
        else:
            lines.append(self._contract_line(view))
        if view.meld[0] is not None:
            lines.append("meld: " + ", ".join(f"{self._short_name(s)} {m.points}" for s, m in enumerate(view.meld)))
        if view.phase == Phase.THROW_IN:
            meld = view.meld[self.seat].points + view.meld[(self.seat + 2) % NUM_SEATS].points
            lines.append(f"your team melded {meld}: you need {view.contract - meld} in tricks to make {view.contract}")
        if view.phase == Phase.PLAY:
            lines.extend(self._trick_lines(view))
        lines.append(f"your hand: {format_hand(view.hand)}")
        return "\n".join(lines)

    def _contract_line(self, view: PlayerView) -> str:
        trump = SUIT_NAMES[view.trump] if view.trump >= 0 else "not named yet"
        return f"contract: {view.contract} by {self._name(view.declarer)}; trump: {trump}"

    def _trick_lines(self, view: PlayerView) -> list[str]:
        us = team_of(self.seat)
        played = [
            f"{self._short_name((view.trick_leader + i) % NUM_SEATS)} {card_to_str(c)}"
            for i, c in enumerate(view.trick)
        ]
        return [
            f"trick {len(view.tricks) + 1}: " + (", ".join(played) if played else "your lead"),
            f"tricks: us {view.tricks_won[us]} ({view.trick_points[us]} points), "
            f"them {view.tricks_won[1 - us]} ({view.trick_points[1 - us]} points)",
        ]

    def _narrate(self) -> None:
        """Tell the person what happened since last time, from the events addressed to them."""
        events = self.game.events
        if events is not self._events:  # a new hand (or a redeal): finish the old list first
            self._tell(self._events[self._cursor :])
            self._events, self._cursor = events, 0
        self._tell(events[self._cursor :])
        self._cursor = len(events)

    def _tell(self, events: Sequence[tuple[int, int, Any, int]]) -> None:
        """Say one line per event, one line per run of cards passed by the same seat."""
        for passer, run in groupby(events, key=lambda event: event[1] if event[0] == Event.PASS_CARD else None):
            if passer is not None:
                cards = [value if self._addressed(audience) else None for *_, value, audience in run]
                self._say(self._describe_passes(passer, cards))
                continue
            for kind, who, value, audience in run:
                line = self._describe(Event(kind), who, value, self._addressed(audience))
                if line:
                    self._say(line)

    def _addressed(self, audience: int) -> bool:
        return bool(audience >> self.seat & 1)

    def _describe_passes(self, passer: int, cards: list[int | None]) -> str:
        """Cards passed to the partner: named when the person may see them, else only counted."""
        if None in cards:
            shown = "a card" if len(cards) == 1 else f"{len(cards)} cards"
        else:
            shown = " ".join(card_to_str(card) for card in cards)
        return f"{self._name(passer)} passes {shown} to {self._name((passer + 2) % NUM_SEATS)}"

    def _describe(self, kind: Event, who: int, value: Any, addressed: bool) -> str | None:
        """One line for an event the person may see (``None`` for the others)."""
        if not addressed:
            return None
        name = self._name(who)
        if kind == Event.HAND_START:
            return f"\n== hand {self.game.hand_number + 1}: {name} deals"
        if kind == Event.DEAL:
            return f"your hand: {format_hand(counts_from_cards(value))}"
        if kind == Event.HAND_END:
            return self._hand_result(value)
        return _EVENT_TEXT[kind](name, value)

    def _hand_result(self, value: tuple[tuple[int, int], tuple[int, int]]) -> str:
        (score, totals), game = value, self.game
        us = team_of(self.seat)
        outcome = "thrown in" if game.thrown_in else ("made" if game.made else "set")
        lines = [
            f"hand over: {self._name(game.declarer)} bid {game.contract} and was {outcome}; "
            f"this hand: us {score[us]:+d}, them {score[1 - us]:+d}; game: us {totals[us]}, them {totals[1 - us]}"
        ]
        if game.winner is not None:
            lines.append("you and your partner win the game!" if game.winner == us else "the other team wins the game.")
        return "\n".join(lines)

    def _summary(self) -> str:
        us = team_of(self.seat)
        totals = self.records[-1]["totals"] if self.records else [0, 0]
        lines = [
            "\n== summary" + (" (quit)" if self.quit else ""),
            f"hands finished: {len(self.records)}; score: us {totals[us]}, them {totals[1 - us]}",
        ]
        winner = self.records[-1]["game_winner"] if self.records else None
        if winner is not None:
            lines.append("game won by " + ("your team" if winner == us else "the other team"))
        return "\n".join(lines)

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def _meld_text(name: str, meld: Any) -> str:
    shown = ", ".join(f"{meld_name} {points}" for meld_name, points in meld.melds) or "nothing"
    return f"{name} melds {meld.points}: {shown}"


#: Narration of the events every seat sees, as functions of (seat name, event value).
_EVENT_TEXT: dict[Event, Callable[[str, Any], str]] = {
    Event.BID: lambda name, bid: f"{name} bids {bid}",
    Event.PASS: lambda name, helped: f"{name} passes" + (" with help" if helped else ""),
    Event.STUCK: lambda name, bid: f"three passes: the dealer, {name}, is stuck at {bid}",
    Event.AUCTION_END: lambda name, contract: f"{name} wins the auction at {contract}",
    Event.TRUMP: lambda name, suit: f"{name} names trump: {SUIT_NAMES[suit]}",
    Event.RECEIVE: lambda name, card: f"you receive {card_to_str(card)}",
    Event.MELD: _meld_text,
    Event.THROW_IN: lambda name, thrown: f"{name} " + ("throws the hand in" if thrown else "plays the hand out"),
    Event.PLAY: lambda name, card: f"{name} plays {card_to_str(card)}",
    Event.TRICK_END: lambda name, points: f"  {name} wins the trick ({points} points)",
}


#: What kind of action each decision phase takes (see :func:`_action_kind`).
_ACTION_KIND = {
    Phase.AUCTION: "call",
    Phase.TRUMP: "suit",
    Phase.PASS_TO_DECLARER: "card",
    Phase.PASS_BACK: "card",
    Phase.THROW_IN: "throw-in",
    Phase.PLAY: "card",
}


def _action_kind(layout: ActionLayout, action: int) -> str:
    """``call`` (bid, pass, help), ``suit``, ``card`` or ``throw-in``: the id range of ``action``."""
    if action < layout.trump0:
        return "call"
    if action < layout.card0:
        return "suit"
    return "card" if action < layout.throw_in else "throw-in"


def _phase_name(phase: Phase) -> str:
    """``auction``, ``trump``, ``passing``, ``throw in``, ``play``."""
    if phase in (Phase.PASS_TO_DECLARER, Phase.PASS_BACK):
        return "passing"
    return phase.name.lower().replace("_", " ")


def _short(action_name: str) -> str:
    """An action name as a person would type it: ``260`` rather than ``bid 260``, ``hearts``."""
    for prefix in ("bid ", "trump "):
        if action_name.startswith(prefix):
            return action_name[len(prefix) :]
    return {"throw in": "throw", "play on": "play"}.get(action_name, action_name)


# ---------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-play",
        description="Play partnership Pinochle in the terminal against agents. Type ? at a prompt for help.",
    )
    parser.add_argument("--seat", type=int, choices=range(NUM_SEATS), default=0, help="your seat (default 0)")
    parser.add_argument("--partner", default="random", help="agent spec of your partner (default random)")
    parser.add_argument("--opponents", default="random", help="agent spec of both opponents (default random)")
    parser.add_argument("--left", help="agent spec of the opponent on your left (overrides --opponents)")
    parser.add_argument("--right", help="agent spec of the opponent on your right (overrides --opponents)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="a rule switch (repeatable)")
    parser.add_argument("--seed", type=int, help="seed of the deals and the agents")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hands", type=int, metavar="N", help="play N hands (fewer if the game is won first)")
    length.add_argument("--game", action="store_true", help="play a game to the target score (the default)")
    parser.add_argument("--save", metavar="FILE.jsonl", help="write the finished hands as hand records")
    return parser


def parse_options(argv: Sequence[str] | None = None) -> PlayOptions:
    """Options from the command line; bad values exit through ``argparse`` with the reason."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.hands is not None and args.hands < 1:
        parser.error("--hands must be at least 1")
    if args.save and not Path(args.save).resolve().parent.is_dir():
        parser.error(f"--save: no folder {Path(args.save).resolve().parent}")
    try:
        rules = Rules.from_mapping(dict(parse_rule_assignment(text) for text in args.rule))
    except ValueError as error:
        parser.error(str(error))
    if rules.variant != "partnership":
        parser.error(f"pinochle-play seats a person at the partnership game only, not variant={rules.variant!r}")
    left, right = args.left or args.opponents, args.right or args.opponents
    return PlayOptions(args.seat, left, args.partner, right, rules, args.seed, args.hands, args.save)


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Entry point of ``pinochle-play``; returns the exit status."""
    options = parse_options(argv)
    out = out if out is not None else sys.stdout
    try:
        session = PlaySession(options, read, out)
    except (ValueError, OSError) as error:  # an unknown agent spec, a checkpoint that cannot be read
        build_parser().error(str(error))
    records = session.run()
    if options.save:
        count = write_jsonl(options.save, records)
        print(f"saved {count} hand record(s) to {options.save}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
