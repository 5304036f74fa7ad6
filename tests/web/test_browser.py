"""The web app in a real browser: Debian's headless Chromium driven by Playwright, against the real
``pinochle-web`` command. A whole partnership hand and a whole two-handed hand played by clicks
against bots, a hand replayed with the bundled checkpoint's probabilities, an arena folder opened.

These run under their own marker, deselected by the default ``python -m pytest``::

    apt-get install chromium            # the one system package they need (Debian's build)
    python -m pytest -m browser

Without the browser they fail, saying how to install it; they never skip. Playwright drives the
system's Chromium (``executable_path``): ``playwright install``, which downloads a browser of its
own, is never needed. The pages' console errors fail a test too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from pinochle_env.records import decisions, read_jsonl
from pinochle_web.catalogue import entry_id
from tests.web.demo import CHROMIUM_ARGS, CHROMIUM_INSTALL, background_server, bot_hands, chromium_path, small_arena

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
INSTALL = f"{CHROMIUM_INSTALL}  (Debian's package; then: python -m pytest -m browser)"
CLICKS = 400  # more than any hand needs
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser():
    if not os.path.isfile(CHROMIUM):
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM}: {INSTALL}", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('the browser tests need Playwright: pip install -e ".[dev]"', pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    hands = bot_hands(folder / "hands.jsonl", variants=("partnership",), seed=3)
    arena = small_arena(folder / "arena", deals=3)
    results = arena / "results.jsonl"  # the pairs in another order than played, as workers may finish them
    results.write_text("".join(reversed(results.read_text().splitlines(keepends=True))))
    records = folder / "records"
    arguments = ["--records", str(records), "--open", str(hands), str(arena), "--pace", "0"]
    with background_server(arguments) as url:
        yield {"url": url.rstrip("/"), "hands": hands, "arena": arena, "records": records}


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield tab
    context.close()
    assert not errors, errors


def sit_down(page, site, variant: str, seed: int) -> None:
    page.goto(site["url"] + "/")
    page.select_option("#variant", variant)
    page.fill("#seed", str(seed))
    page.click("#sit-down")
    page.wait_for_url(re.compile(r"/play\?table="))


def click_through_hand(page) -> tuple[dict[str, int], set[str]]:
    """Click the person's way through a hand: the first legal card, else the first button. Once,
    a refused card is clicked to see its reason. Returns how many clicks each decision got, and
    the side panel's headings seen (the hand and where it stands)."""
    clicks: dict[str, int] = {}
    titles: set[str] = set()
    refusal_seen = False
    for _ in range(CLICKS):
        page.wait_for_selector("#prompt, #summary")
        titles.add(page.inner_text("#phase-title"))
        if page.query_selector("#summary"):
            return clicks, titles
        prompt = page.inner_text("#prompt")
        refused = page.query_selector(".card-wrap.refused")
        if refused and not refusal_seen:
            reason = refused.get_attribute("title")
            refused.click()
            assert reason and reason in page.inner_text("#message")
            refusal_seen = True
        target = page.query_selector(".card-wrap.legal") or page.query_selector("#actions button")
        assert target is not None, f"nothing to click at: {prompt}"
        label = target.get_attribute("title") or target.inner_text()
        key = re.sub(r" \(\d+ of \d+\)$", "", prompt) + (
            ": meld" if "Meld" in prompt and "no meld" not in label else ""
        )
        clicks[key] = clicks.get(key, 0) + 1
        before = page.inner_text("#table")
        target.click()
        page.wait_for_function("before => document.querySelector('#table').innerText !== before", arg=before)
    pytest.fail(f"the hand did not end within {CLICKS} clicks")


def readable_titles(titles: set[str]) -> bool:
    """Whether the side panel's headings name the phases in words ("Hand 1 · Passing back"), not
    as the engine spells them ("Pass_back", "Play1")."""
    return all(re.fullmatch(r"Hand \d+ · [A-Z][a-z ,-]+", title) for title in titles)


def forced_cards(record: dict) -> int:
    """How many of seat 0's moves in a hand record were forced cards (its only legal card), which
    the table plays for the person."""
    return sum(
        1 for game, seat, _ in decisions(record) if seat == 0 and game.phase.decision == "play"
        and len(game.legal_actions()) == 1
    )  # fmt: skip


def test_a_whole_partnership_hand_by_clicks(page, site):
    sit_down(page, site, "partnership", seed=11)
    assert page.inner_text("#table").count("heuristic") == 3
    clicks, titles = click_through_hand(page)
    assert clicks.get("Your call: bid or pass") and clicks.get("Play a card"), clicks
    assert readable_titles(titles) and "Hand 1 · Passing back" in titles, titles
    summary = page.inner_text("#summary")
    assert "This hand:" in summary and "Saved to" in summary
    [records] = site["records"].glob("*.jsonl")
    [record] = list(read_jsonl(records))
    assert record["agents"] == ["human", "heuristic", "heuristic", "heuristic"]
    forced = forced_cards(record)  # at least the last card
    assert forced and sum(1 for _, seat, _ in decisions(record) if seat == 0) == sum(clicks.values()) + forced
    assert "you: " in page.inner_text("ol.log li.forced") and "(your only legal card)" in page.inner_text("ol.log")
    # every seat's meld cards are readable: their rank at least 14 px high
    ranks = page.eval_on_selector_all(
        ".meld svg.card .card-rank", "nodes => nodes.map(n => n.getBoundingClientRect().height)"
    )
    assert ranks and min(ranks) >= 14, ranks
    page.click("#replay-link")
    page.wait_for_selector("#decision h3")
    assert "(auction)" in page.inner_text("#decision")
    records.unlink()  # the next test starts with an empty records folder


