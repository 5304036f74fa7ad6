"""``pinochle-play``: play Pinochle in the terminal against agents, in any of the three games.

The game is the rules' ``variant``: the partnership game (the default), ``--rule variant=cutthroat``
(three players, each for itself, a widow the declarer takes and 3 cards it buries) or ``--rule
variant=two_hand`` (two players, turn-up trump, a stock to draw from and a meld turn after each
trick won while it lasts). ``--rules-preset NAME`` starts from a named rule set and each ``--rule
NAME=VALUE`` changes one switch over it.

You take a seat (``--seat``, default 0); the other seats are agent specs as the arena takes them
(``random``, ``heuristic``, ``pimc:samples=32``, ``checkpoint:PATH``, ``mix:...``; all default to
``random``), named as the game's kit names the seats: ``--opponents`` for every opponent (alias
``--opponent``), ``--left`` / ``--right`` for one of them, ``--partner`` in the partnership game.
Each agent is checked against the game at start-up (an agent that cannot play it is a usage
error). ``--seed`` makes the deals and the agents reproducible, ``--hands N`` plays N hands (fewer
if the game is won first) and ``--game`` (the default) plays to the target score. ``--save
FILE.jsonl`` writes each hand as a hand record as soon as it is finished (nothing when no hand is
finished).

Type moves by name: a bid (``260``), ``pass``, ``help`` (pass with help), a suit for trump
(``hearts`` or ``H``), a card to pass, bury or play (``TS``, ``10S``, ``qd``; several cards at once
where several are passed or buried: ``AC TC``), ``throw`` / ``play`` for the throw-in choice, a meld
in the two-handed game's meld turn (``run``, ``marriage H``, ``dix exchange``, ``no meld``). A card
that is the only legal one is played without asking. ``?`` shows the commands and your legal
moves, ``last`` the last trick, ``meld`` the meld on the table, ``rules`` the rules in words;
``quit`` or end of input (Ctrl-D) stops with a summary. Anything not understood or not legal is
refused with the reason, and you are asked again.

You see only what your seat may know: the table is narrated from your seat's information-set
views (:mod:`agents.play_tables`), and the agents get only their own views (through
:func:`agents.base.decide`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from pinochle_env import VERSION_LINE
from pinochle_env.records import write_jsonl
from pinochle_env.switches import PRESETS, Rules, rules_from_command_line
from pinochle_env.variants import variant_kit

from .base import Agent, check_plays, decide
from .play_tables import Table, table_for
from .registry import load_agent

QUIT_WORDS = ("quit", "exit", "q")
COMMANDS = """commands:
{moves}
  last          show the last trick
  meld          show the meld on the table
  rules         show the rules of this game
  ?             this help and your legal moves
  quit          stop (Ctrl-D too): the finished hands are summarised and saved"""


@dataclass
class PlayOptions:
    """What ``pinochle-play`` was asked for: the person's seat and the agent specs around it.

    ``opponents`` plays every opponent unless ``left`` or ``right`` names one; ``partner`` is the
    partnership game's partner.
    """

    seat: int = 0
    opponents: str = "random"
    partner: str = "random"
    left: str | None = None
    right: str | None = None
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    hands: int | None = None  # None: play the game to the target score
    save: str | None = None

    def spec_for(self, seat_name: str) -> str:
        """The agent spec of the seat the game's kit names ``seat_name`` (``left``, ``partner``, ``opponent``...)."""
        if seat_name == "partner":
            return self.partner
        own = {"left": self.left, "right": self.right}.get(seat_name)
        return own if own is not None else self.opponents


