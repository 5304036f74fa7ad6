"""The transcript of a hand in docs/bot_protocol.md, made by playing it, never written by hand.

    python docs/bot_transcript.py            # rewrite the block in docs/bot_protocol.md
    python docs/bot_transcript.py --check    # exit 1 if the block differs from a fresh transcript

It plays one hand of the partnership game (the default rules, seed 0) with the Python reference bot
(``examples/random_bot.py``) in seat 0 and ``random`` in the others, through
:func:`agents.program.check.check_bot`, and keeps every line: ``>`` from the table to the bot, ``<``
from the bot. The seeds are fixed, so the transcript is the same on every run;
``tests/agents/program/test_bot_protocol.py`` checks the page against it.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

from agents.program.check import check_bot
from pinochle_env.rules.switches import Rules

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "bot_protocol.md"
_BLOCK = re.compile(r"(<!-- transcript -->\n)(.*?)(<!-- /transcript -->)", re.DOTALL)


def transcript() -> str:
    """The block: every line of one hand between the table and the Python reference bot."""
    lines: list[str] = []
    bot = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'random_bot.py'))}"
    (check,) = check_bot(bot, Rules(), hands=1, seed=0, transcript=lambda way, line: lines.append(f"{way} {line}"))
    if check.errors:
        raise SystemExit(f"the reference bot broke the protocol: {check.errors}")
    return "```\n" + "\n".join(lines) + "\n```\n"


def page_block(text: str) -> str:
    """The transcript block of the page, as it stands."""
    match = _BLOCK.search(text)
    if match is None:
        raise SystemExit(f"{PAGE} has no <!-- transcript --> block")
    return match[2]


def main() -> int:
    parser = argparse.ArgumentParser(description="Rewrite (or --check) the transcript in docs/bot_protocol.md.")
    parser.add_argument("--check", action="store_true", help="only say whether the block is up to date")
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    fresh = transcript()
    if args.check:
        current = page_block(text) == fresh
        print("up to date" if current else f"{PAGE.name}: the transcript differs; run python docs/bot_transcript.py")
        return 0 if current else 1
    page_block(text)
    PAGE.write_text(_BLOCK.sub(lambda match: match[1] + fresh + match[3], text), encoding="utf-8")
    print(f"transcript written to {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
