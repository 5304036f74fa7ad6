"""Screenshots of the web app's three pages, for docs/web.md and the README.

    python docs/web_screenshots.py               # docs/web_play.png, docs/web_replay.png, docs/web_arena.png
    python docs/web_screenshots.py --out /tmp    # elsewhere

It starts the real ``pinochle-web`` on a free port (on hands the bots play and a short arena run
it makes in a temporary folder), sits down at a partnership table against the heuristic and
clicks to the fourth trick, replays a hand with ``checkpoint:bundled``'s probabilities at player
0's first card, and opens the arena run. The seeds are fixed, so a rerun draws the same pages.
Needs Chromium (``apt-get install chromium``) and Playwright (the dev extra).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from pinochle_env.records import decisions, read_jsonl
from pinochle_web.catalogue import entry_id

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: its tests' web material
from tests.web.demo import (
    CHROMIUM_ARGS,
    CHROMIUM_INSTALL,
    background_server,
    bot_hands,
    chromium_path,
    small_arena,
)

VIEWPORT = {"width": 1400, "height": 980}


def table_page(page, url: str, out: Path) -> None:
    """A partnership table in its fourth trick, the person to play: passes in the auction, then
    clicks the first legal choice."""
    page.goto(url + "/")
    page.fill("#seed", "21")
    page.click("#sit-down")
    page.wait_for_url(re.compile(r"/play\?table="))
    for _ in range(200):
        page.wait_for_selector("#prompt, #summary")
        if page.query_selector("#summary"):
            raise RuntimeError("the hand ended before the fourth trick: try another seed")
        played = page.inner_text(".centre-notes")
        if page.inner_text("#prompt").startswith("Play") and "tricks played: 3" in played:
            break
        passing = page.query_selector("#actions button:text-is('pass')")
        target = passing or page.query_selector(".card-wrap.legal, #actions button")
        before = page.inner_text("#table")
        target.click()
        page.wait_for_function("before => document.querySelector('#table').innerText !== before", arg=before)
    page.screenshot(path=str(out / "web_play.png"), full_page=True)


def replay_page(page, url: str, hands: Path, out: Path) -> None:
    """The first hand replayed at player 0's first card, with the bundled checkpoint's view."""
    record = next(read_jsonl(hands))
    step = next(i for i, (game, seat, _) in enumerate(decisions(record)) if seat == 0 and game.phase.decision == "play")
    page.goto(f"{url}/replay?source={entry_id(hands)}&hand=0")
    page.wait_for_selector("#decision h3")
    page.select_option("#checkpoint-0", "bundled")
    page.wait_for_function("() => document.querySelector('#checkpoint-0').value === 'bundled'")
    for _ in range(step):
        page.click("#forward")
    page.wait_for_selector("#probabilities li")
    page.screenshot(path=str(out / "web_replay.png"), full_page=True)


def arena_page(page, url: str, arena: Path, out: Path) -> None:
    page.goto(f"{url}/arena?source={entry_id(arena)}")
    page.wait_for_selector("#margins-chart")
    page.screenshot(path=str(out / "web_arena.png"), full_page=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of pinochle-web's table, replay and arena pages.")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="folder of the PNG files")
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print('needs Playwright: pip install -e ".[dev]"', file=sys.stderr)
        return 2
    if not Path(chromium_path()).is_file():
        print(f"needs Chromium: {CHROMIUM_INSTALL}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        hands = bot_hands(work / "hands.jsonl", variants=("partnership",), seed=3)
        arena = small_arena(work / "arena", deals=30)
        arguments = ["--records", str(work / "records"), "--open", str(hands), str(arena), "--pace", "0"]
        with background_server(arguments) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport=VIEWPORT)
            base = url.rstrip("/")
            table_page(page, base, args.out)
            replay_page(page, base, hands, args.out)
            arena_page(page, base, arena, args.out)
            browser.close()
    for name in ("web_play.png", "web_replay.png", "web_arena.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
