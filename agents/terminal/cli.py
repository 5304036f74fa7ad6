"""``pinochle-play``: play Pinochle in the terminal against agents, in any of the three games.

The game is the rules' ``variant``: the partnership game (the default), ``--rule variant=cutthroat``
(three players, each for itself, a widow the declarer takes and 3 cards it buries) or ``--rule
variant=two_hand`` (two players, turn-up trump, a stock to draw from and a meld turn after each
trick won while it lasts). ``--rules-preset NAME`` starts from a named rule set and each ``--rule
NAME=VALUE`` changes one switch over it.

You take a seat (``--seat``, default 0); the other seats are agent specs as the arena takes them
(``random``, ``heuristic``, ``pimc:samples=32``, ``checkpoint:PATH``, ``mix:...``, a bot program
``program:cmd=COMMAND``; all default to ``random``), named as the game's kit names the seats:
``--opponents`` for every opponent (alias ``--opponent``), ``--left`` / ``--right`` for one of
them, ``--partner`` in the partnership game.
Each agent is checked against the game at start-up (an agent that cannot play it is a usage
error). ``--seed`` makes the deals and the agents reproducible, ``--hands N`` plays N hands (fewer
if the game is won first) and ``--game`` (the default) plays to the target score. ``--save
FILE.jsonl`` appends each hand as a hand record as soon as it is finished (records are JSON lines, so
an existing file is added to, never truncated; nothing is written when no hand is finished).

Type moves by name (with line editing and history where Python has ``readline``): a bid (``260``),
``pass``, ``help`` (pass with help), a suit for trump (``hearts`` or ``H``), a card to pass, bury or
play (``TS``, ``10S``, ``qd``; several cards at once where several are passed or buried: ``AC TC``),
``throw`` / ``play`` for the throw-in choice, a meld in the two-handed game's meld turn (``run``,
``marriage H``, ``dix exchange``, ``no meld``). A card
that is the only legal one is played without asking. ``?`` shows the commands and your legal
moves, ``last`` the last trick, ``meld`` the meld on the table, ``rules`` the rules in words;
``quit`` or end of input (Ctrl-D) stops with a summary. Anything not understood or not legal is
refused with the reason, and you are asked again.

You see only what your seat may know: the table is narrated from your seat's information-set
views (:mod:`agents.terminal.tables` and each game's table module), and the agents get only their
own views (through :func:`agents.base.decide`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from pinochle_env import VERSION_LINE
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import PRESETS, rules_from_command_line

from ..base import AgentError
from .session import PlayOptions, PlaySession

HELP_EPILOG = """examples:
  pinochle-play --partner heuristic --opponents heuristic
  pinochle-play --rule variant=cutthroat --opponents heuristic --hands 3
  pinochle-play --rule variant=two_hand --opponent heuristic --seat 1
  pinochle-play --rules-preset casual --rule counting=classic --save hands.jsonl
  pinochle-play --opponents "program:cmd=python3 examples/random_bot.py"   # a bot program (docs/bot_protocol.md)

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
        help=f"a named rule set to start from: {', '.join(PRESETS)} (default: docs/rules.md's standard rules)",
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
    parser.add_argument(
        "--save",
        metavar="FILE.jsonl",
        help="append each finished hand to FILE as a hand record (JSON lines; an existing file is added to)",
    )
    return parser


def parse_options(argv: Sequence[str] | None = None) -> PlayOptions:
    """Options from the command line; bad values exit through ``argparse`` with the reason."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.hands is not None and args.hands < 1:
        parser.error("--hands must be at least 1")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.save is not None and not args.save.strip():  # an unset variable: no hand would be saved
        parser.error(f"--save {args.save!r} names no file")
    if args.save:
        problem = save_problem(Path(args.save))
        if problem:
            parser.error(f"--save {args.save}: {problem}")
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


def save_problem(path: Path) -> str:
    """Why hand records cannot be appended to ``path`` (empty: they can), found before the first
    hand rather than when it ends, so that no hand is lost."""
    folder = path.resolve().parent
    if path.is_dir():
        return "is a folder; name a file (hand records are appended to it)"
    if not folder.is_dir():
        return f"no folder {folder}"
    if path.exists() and not (path.is_file() and os.access(path, os.W_OK)):
        return "exists and cannot be written"
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} cannot be written"
    return ""


def explain_rule_error(message: str) -> str:
    """A rule error as the command prints it: where it lists the value ``seed``, say what that is."""
    if "'seed'" in message:
        message += (
            "\n('seed' is what docs/rules.md calls its standard bidding and throw-in rules, not a random seed; "
            "--seed N seeds the deals)"
        )
    return message


def enable_line_editing() -> None:
    """Give ``input`` line editing and history through the standard library's ``readline``, where
    this Python has it (not on Windows): without it the arrow keys reach the move as escape codes
    (``'26\\x1b[D5'``)."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (importing it is what turns line editing on)


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Entry point of ``pinochle-play``; returns the exit status."""
    options = parse_options(argv)
    if read is input:
        enable_line_editing()
    out = out if out is not None else sys.stdout
    try:
        session = PlaySession(options, read, out)
    except (ValueError, OSError) as error:  # an unknown agent spec, a checkpoint that cannot be read
        build_parser().error(str(error))
    try:
        records = session.run()
    except AgentError as error:  # an agent's own failure (a bot program that broke the protocol)
        print(f"pinochle-play: error: {error}", file=sys.stderr)
        return 1
    if options.save and records:
        print(f"saved {len(records)} hand record(s) to {options.save}", file=out)
    elif options.save:
        print(f"no hand was finished, so {options.save} was not written", file=out)
    return 0
