"""``pinochle-bot-check``: play a few hands against a bot program and report every protocol error.

Usage::

    pinochle-bot-check "python3 examples/random_bot.py"              # 4 hands of the partnership game
    pinochle-bot-check "node examples/random_bot.js" --hands 6 --rule variant=cutthroat
    pinochle-bot-check "./mybot --level 3" --timeout 2 --transcript talk.txt  # every line, both ways

Each hand is a match of its own, the bot in seat ``hand mod seats`` and ``--opponent`` (default
``random``) in the others, and the matches follow one another in one process, as in the arena
(a bot that exits after its first match fails the second). A hand where the bot breaks the
protocol (an answer that is not JSON, not an action, not legal, too late; a crash) is reported with
the bot's message, the decision and the end of its standard error, and the check goes on with the
next hand in a new process; so is a bot that does not exit once its input ends. The exit status is
1 when any hand found an error, 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pinochle_env import VERSION_LINE
from pinochle_env.games.kit import new_game
from pinochle_env.rules.switches import PRESETS, Rules, rules_from_command_line

from ..base import Agent, check_plays, close, decide, tell_hand_over
from ..registry import load_agent
from .agent import DEFAULT_TIMEOUT, MAX_TIMEOUT, BotError, ProgramAgent, parse_command


@dataclass(frozen=True)
class HandCheck:
    """What one hand found: the bot's seat, its decisions, and the protocol errors (none: all well)."""

    hand: int
    seat: int
    decisions: int
    errors: tuple[str, ...]


def check_bot(
    command: str,
    rules: Rules,
    hands: int = 4,
    seed: int = 0,
    timeout: float = DEFAULT_TIMEOUT,
    opponent: str = "random",
    transcript: Callable[[str, str], None] | None = None,
) -> list[HandCheck]:
    """Play ``hands`` hands, each a match of its own in the same process (a new one after an error),
    with the bot of ``command`` in seat ``hand mod seats`` and ``opponent`` in the others; what each
    hand found. ``transcript(direction, line)`` hears every line between the table and the bot."""
    checks = []
    bot = ProgramAgent(None, command, timeout, transcript)
    for hand in range(hands):
        seat = hand % rules.num_seats
        rng = np.random.default_rng([seed, hand])
        bot.reset(int(rng.integers(2**31)))
        agents: dict[int, Agent] = {
            other: load_agent(opponent, int(rng.integers(2**31))) for other in range(rules.num_seats) if other != seat
        }
        agents[seat] = bot
        game = new_game(rules, rng)
        decisions, errors = 0, []
        try:
            while not game.hand_over:
                decisions += game.to_act == seat
                game.apply(decide(agents[game.to_act], game))
            tell_hand_over(agents, game)
            bot.reset()  # match_end
        except BotError as error:
            errors.append(str(error))
        problem = bot.finish() if hand == hands - 1 else None
        if problem is not None:
            errors.append(f"bot {bot.name!r} at the end of its match: {problem}")
        for other, agent in agents.items():
            if other != seat:
                close(agent)
        checks.append(HandCheck(hand, seat, decisions, tuple(errors)))
    return checks


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-bot-check",
        description="Play a few hands against a bot program (docs/bot_protocol.md) and report every protocol error.",
        epilog='Example: pinochle-bot-check "python3 examples/random_bot.py" --hands 6 --rule variant=cutthroat',
    )
    parser.add_argument("command", help="the bot's command, one string, split as a shell would (never run by one)")
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument("--hands", type=int, default=4, help="hands to play, each a match of its own (default 4)")
    parser.add_argument("--rules-preset", choices=list(PRESETS), help="named rule set to start from")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="rule switch (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents (default 0)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit per decision (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("--opponent", default="random", metavar="SPEC", help="agent spec of the other seats")
    parser.add_argument("--transcript", type=Path, metavar="FILE", help="write every line, both ways, to FILE")
    return parser


def transcript_problem(path: Path) -> str:
    """Why the transcript cannot be written to ``path`` once the hands are played (empty when it can),
    checked before they are, so that a bad path does not lose them."""
    folder = path.absolute().parent
    if path.is_dir():
        return "is a folder"
    if path.exists():  # a file (or /dev/stdout) written in place: its folder need not be writable
        return "" if os.access(path, os.W_OK) else "cannot be written"
    if not folder.is_dir():
        return f"{folder} is not a folder" if folder.exists() else f"the folder {folder} does not exist"
    return "" if os.access(folder, os.W_OK | os.X_OK) else f"the folder {folder} cannot be written"


def range_problem(args: argparse.Namespace) -> str:
    """The first numeric option out of its range, named with the range and the value given, as
    ``pinochle-arena`` words its own (empty when all are in range)."""
    if args.hands < 1:
        return f"--hands must be at least 1, got {args.hands}"
    if not 0 < args.timeout <= MAX_TIMEOUT:  # nan as well
        return f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:,.0f}, got {args.timeout:g}"
    if args.seed < 0:
        return f"--seed must be >= 0, got {args.seed}"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """The console script: 0 when every hand went by the protocol, 1 when one did not, 2 for a bad command line."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        parse_command(args.command)
        rules = rules_from_command_line(args.rules_preset, args.rule)
        problem = range_problem(args)
        if problem:
            raise ValueError(problem)
        if args.transcript is not None:
            problem = transcript_problem(args.transcript)
            if problem:
                raise ValueError(f"--transcript {args.transcript}: {problem}")
        check_plays(load_agent(args.opponent), rules)
    except ValueError as error:
        parser.error(str(error))
    lines: list[str] = []
    checks = check_bot(
        args.command, rules, args.hands, args.seed, args.timeout, args.opponent,
        (lambda direction, line: lines.append(f"{direction} {line}")) if args.transcript else None,
    )  # fmt: skip
    if args.transcript:
        args.transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for check in checks:
        verdict = "ok" if not check.errors else f"{len(check.errors)} error(s)"
        print(f"hand {check.hand}, bot in seat {check.seat}: {check.decisions} decisions, {verdict}")
        for problem in check.errors:
            print(f"  {problem}")
    errors = sum(len(check.errors) for check in checks)
    print(f"{len(checks)} hands of the {rules.variant} game, {errors} protocol error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