class PlaySession:
    """One sitting at the table: the game, the agents, the narration and the person's prompts.

    ``read(prompt)`` returns a line typed by the person (``input`` by default; ``EOFError`` ends
    the session, as ``KeyboardInterrupt`` does anywhere); everything is written to ``out``. ``game`` is the
    game being played (tests read it to pick legal moves); ``table`` tells the person about it.
    """

    def __init__(self, options: PlayOptions, read: Callable[[str], str] = input, out: TextIO | None = None) -> None:
        self.options = options
        self.seat = options.seat
        self.read = read
        self.out = out if out is not None else sys.stdout
        kit = variant_kit(options.rules)
        rng = np.random.default_rng(options.seed)
        self.agents: dict[int, Agent] = {}
        if not 0 <= self.seat < kit.num_seats:
            raise ValueError(f"seat {self.seat}: the {options.rules.variant} game has seats 0..{kit.num_seats - 1}")
        for relative in range(1, kit.num_seats):
            seat, seat_name = (self.seat + relative) % kit.num_seats, kit.seat_names[relative]
            agent = load_agent(options.spec_for(seat_name), seed=int(rng.integers(2**63)))
            try:
                check_plays(agent, options.rules)
            except ValueError as error:
                raise ValueError(f"player {seat} ({seat_name}), {agent.name}: {error}") from None
            self.agents[seat] = agent
        self.game: Any = kit.new_game(rng)
        bold = self.out.isatty() and not os.environ.get("NO_COLOR")  # https://no-color.org
        self.table: Table = table_for(options.rules, self.seat, self.game.layout, self._print, bold)
        self.records: list[dict[str, Any]] = []
        self.quit = False
        self._view: Any = None

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
        self._start_hand()
        while True:
            if game.hand_over:
                record = game.record()
                for line in self.table.hand_result(record):
                    self._say(line)
                self._keep(record)
                if self._finished():
                    return True
                game.next_hand()
                self._start_hand()
                continue
            actor = game.to_act
            forced = actor == self.seat and self._forced_card()
            if forced:
                actions: list[int] | None = game.legal_actions()
            else:
                actions = self._ask() if actor == self.seat else [decide(self.agents[actor], game)]
            if actions is None:
                return False
            for action in actions:
                game.apply(action)
                before, self._view = self._view, game.view(self.seat)
                self.table.narrate(before, self._view, actor, forced)

    def _keep(self, record: dict[str, Any]) -> None:
        """Keep a finished hand, and write it to ``--save`` at once: the first truncates the file,
        the others are appended, so a session that ends early never leaves an empty file and never
        loses a finished hand."""
        if self.options.save:
            write_jsonl(self.options.save, [record], append=bool(self.records))
        self.records.append(record)

    def _start_hand(self) -> None:
        self._view = self.game.view(self.seat)
        self.table.start_hand(self._view, self.game.hand_number)

    def _finished(self) -> bool:
        hands = self.options.hands
        return self.game.game_over or (hands is not None and len(self.records) >= hands)

    # ------------------------------------------------------------------ the person's turn

    def _forced_card(self) -> bool:
        """Whether the person's card to play is forced (one legal card): it is played without asking."""
        return self._view.phase.decision == "play" and len(self._view.legal_actions) == 1

    def _ask(self) -> list[int] | None:
        """The person's legal actions (one, or several cards passed at once), asking until they
        come; ``None`` to quit."""
        view = self._view
        for line in self.table.status(view, self.game.hand_number):
            self._say(line)
        prompt = f"{self.table.prompt(view)}> "
        while True:
            try:
                text = self.read(prompt).strip()
            except EOFError:
                self._say("")
                return None
            if text.lower() in QUIT_WORDS:
                return None
            shows = {"last": self.table.last_trick, "meld": self.table.meld_table}.get(text.lower())
            if text == "?":
                self._say(f"{COMMANDS.format(moves=self.table.MOVES)}\nlegal now: {self._legal_names()}")
            elif shows is not None:
                for line in shows(view):
                    self._say(line)
            elif text.lower() == "rules":
                for line in self.table.rules_lines():
                    self._say(line)
            elif text:
                actions, problem = self._parse(text)
                if problem is None:
                    return actions
                self._say(f"  {problem}; legal now: {self._legal_names()} (? for help)")

    def _parse(self, text: str) -> tuple[list[int], str | None]:
        """``(actions, None)`` for legal input, ``([], reason)`` otherwise. Where the person passes
        (or buries) several cards, they may type them at once (``AC TC``): all are checked, in
        turn, on a copy of the game before any is taken."""
        words = text.replace(",", " ").split()
        left = self.table.cards_to_pass(self._view)
        if left is None or len(words) == 1:
            action, problem = self._parse_one(text, self.game)
            return ([action], None) if problem is None else ([], problem)
        if len(words) > left:
            return [], f"you have {left} card(s) left to {self.table.PASS_VERB}, not {len(words)}"
        game, actions = self.game.clone(), []
        for word in words:
            action, problem = self._parse_one(word, game)
            if problem is not None:
                return [], f"{problem} (none of {' '.join(words)} taken)"
            game.apply(action)
            actions.append(action)
        return actions, None

    def _parse_one(self, text: str, game: Any) -> tuple[int, str | None]:
        """``(action, None)`` when ``text`` is one action legal in ``game``, ``(-1, reason)`` otherwise."""
        try:
            action = self.table.parse(text)
        except ValueError as error:
            return -1, str(error)
        if action in game.legal_actions():
            return action, None
        reason = self.table.why_illegal(game.view(self.seat), action)
        return -1, f"{game.layout.to_string(action)} is not legal now: {reason}"

    def _legal_names(self) -> str:
        return self.table.legal_names(self.game.legal_actions())

    # ------------------------------------------------------------------ what the person sees

    def _welcome(self) -> str:
        table = self.table
        others = ", ".join(f"{table.name(s)}: {agent.name}" for s, agent in self.agents.items())
        goal = f"{self.options.hands} hand(s)" if self.options.hands else f"a game to {self.game.rules.target}"
        return (
            f"Pinochle, {table.GAME_NAME}: you are player {self.seat}{table.seat_note()}; {others}.\n"
            f"Playing {goal}, {table.rules_note()} ('rules' explains them). ? for help."
        )

    def _summary(self) -> str:
        table = self.table
        totals = self.records[-1]["totals"] if self.records else [0] * (max(table.teams) + 1)
        lines = [
            "\n== summary" + (" (quit)" if self.quit else ""),
            f"hands finished: {len(self.records)}; score: {table.scores(totals)}",
        ]
        winner = self.records[-1]["game_winner"] if self.records else None
        if winner is not None:
            lines.append(f"game won by {table.winner_name(winner)}")
        return "\n".join(lines)

    def _say(self, text: str) -> None:
        self.table.flush()
        self._print(text)

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)


