"""``pinochle-web``: a local web app to play Pinochle against agents, replay hands and read arena results.

Usage::

    pinochle-web                                   # http://127.0.0.1:8765/, records under runs/web/
    pinochle-web --open runs/web runs/arena/hr     # replay hand records, show an arena run
    pinochle-web --open runs/long1/policy.pt       # offer a checkpoint as an agent and for replay analysis
    pinochle-web --rules-preset pagat --rule head_rule=led_card --port 9000
    pinochle-web --allow-programs                  # tables may seat program:cmd=... bots (they run commands)

It binds to 127.0.0.1 (only this machine can connect) unless ``--host`` says otherwise, warns
when a bind reaches further, answers only requests whose ``Host`` header names the server
(:mod:`.hosts`; ``--allow-host`` adds a name), and reads only its own assets and what ``--open``
and ``--records`` name. Every finished hand of a
table is appended to a file under ``--records`` at once (a hand still in progress when the server
stops is lost). ``--pace`` is the pause, in seconds, before each agent's move, so that a person
can follow the play. Needs the ``web`` extra: ``pip install -e ".[web]"``.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.extras import exit_for_missing_extra
from pinochle_env import VERSION_LINE
from pinochle_env.rules.switches import PRESETS, rules_from_command_line

from .hosts import allowed_hosts, check_host_name, is_loopback
from .limits import MAX_PACE, MAX_WORKERS
from .settings import Settings

MAX_PORT = 65535


def number_in(kind: Callable[[str], float], low: float, high: float, what: str) -> Callable[[str], float]:
    """An ``argparse`` type: ``kind(text)`` if it lies in ``low..high`` (NaN never does), else a
    one-line error saying what the value must be."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value

    return parse


def bind_argument(text: str) -> str:
    """An ``argparse`` type: the address ``--host`` binds to, not empty (the socket would take
    ``""`` for every interface, and announce ``http://:PORT/``: an unset variable widening the bind)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is no address: 127.0.0.1 listens for this machine only, 0.0.0.0 on every interface"
        )
    return text


def host_argument(text: str) -> str:
    """An ``argparse`` type: a name ``--allow-host`` accepts."""
    try:
        return check_host_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-web",
        description="A local web app: play Pinochle against agents, replay hands, read arena results.",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        type=bind_argument,
        help="address to listen on (default 127.0.0.1: only this machine; another address is warned about)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        type=host_argument,
        metavar="NAME",
        help="also answer requests whose Host header is NAME (repeatable); the bound name and address, and "
        "the loopback names on a loopback bind, are always answered",
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    parser.add_argument(
        "--port",
        type=number_in(int, 0, MAX_PORT, f"a port number 0..{MAX_PORT}"),
        default=8765,
        help=f"port 0..{MAX_PORT} (default 8765; 0 picks a free one)",
    )
    parser.add_argument("--records", default="runs/web", metavar="DIR", help="folder of the tables' hand records")
    parser.add_argument(
        "--open",
        nargs="+",
        action="extend",
        default=[],
        metavar="PATH",
        help="hand-record files, arena folders or results.jsonl, checkpoints (.pt), or folders holding them",
    )
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="a rule switch of new tables")
    parser.add_argument("--rules-preset", choices=sorted(PRESETS), default="default", help="rule preset of new tables")
    parser.add_argument(
        "--pace",
        type=number_in(float, 0.0, MAX_PACE, f"a pause in seconds 0..{MAX_PACE:g}"),
        default=0.5,
        metavar="SECONDS",
        help=f"pause before each agent's move (default 0.5, at most {MAX_PACE:g})",
    )
    parser.add_argument(
        "--workers",
        type=number_in(int, 1, MAX_WORKERS, f"a number of threads 1..{MAX_WORKERS}"),
        default=4,
        help=f"threads for the agents' moves (default 4, at most {MAX_WORKERS})",
    )
    parser.add_argument(
        "--allow-programs",
        action="store_true",
        help="let tables seat bot programs (program:cmd=COMMAND runs COMMAND on this machine)",
    )
    return parser


def parse_settings(argv: Sequence[str] | None = None) -> tuple[Settings, argparse.Namespace]:
    """Settings from the command line; a bad value exits through ``argparse`` with the reason."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rules = rules_from_command_line(args.rules_preset, args.rule)
    except ValueError as error:
        parser.error(str(error))
    missing = [path for path in args.open if not os.path.exists(path)]
    if missing:
        parser.error(f"--open: no such file or folder: {', '.join(missing)}")
    records = Path(args.records)
    try:
        records.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"--records: cannot make {records}: {error.strerror}")
    if not os.access(records, os.W_OK):
        parser.error(f"--records: cannot write to {records}")
    hosts = allowed_hosts(args.host, args.allow_host)
    paths = tuple(Path(p) for p in args.open)
    settings = Settings(rules, records, paths, args.pace, args.workers, hosts, allow_programs=args.allow_programs)
    return settings, args


def announce(host: str, port: int, settings: Settings) -> None:
    """The start-up lines: where it serves, who can reach it (a WARNING, on standard error, when
    more than this machine can), the ``Host`` names it answers, where the records go."""
    shown_host = f"[{host}]" if ":" in host else host
    print(f"pinochle-web: serving on http://{shown_host}:{port}/", flush=True)
    if is_loopback(host):
        print(f"  bound to {host}: only this machine can connect (--host 0.0.0.0 to share it)", flush=True)
    else:
        print(
            f"WARNING: bound to {host}, not a loopback address: anyone who can reach this machine on port {port} "
            "can open tables (agents then think on this machine), replay and read every file that --open and "
            "--records name, and write hand records; there is no login",
            file=sys.stderr,
            flush=True,
        )
    names = ", ".join(settings.allowed_hosts)
    print(f"  answers requests addressed to: {names} (--allow-host NAME adds one)", flush=True)
    print(f"  hand records of the tables go to {settings.records}/ (a hand in progress is lost on exit)", flush=True)


SWITCH_INTERVAL = 0.0005  # seconds: how long a thread may hold the GIL while another waits


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``pinochle-web``: serve until interrupted."""
    settings, args = parse_settings(argv)
    try:
        import uvicorn

        from .app import create_app
    except ImportError as error:
        exit_for_missing_extra("pinochle-web", "web", "the web app", error)
    try:
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((args.host, args.port))
    except OSError as error:
        build_parser().error(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    announce(args.host, listener.getsockname()[1], settings)
    # The agents think in threads of this process, in pure Python: at the default GIL switch interval
    # (5 ms) each hand-over between them and the request handlers waits its turn, and a request
    # took up to 0.46 s while pimc searched; at 0.5 ms requests are answered within about 50 ms.
    sys.setswitchinterval(SWITCH_INTERVAL)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning", access_log=False))
    server.run(sockets=[listener])
    return 0


if __name__ == "__main__":
    sys.exit(main())