def test_a_whole_two_handed_hand_by_clicks_with_meld_turns_and_the_dix(page, site):
    sit_down(page, site, "two_hand", seed=3)  # seed 3: the person gets meld turns and a dix
    clicks, titles = click_through_hand(page)
    assert clicks.get("Play a card (any card while the stock lasts)") and clicks.get(
        "Meld, show or exchange the dix, or end your meld turn: meld"
    ), clicks
    assert readable_titles(titles) and "Hand 1 · Play while the stock lasts" in titles, titles
    # the side panel holds its score table whole (the game column was cut off at 1400 px)
    side, scores = (
        page.eval_on_selector(selector, "n => n.getBoundingClientRect().right")
        for selector in ("aside.side", "aside.side table.scores")
    )
    assert scores <= side and page.eval_on_selector("aside.side", "n => n.scrollWidth <= n.clientWidth")
    [records] = site["records"].glob("*.jsonl")
    [record] = list(read_jsonl(records))
    mine = [entry["meld"] for turn in record["melds"] for entry in turn if entry["seat"] == 0]
    assert any(meld.startswith("dix") for meld in mine) and any(not meld.startswith("dix") for meld in mine), mine
    records.unlink()


def test_replay_with_the_bundled_checkpoints_probabilities(page, site):
    source = entry_id(site["hands"])
    page.goto(f"{site['url']}/replay?source={source}&hand=0")
    page.wait_for_selector("#decision h3")
    record = next(read_jsonl(site["hands"]))
    steps = [(game.clone(), seat, action) for game, seat, action in decisions(record)]
    assert page.inner_text("#step-text") == f"decision 1 of {len(steps)}"
    page.select_option("#checkpoint-0", "bundled")
    first_play = next(i for i, (game, seat, _) in enumerate(steps) if seat == 0 and game.phase.decision == "play")
    for _ in range(first_play):
        page.click("#forward")
    assert page.inner_text("#step-text") == f"decision {first_play + 1} of {len(steps)}"
    page.wait_for_selector("#probabilities li")
    rows = page.query_selector_all("#probabilities li")
    game = steps[first_play][0]
    assert len(rows) == len(game.legal_actions())
    shares = [float(row.query_selector(".p").inner_text().rstrip("%")) for row in rows]
    assert abs(sum(shares) - 100) < 1.5 and shares == sorted(shares, reverse=True)
    [chosen] = page.query_selector_all("#probabilities li.chosen")
    assert chosen.query_selector(".option").inner_text() == game.layout.to_string(steps[first_play][2])
    assert len(page.query_selector_all(".pos-bottom .mark")) == len(rows)  # shown on player 0's cards too
    page.click("#back")
    assert page.inner_text("#step-text") == f"decision {first_play} of {len(steps)}"
    page.select_option("#viewer-select", "1")
    page.wait_for_function("() => document.querySelectorAll('.seat[data-seat=\"0\"] svg.back').length > 0")
    assert page.query_selector_all(".seat[data-seat='1'] svg.back") == []
    page.click("#last")
    assert "End of the hand" in page.inner_text("#decision")


def test_an_arena_folder(page, site):
    page.goto(f"{site['url']}/arena?source={entry_id(site['arena'])}")
    page.wait_for_selector("#margins-chart")
    assert len(page.query_selector_all("#pairings tbody tr")) == 3
    assert len(page.query_selector_all("#margins-chart circle.estimate")) == 3
    assert len(page.query_selector_all("#ratings tbody tr")) == 3
    assert len(page.query_selector_all("#cross-table tbody tr")) == 3
    assert len(page.query_selector_all("#sides tbody tr")) == 6
    pairings = [row.query_selector("td").inner_text() for row in page.query_selector_all("#pairings tbody tr")]
    rows = [
        [cell.inner_text() for cell in row.query_selector_all("td")[:2]]
        for row in page.query_selector_all("#pairs tbody tr")
    ]
    assert rows == [[f"deal {i}", pairing] for pairing in pairings for i in range(3)]  # in order, not as finished
    links = page.query_selector_all("#pairs a.replay-link")
    assert len(links) == 9  # 3 pairings x 3 deal pairs
    links[4].click()
    page.wait_for_selector("#decision h3")
    assert "deal pair 1" in page.inner_text("#hand-select option:checked")
    assert Path(site["arena"] / "results.jsonl").is_file()
