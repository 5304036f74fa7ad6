"""A person's seat at a table in the terminal: :class:`PlaySession` asks for moves, narrates, keeps
score and saves hand records (its options: :class:`PlayOptions`; the command line: :mod:`.cli`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import View
from pinochle_env.records import write_jsonl
from pinochle_env.rules.switches import Rules

from ..base import Agent, check_plays, close, decide, tell_hand_over
from ..registry import load_agent
from .tables import Table, table_for

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
        self.table: Table[Any] = table_for(options.rules, self.seat, self.game.layout, self._print, bold)
        self.records: list[dict[str, Any]] = []
        self.quit = False
        self._view: View = self.game.view(self.seat)  # the person's view, anew after every action

    # ------------------------------------------------------------------ the main loop

    def run(self) -> list[dict[str, Any]]:
        """Play until the hands asked for are done, the game is won, or the person quits."""
        self._say(self._welcome())
        try:
            self.quit = not self._play()
        except KeyboardInterrupt:  # Ctrl-C, even while an agent thinks: stop like ``quit``
            self.quit = True
        finally:
            for agent in self.agents.values():
                close(agent)
        self._say(self._summary())
        return self.records

    def _play(self) -> bool:
        """The hands themselves; ``False`` when the person quits."""
        game = self.game
        self._start_hand()
        while True:
            if game.hand_over:
                tell_hand_over(self.agents, game)
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
        """Keep a finished hand, and append it to ``--save`` at once: a session that ends early
        never leaves an empty file and never loses a finished hand, and the hands of an earlier
        session in the same file stay."""
        if self.options.save:
            write_jsonl(self.options.save, [record], append=True)
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
                self._say(f"{COMMANDS.format(moves=self.table.moves())}\nlegal now: {self._legal_names()}")
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
            if problem is not None and self._parse_one(word, self.game)[1] is None:  # legal alone: named too often
                problem = f"{word} is named more times than you hold it"
            if problem is not None:
                return [], f"{problem} (none of {' '.join(words)} taken)"
            game.apply(action)
            actions.append(action)
        return actions, None

    def _parse_one(self, text: str, game: Any) -> tuple[int, str | None]:
        """``(action, None)`` when ``text`` is one action legal in ``game``, ``(-1, reason)`` otherwise."""
        try:
            action = self.table.parse(text, game.view(self.seat))
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