# ---------------------------------------------------------------------- command line


HELP_EPILOG = """examples:
  pinochle-play --partner heuristic --opponents heuristic
  pinochle-play --rule variant=cutthroat --opponents heuristic --hands 3
  pinochle-play --rule variant=two_hand --opponent heuristic --seat 1
  pinochle-play --rules-preset casual --rule counting=classic --save hands.jsonl

At a prompt: ? for the commands and your legal moves, 'last' for the last trick, 'meld' for the
meld on the table, 'rules' for the rules in words, 'quit' (or Ctrl-D) to stop."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-play",
        description=(
            "Play Pinochle in the terminal against agents: the partnership game (four players),\n"
            "--rule variant=cutthroat (three players) or --rule variant=two_hand (two)."
        ),
        epilog=HELP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat: 0..3, 0..2 in cutthroat, 0..1 two-handed (default 0)"
    )
    parser.add_argument(
        "--opponents",
        "--opponent",
        default="random",
        metavar="SPEC",
        help="agent spec of every opponent (default random)",
    )
    parser.add_argument(
        "--partner", metavar="SPEC", help="agent spec of your partner (partnership game; default random)"
    )
    parser.add_argument("--left", metavar="SPEC", help="agent spec of the opponent on your left (over --opponents)")
    parser.add_argument("--right", metavar="SPEC", help="agent spec of the opponent on your right (over --opponents)")
    parser.add_argument(
        "--rules-preset",
        metavar="NAME",
        help=f"a named rule set to start from: {', '.join(PRESETS)} (default: RULES.md's standard rules)",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule switch over the preset, e.g. variant=two_hand or head_rule=led_card (repeatable)",
    )
    parser.add_argument("--seed", type=int, help="random seed of the deals and the agents (not the rule value 'seed')")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hands", type=int, metavar="N", help="play N hands (fewer if the game is won first)")
    length.add_argument("--game", action="store_true", help="play a game to the target score (the default)")
    parser.add_argument("--save", metavar="FILE.jsonl", help="write each finished hand as a hand record")
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
        rules = rules_from_command_line(args.rules_preset, args.rule)
    except ValueError as error:
        parser.error(explain_rule_error(str(error)))
    kit, game = variant_kit(rules), f"the {rules.variant} game"
    if not 0 <= args.seat < kit.num_seats:
        parser.error(f"--seat {args.seat}: {game} has seats 0..{kit.num_seats - 1}")
    for flag in ("partner", "left", "right"):
        if getattr(args, flag) is not None and flag not in kit.seat_names:
            others = ", ".join(f"--{name}" for name in kit.seat_names[1:] if name != "opponent") or "--opponent"
            parser.error(f"--{flag}: {game} has no {flag} seat; its other seats: {others} (or --opponents)")
    return PlayOptions(
        seat=args.seat,
        opponents=args.opponents,
        partner=args.partner or "random",
        left=args.left,
        right=args.right,
        rules=rules,
        seed=args.seed,
        hands=args.hands,
        save=args.save,
    )


def explain_rule_error(message: str) -> str:
    """A rule error as the command prints it: where it lists the value ``seed``, say what that is."""
    if "'seed'" in message:
        message += (
            "\n('seed' is what RULES.md calls its standard bidding and throw-in rules, not a random seed; "
            "--seed N seeds the deals)"
        )
    return message


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Entry point of ``pinochle-play``; returns the exit status."""
    options = parse_options(argv)
    out = out if out is not None else sys.stdout
    try:
        session = PlaySession(options, read, out)
    except (ValueError, OSError) as error:  # an unknown agent spec, a checkpoint that cannot be read
        build_parser().error(str(error))
    records = session.run()
    if options.save and records:
        print(f"saved {len(records)} hand record(s) to {options.save}", file=out)
    elif options.save:
        print(f"no hand was finished, so {options.save} was not written", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
