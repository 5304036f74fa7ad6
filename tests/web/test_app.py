"""The web app's API through an HTTP client (Starlette's TestClient), and the real ``pinochle-web``
command in a subprocess: tables played to the end and saved, every refusal a 4xx that changes
nothing, independent tables, replays and a checkpoint's probabilities, arena reports, what the
server will and will not read, and agents' moves off the event loop."""

from __future__ import annotations

import http.client
import json
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import Executor, Future
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
import torch
from starlette.testclient import TestClient

from agents.arena.report import deal_pair_margin
from agents.base import check_plays
from agents.neural.checkpoints import FORMAT, FORMAT_VERSION, save_checkpoint
from agents.neural.network import build_critic, build_policy
from agents.registry import load_agent
from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.games.kit import new_game, variant_kit
from pinochle_env.records import decisions, read_jsonl, replay
from pinochle_env.rules.switches import Rules
from pinochle_web.app import create_app
from pinochle_web.catalogue import entry_id
from pinochle_web.present import table_state
from pinochle_web.settings import Settings
from pinochle_web.tables import TableError, Tables, TableSetup
from tests.helpers import ROOT
from tests.web.demo import background_server, bot_hands, small_arena

HEURISTICS = {
    "partnership": ["human", "heuristic", "heuristic", "heuristic"],
    "cutthroat": ["human", "heuristic", "heuristic"],
}
HEURISTICS["two_hand"] = ["human", "heuristic"]
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    """Hands of every game played by the bots, a small arena run, a file outside what is opened."""
    folder = tmp_path_factory.mktemp("material")
    hands = bot_hands(folder / "hands.jsonl")
    arena = small_arena(folder / "arena", deals=3)
    secret = folder / "secret"
    secret.mkdir()
    bot_hands(secret / "secret.jsonl", variants=("partnership",), seed=1)
    return {"hands": hands, "arena": arena, "secret": secret / "secret.jsonl", "folder": folder}


def make_client(tmp_path: Path, opened: tuple[Path, ...] = ()) -> TestClient:
    app = create_app(Settings(records=tmp_path / "records", open=opened, pace=0.0))
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture
def client(tmp_path, material):
    with make_client(tmp_path, (material["hands"], material["arena"])) as test_client:
        yield test_client


def test_the_table_form_offers_only_agents_that_play_each_game(client):
    """The suggested agents of each game can play it (the search bot every game, the original PIMC
    bot only the partnership game), and a bundled agent is offered under its own name only."""
    variants = client.get("/api/options").json()["variants"]
    for variant, options in variants.items():
        rules = Rules(variant=variant)
        for spec in options["agents"]:
            check_plays(load_agent(spec, 0), rules)
    assert all("pimc" in options["agents"] for options in variants.values())
    assert [v for v, options in variants.items() if "pimc:evaluate=heuristic" in options["agents"]] == ["partnership"]
    assert all("checkpoint:bundled" in options["agents"] for options in variants.values())
    assert not any("checkpoint:bundled-any-rules" in options["agents"] for options in variants.values())


def settled(client: TestClient, table: str) -> dict:
    """The table once no agent is thinking (the person to act, or the hand over)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        state = client.get(f"/api/tables/{table}").json()
        assert state["error"] is None, state["error"]
        if state["thinking"] is None:
            return state
        assert time.monotonic() < deadline, "the agents did not finish"
        time.sleep(0.01)


def open_table(client: TestClient, variant: str = "partnership", seat: int = 0, seed: int = 3, agents=None) -> dict:
    agents = agents or HEURISTICS[variant]
    body = {"rules": Rules(variant=variant).to_dict(), "seat": seat, "agents": agents, "seed": seed}
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    return settled(client, answer.json()["table"])


def forced(game) -> bool:
    """Whether the move to make is a forced card (one legal card to play), which the table plays
    for the person as the terminal game does."""
    return game.phase.decision == "play" and len(game.legal_actions()) == 1


def play_out(client: TestClient, state: dict, choose=lambda state: state["legal"][0]["action"]) -> tuple[dict, list]:
    """Play the person's seat to the end of the hand; the final state and the actions sent."""
    sent = []
    while not state["hand_over"]:
        assert state["to_act"] == state["viewer"] and state["legal"], state
        action = choose(state)
        answer = client.post(f"/api/tables/{state['table']}/actions", json={"action": action})
        assert answer.status_code == 200, answer.text
        sent.append(action)
        state = settled(client, state["table"])
    return state, sent


def imported_packages(package: str) -> set[str]:
    """The top-level packages the modules of ``package`` import (absolute imports, anywhere in a module)."""
    import ast

    found = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_the_web_app_sits_on_agents_and_the_environment_only():
    """pinochle_web imports agents and pinochle_env, never the trainer; neither imports pinochle_web."""
    web = imported_packages("pinochle_web")
    assert {"agents", "pinochle_env"} <= web and "pinochle_train" not in web
    for package in ("agents", "pinochle_env"):
        assert not {"pinochle_web", "pinochle_train"} & imported_packages(package), package


# ------------------------------------------------------------------------------ tables


@pytest.mark.parametrize("variant", ["partnership", "cutthroat", "two_hand"])
def test_a_hand_is_played_to_the_end_and_saved_with_each_seats_agent(client, tmp_path, variant):
    seat = 1
    agents = list(HEURISTICS[variant])
    agents[0], agents[seat] = agents[seat], "human"
    state, sent = play_out(client, open_table(client, variant, seat=seat, agents=agents))
    assert state["result"]["score"] and state["records"]["hands"] == 1
    [record] = list(read_jsonl(state["records"]["path"]))
    assert record["agents"] == agents and record["table"] == state["table"]
    assert Path(state["records"]["path"]).parent == tmp_path / "records"
    replay(record)  # a legal hand that replays to its own result
    mine = [action for game, who, action in decisions(record) if who == seat and not forced(game)]
    assert mine == sent  # the person's moves are the ones recorded (and the pool played the forced cards)
    assert state["result"]["score"] == record["score"] and state["result"]["totals"] == record["totals"]


def test_a_hand_the_records_file_refuses_is_kept_said_and_written_with_the_next(client, tmp_path):
    """A records path the system would not write (here a folder in its place) answered the person's
    last move with a 500, lost the hand and blamed an agent; play goes on and nothing is lost."""
    state = open_table(client, "two_hand", seed=8)
    Path(state["records"]["path"]).mkdir(parents=True)  # the file cannot be made: a folder is there
    state, _ = play_out(client, state)
    assert state["error"] is None and state["records"]["hands"] == 0 and state["records"]["unsaved"] == 1
    assert (
        "could not save to" in state["records"]["save_error"]
        and "1 finished hand is kept" in state["records"]["save_error"]
    )
    Path(state["records"]["path"]).rmdir()  # the disk is writable again
    assert client.post(f"/api/tables/{state['table']}/next", json={}).status_code == 200
    state, _ = play_out(client, settled(client, state["table"]))
    assert (
        state["records"]["hands"] == 2 and state["records"]["unsaved"] == 0 and state["records"]["save_error"] is None
    )
    assert [r["hand_number"] for r in read_jsonl(state["records"]["path"])] == [0, 1]


def test_a_write_that_fails_part_way_is_rolled_back_not_written_twice(client, monkeypatch):
    """A disk that fills after the first of two kept hands is written: both were appended again at
    the next try, the first twice."""
    import pinochle_web.tables as tables

    write = tables.write_jsonl

    def full_after_one(path, records, append=False):
        write(path, list(records)[:1], append=append)
        raise OSError(28, "No space left on device")

    state = open_table(client, "two_hand", seed=8)
    monkeypatch.setattr(tables, "write_jsonl", full_after_one)
    state, _ = play_out(client, state)
    assert state["records"]["unsaved"] == 1 and "No space left on device" in state["records"]["save_error"]
    assert not Path(state["records"]["path"]).exists()  # the file the failed write began is gone
    assert client.post(f"/api/tables/{state['table']}/next", json={}).status_code == 200
    state, _ = play_out(client, settled(client, state["table"]))
    assert state["records"]["unsaved"] == 2 and not Path(state["records"]["path"]).exists()
    monkeypatch.setattr(tables, "write_jsonl", write)
    assert client.post(f"/api/tables/{state['table']}/next", json={}).status_code == 200
    state, _ = play_out(client, settled(client, state["table"]))
    assert [r["hand_number"] for r in read_jsonl(state["records"]["path"])] == [0, 1, 2]


def test_kept_hands_get_a_last_try_when_the_server_stops(tmp_path, material):
    with make_client(tmp_path, (material["hands"],)) as server:
        state = open_table(server, "two_hand", seed=8)
        path = Path(state["records"]["path"])
        path.mkdir(parents=True)
        state, _ = play_out(server, state)
        assert state["records"]["unsaved"] == 1
        path.rmdir()
    assert [r["hand_number"] for r in read_jsonl(path)] == [0]


def test_next_hand_deals_again_and_appends_to_the_same_file(client):
    state, _ = play_out(client, open_table(client, "two_hand", seed=8))
    answer = client.post(f"/api/tables/{state['table']}/next", json={})
    assert answer.status_code == 200
    state, _ = play_out(client, settled(client, state["table"]))
    records = list(read_jsonl(state["records"]["path"]))
    assert [r["hand_number"] for r in records] == [0, 1] and records[0]["dealer"] != records[1]["dealer"]
    assert records[1]["totals"] == [a + b for a, b in zip(records[0]["totals"], records[1]["score"], strict=True)]


def test_a_restart_keeps_every_saved_hand(tmp_path, material):
    with make_client(tmp_path) as first:
        state, _ = play_out(first, open_table(first, "cutthroat"))
    with make_client(tmp_path) as second:  # the same records folder, a new server
        listing = second.get("/api/catalogue").json()["records"]
        assert [entry["id"] for entry in listing] == [state["records"]["source"]]
        hands = second.get(f"/api/sources/{state['records']['source']}").json()["hands"]
        assert len(hands) == 1 and hands[0]["agents"] == HEURISTICS["cutthroat"]


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"rules": {"variant": "bridge"}}, 400, "variant='bridge' is not allowed"),
        ({"rules": {"head_rule": "sometimes"}}, 400, "head_rule='sometimes'"),
        ({"rules": {"trumps": 1}}, 400, "unknown rule switch trumps"),
        ({"rules": {"variant": "two_hand", "pass_count": 3}}, 400, "does not apply to variant='two_hand'"),
        ({"agents": ["human", "heuristic"]}, 400, "a list of 4 agent specs"),
        ({"agents": ["human", "grandmaster", "random", "random"]}, 400, "unknown agent 'grandmaster'"),
        (
            {"rules": {"variant": "cutthroat"}, "agents": ["human", "pimc:evaluate=heuristic", "random"]},
            400,
            "partnership game only",
        ),
        (
            {"rules": {"variant": "two_hand"}, "agents": ["human", "checkpoint:bundled-any-rules"]},
            400,
            "plays the partnership game only",
        ),
        ({"agents": ["human", "checkpoint:/etc/passwd", "random", "random"]}, 400, "not named with --open"),
        ({"agents": ["human", "mix:play=checkpoint:x.pt,default=random", "random", "random"]}, 400, "'x.pt' was not"),
        ({"agents": ["human", "guided:checkpoint=/etc/passwd", "random", "random"]}, 400, "not named with --open"),
        ({"agents": ["human", "checkpoint:a\u0000b", "random", "random"]}, 400, "holds no NUL character"),  # a 500
        ({"agents": ["human", "guided:locate=/etc/passwd", "random", "random"]}, 400, "reads the bundled one only"),
        ({"agents": ["human", "guided:depth=2", "random", "random"]}, 400, "unknown parameter 'depth=2'"),
        ({"agents": ["human", "mix:play=program:cmd=./bot,default=random", "random", "random"]}, 403, "--allow-pro"),
        ({"seat": 4}, 400, "seat must be an integer 0..3"),
        ({"seat": "0"}, 400, "seat must be an integer"),
        ({"seed": -1}, 400, "seed must be a non-negative integer"),
        ([1, 2], 400, "must be a JSON object"),
    ],
)
def test_a_bad_table_request_is_refused_with_its_reason(client, body, status, reason):
    if isinstance(body, dict):
        body = {"agents": ["human", "random", "random", "random"], **body}
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == status and reason in answer.json()["error"], answer.text


def test_a_server_started_with_allow_programs_seats_a_bot_program(tmp_path):
    """With ``--allow-programs`` a table seats ``program:cmd=...``; the bot plays the hand out."""
    bot = f"program:cmd={shlex.quote(sys.executable)} {ROOT / 'examples' / 'random_bot.py'}"
    settings = Settings(records=tmp_path / "records", pace=0.0, allow_programs=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as test_client:
        state, _ = play_out(test_client, open_table(test_client, "two_hand", agents=["human", bot]))
    assert state["result"]["score"] and [record["agents"] for record in read_jsonl(state["records"]["path"])] == [
        ["human", bot]
    ]


def test_bodies_must_be_json(client):
    table = open_table(client)["table"]
    answer = client.post(f"/api/tables/{table}/actions", content="action=3", headers={"Content-Type": "text/plain"})
    assert answer.status_code == 415 and "application/json" in answer.json()["error"]
    answer = client.post(f"/api/tables/{table}/actions", content="{", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and "not valid JSON" in answer.json()["error"]


def test_an_illegal_or_malformed_action_is_refused_and_changes_nothing(client):
    state = open_table(client, seed=5)
    table = state["table"]
    legal = {entry["action"] for entry in state["legal"]}
    illegal = next(a for a in range(108) if a not in legal)
    for action, status, reason in [
        (illegal, 400, "legal actions:"),
        (500, 400, "out of range"),
        ("3", 400, "an integer id"),
        (3.0, 400, "an integer id"),
        (True, 400, "an integer id"),
        (None, 400, "an integer id"),
    ]:
        answer = client.post(f"/api/tables/{table}/actions", json={"action": action})
        assert answer.status_code == status and reason in answer.json()["error"], (action, answer.text)
        assert client.get(f"/api/tables/{table}").json() == state
    assert client.post(f"/api/tables/{table}/actions", json={}).status_code == 400
    answer = client.post(f"/api/tables/{table}/next", json={})
    assert answer.status_code == 409 and "not over" in answer.json()["error"]
    assert client.get(f"/api/tables/{table}").json() == state
    assert client.get("/api/tables/nosuchtable").status_code == 404


class Paused(Executor):
    """An agents' pool that runs nothing until told: the agents' turn lasts as long as a test needs."""

    def __init__(self) -> None:
        self.jobs: list = []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        self.jobs.append(fn)
        return Future()

    def run(self) -> None:
        while self.jobs:
            self.jobs.pop(0)()


def test_moves_out_of_turn_or_after_the_hand_are_refused(tmp_path):
    pool = Paused()
    tables = Tables(tmp_path, pool)
    table = tables.open(TableSetup(Rules(variant="two_hand"), 0, ("human", "heuristic"), seed=4))
    if table.game.to_act == 0:  # the person leads: play once, then it is the agent's turn
        table.act(table.state()["legal"][0]["action"])
    state = table.state()
    assert state["thinking"] == 1 and state["legal"] == [] and len(pool.jobs) == 1
    with pytest.raises(TableError, match="player 1's turn, not yours") as refused:
        table.act(0)
    assert refused.value.status == 409 and table.state() == state
    pool.run()
    while not table.game.hand_over:
        table.act(table.state()["legal"][0]["action"])
        pool.run()
    final = table.state()
    with pytest.raises(TableError, match="the hand is over"):
        table.act(0)
    assert table.state() == final and final["thinking"] is None


@pytest.mark.parametrize("variant", ["partnership", "two_hand"])
def test_a_forced_card_is_played_for_the_person_and_logged(tmp_path, variant):
    """As the terminal game does: the person is never asked to play their only legal card."""
    pool = Paused()
    tables = Tables(tmp_path, pool)
    table = tables.open(TableSetup(Rules(variant=variant), 0, tuple(HEURISTICS[variant]), seed=6))
    pool.run()
    titles = set()
    while not table.game.hand_over:
        state = table.state()
        assert not (state["decision"] == "play" and len(state["legal"]) == 1), "a forced card was left to the person"
        titles.add(state["phase_title"])
        table.act(state["legal"][-1]["action"])
        pool.run()
    log = table.state()["log"]
    assert [entry for entry in log if entry["forced"]] and all(entry["seat"] == 0 for entry in log if entry["forced"])
    assert all(re.fullmatch(r"[A-Z][a-z ,-]+", title) for title in titles), titles  # no "Play1", "Pass_back"


def test_closing_the_server_stops_the_agents_after_their_decision(tmp_path):
    pool = Paused()
    tables = Tables(tmp_path, pool)
    table = tables.open(TableSetup(Rules(), 0, ("human", "heuristic", "heuristic", "heuristic"), seed=1))
    if table.game.to_act == 0:
        table.act(table.state()["legal"][0]["action"])
    before = table.game.to_act
    tables.close()
    pool.run()
    assert table.game.to_act == before != 0 and table.state()["thinking"] is None


def test_tables_in_several_tabs_are_independent(client):
    first = open_table(client, seed=9)
    second = open_table(client, seed=9)
    assert first["table"] != second["table"]
    assert {k: v for k, v in first.items() if k not in ("table", "records")} == {
        k: v for k, v in second.items() if k not in ("table", "records")
    }  # the same seed deals the same hand
    client.post(f"/api/tables/{first['table']}/actions", json={"action": first["legal"][-1]["action"]})
    moved = settled(client, first["table"])
    assert moved["log"] and moved != first
    assert client.get(f"/api/tables/{second['table']}").json() == second


# ------------------------------------------------------------------------------ what the person sees


def test_the_table_shows_only_what_the_seat_may_know():
    """Moving hidden cards between the other seats changes nothing a seat is shown, at the deal and
    after the auction (legal on any cards); the other hands go out as counts only."""
    rules = Rules()
    rng = np.random.default_rng(11)
    game = new_game(rules, rng, dealer=3)
    calls = [game.layout.bid_action(250), game.layout.passing, game.layout.passing, game.layout.passing]
    others = [card for hand in game.deal[1:] for card in hand]
    rng.shuffle(others)
    other_deal = [list(game.deal[0]), *(others[i * 12 : (i + 1) * 12] for i in range(3))]
    twin = new_game(rules, np.random.default_rng(0), dealer=3, deal=other_deal)
    assert twin.deal[1:] != game.deal[1:]
    for moment in range(len(calls) + 1):
        state = table_state(game, 0)
        assert state == table_state(twin, 0)
        assert all(seat["cards"] is None for seat in state["seats"][1:]) and state["seats"][0]["cards"]
        assert table_state(game, 1) != table_state(twin, 1)  # a seat whose cards moved does see it
        if moment < len(calls):
            game.apply(calls[moment])
            twin.apply(calls[moment])
    assert state["phase"] == "trump" and state["declarer"] == 0


def test_cutthroat_and_two_handed_tables_keep_their_hidden_piles():
    cutthroat = new_game(Rules(variant="cutthroat"), np.random.default_rng(2))
    state = table_state(cutthroat, 0)
    assert state["widow"] == [] and not state["widow_shown"] and state["buried"] == []
    assert len(table_state(cutthroat, None)["widow"]) == 3  # replay with every hand shown
    two_hand = new_game(Rules(variant="two_hand"), np.random.default_rng(2))
    state = table_state(two_hand, 0)
    assert state["stock"] == 23 and state["stock_cards"] is None and state["turn_up"]
    assert len(table_state(two_hand, None)["stock_cards"]) == 23


def test_a_two_handed_meld_turn_offers_the_melds_and_shows_them_on_the_table():
    """Seat 0 leads the ace of trump, wins, and may meld its marriage and exchange its dix."""
    hands = [
        ["AH", "KS", "QS", "9H", "9C", "9C", "JC", "JC", "QC", "QC", "KC", "KC"],
        ["AH", "9S", "9S", "JS", "JS", "QD", "QD", "KD", "KD", "JD", "JD", "9D"],
    ]
    rest = ["TH", "AS", "AS", "TS", "TS", "KS", "QS", "9H", "JH", "JH", "QH", "QH", "KH", "KH"]
    rest += ["TH", "9D", "TD", "TD", "AD", "AD", "TC", "TC", "AC", "AC"]
    game = new_game(
        Rules(variant="two_hand"),
        np.random.default_rng(0),
        dealer=1,
        deal={"hands": hands, "turn_up": rest[0], "stock": rest[1:]},
    )
    layout = game.layout
    game.apply(layout.from_string("AH"))
    game.apply(layout.from_string("9D"))
    state = table_state(game, 0)
    assert state["phase"] == "meld" and state["prompt"].startswith("Meld")
    names = [entry["name"] for entry in state["legal"]]
    assert {"marriage S", "dix exchange", "dix show", "no meld"} <= set(names)
    assert all(entry["card"] is None for entry in state["legal"]) and state["refused"] == {}
    game.apply(layout.from_string("marriage S"))
    mine, theirs = table_state(game, 0), table_state(game, 1)
    assert mine["seats"][0]["table"] == ["KS", "QS"] == theirs["seats"][0]["table"]
    assert theirs["seats"][0]["cards"] is None and mine["seats"][0]["meld"]["melds"] == [["marriage S", 20]]


def test_refused_cards_say_why():
    game = new_game(Rules(), np.random.default_rng(1))
    while game.phase.decision != "play" or not game.trick:
        game.apply(game.legal_actions()[-1])
    state = table_state(game, game.to_act)
    playable = {entry["card"] for entry in state["legal"]}
    assert state["refused"] and not set(state["refused"]) & playable
    assert set(state["refused"]) | playable == set(state["seats"][game.to_act]["cards"])
    assert all("must" in reason for reason in state["refused"].values())


# ------------------------------------------------------------------------------ replay


def test_a_hand_replays_step_by_step_from_every_point_of_view(client, material):
    source = entry_id(material["hands"])
    hands = client.get(f"/api/sources/{source}").json()["hands"]
    assert [hand["variant"] for hand in hands] == ["partnership", "cutthroat", "two_hand"]
    record = next(read_jsonl(material["hands"]))
    actions = [(seat, action) for _, seat, action in decisions(record)]
    every = client.get(f"/api/sources/{source}/hands/0?viewer=all").json()["steps"]
    assert len(every) == len(actions) + 1 and every[-1]["decision"] is None and every[-1]["state"]["hand_over"]
    assert [(s["decision"]["seat"], s["decision"]["action"]) for s in every[:-1]] == actions
    assert all(seat["cards"] is not None for step in every for seat in step["state"]["seats"])
    declarer = record["declarer"]
    defender = (declarer + 1) % 4
    for viewer, sees_passes in ((defender, False), (declarer, True)):
        steps = client.get(f"/api/sources/{source}/hands/0?viewer={viewer}").json()["steps"]
        assert all(
            (seat["cards"] is not None) == (seat["seat"] == viewer) for step in steps for seat in step["state"]["seats"]
        )
        passes = [step["decision"] for step in steps if step["decision"] and step["decision"]["kind"] == "passing"]
        assert passes and all((p["action"] is not None) == sees_passes for p in passes)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/sources/0000/hands/0", 404),
        ("/api/sources/{hands}/hands/9", 404),
        ("/api/sources/{hands}/hands/0?viewer=4", 400),
        ("/api/sources/{hands}/hands/0?viewer=-1", 400),
        ("/api/sources/{hands}/hands/0?viewer=%C2%B2", 400),  # '²' passed isdigit and failed int(): a 500
        ("/api/sources/{hands}/hands/0/analysis?seat=%C2%B9", 400),
        ("/api/sources/{hands}/hands/0/analysis", 400),
        ("/api/sources/{hands}/hands/0/analysis?seat=0&checkpoint=0000", 404),
        ("/api/sources/{secret}", 404),
        ("/api/arenas/{hands}", 404),
    ],
)
def test_bad_replay_requests_are_refused(client, material, path, status):
    ids = {"hands": entry_id(material["hands"]), "secret": entry_id(material["secret"])}
    answer = client.get(path.format(**ids))
    assert answer.status_code == status and answer.json()["error"], answer.text


@pytest.mark.parametrize("hand", [0, 1, 2])
def test_the_bundled_checkpoint_tells_its_probabilities_at_each_decision_of_a_seat(client, material, hand):
    """In a hand of each game (the bundled agent of that game answering)."""
    source = entry_id(material["hands"])
    record = list(read_jsonl(material["hands"]))[hand]
    seat = 1
    analysis = client.get(f"/api/sources/{source}/hands/{hand}/analysis?seat={seat}&checkpoint=bundled").json()
    expected = {
        str(step): (game.legal_actions(), action)
        for step, (game, who, action) in enumerate(decisions(record))
        if who == seat
    }
    assert set(analysis["steps"]) == set(expected) and not analysis["critic"]
    for step, thought in analysis["steps"].items():
        legal, taken = expected[step]
        assert sorted(entry["action"] for entry in thought["probabilities"]) == legal
        assert abs(sum(entry["p"] for entry in thought["probabilities"]) - 1) < 1e-6
        assert thought["chosen"] == taken and thought["value"] is None
        values = [entry["p"] for entry in thought["probabilities"]]
        assert values == sorted(values, reverse=True)


def test_a_training_checkpoints_critic_gives_its_value_in_replay(tmp_path, material):
    """A critic whose last layer says 0.25 whatever it reads: 0.25 x reward_scale points."""
    rules = Rules()
    kit = variant_kit(rules)
    actions = new_game(rules).layout.size
    critic = build_critic(kit.state_size, [8])
    torch.nn.init.zeros_(critic.layers[-1].weight)
    torch.nn.init.constant_(critic.layers[-1].bias, 0.25)
    payload = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "encoder_version": ENCODER_VERSION,
        "observation_size": kit.spec.size, "num_actions": actions, "critic_input_size": kit.state_size,
        "rules": rules.to_dict(), "hidden": [8], "critic_hidden": [8],
        "policy": build_policy(kit.spec.size, [8], actions).state_dict(), "critic": critic.state_dict(),
        "config": {"reward_scale": 400.0},
    }  # fmt: skip
    checkpoint = save_checkpoint(payload, tmp_path / "run" / "update_000001.pt")
    with make_client(tmp_path, (material["hands"], tmp_path / "run")) as client:
        [entry] = client.get("/api/catalogue").json()["checkpoints"]
        assert entry["id"] == entry_id(checkpoint)
        source = entry_id(material["hands"])
        analysis = client.get(f"/api/sources/{source}/hands/0/analysis?seat=1&checkpoint={entry['id']}").json()
        assert analysis["critic"] and analysis["steps"]
        assert all(abs(thought["value"] - 100.0) < 1e-4 for thought in analysis["steps"].values())
        spec = f"checkpoint:{checkpoint}"
        assert spec in client.get("/api/options").json()["variants"]["partnership"]["agents"]
        body = {"agents": ["human", spec, "random", "random"], "seed": 1}
        assert client.post("/api/tables", json=body).status_code == 201  # an opened checkpoint may play
        answer = client.get(f"/api/sources/{source}/hands/1/analysis?seat=1&checkpoint={entry['id']}")
        assert answer.status_code == 422 and "plays the partnership game" in answer.json()["error"]  # a cutthroat hand


# ------------------------------------------------------------------------------ arena


def test_an_arena_folder_reports_what_the_arena_wrote_and_links_each_pair_to_its_replay(client, material):
    arena = material["arena"]
    report = client.get(f"/api/arenas/{entry_id(arena)}").json()
    written = json.loads((arena / "summary.json").read_text())
    assert report["summary"]["pairings"] == written["pairings"]
    assert (
        report["summary"]["ratings"] == written["ratings"]
        and report["summary"]["cross_table"] == written["cross_table"]
    )
    lines = [json.loads(line) for line in (arena / "results.jsonl").read_text().splitlines()]
    assert [pair["margin"] for pair in report["pairs"]] == [deal_pair_margin(line) for line in lines]
    hands = client.get(f"/api/sources/{report['results']}").json()["hands"]
    assert len(hands) == sum(len(play["hands"]) for line in lines for play in line["plays"])
    for pair, line in zip(report["pairs"], lines, strict=True):
        first = hands[pair["first_hand"]]
        assert first["unit"] == lines.index(line) and f"{line['kind']} pair {line['id']}" in first["label"]
        assert first["agents"][0] in (line["a"], line["b"])
    steps = client.get(f"/api/sources/{report['results']}/hands/{report['pairs'][-1]['first_hand']}").json()["steps"]
    assert steps[-1]["state"]["hand_over"]


def test_an_arena_run_in_progress_is_read_without_touching_its_file(tmp_path, material):
    arena = tmp_path / "arena"
    arena.mkdir()
    text = (material["arena"] / "results.jsonl").read_bytes()
    lines = text.splitlines(keepends=True)
    partial = b"".join(lines[:2]) + lines[2][:40]  # a line being written
    (arena / "results.jsonl").write_bytes(partial)
    with make_client(tmp_path, (arena,)) as client:
        report = client.get(f"/api/arenas/{entry_id(arena)}").json()
    assert len(report["pairs"]) == 2 and report["config"] is None
    assert report["summary"]["agents"] == ["random", "heuristic"]
    assert (arena / "results.jsonl").read_bytes() == partial


# ------------------------------------------------------------------------------ what the server reads


def test_only_what_the_command_line_named_is_listed(tmp_path, material):
    (material["folder"] / "arena" / "link.jsonl").symlink_to(material["secret"])
    try:
        with make_client(tmp_path, (material["hands"], material["arena"])) as client:
            listing = client.get("/api/catalogue").json()
    finally:
        (material["folder"] / "arena" / "link.jsonl").unlink()
    paths = {entry["path"] for kind in ("records", "arena", "checkpoints") for entry in listing[kind]}
    assert paths == {str(material["hands"]), str(material["arena"]), str(material["arena"] / "results.jsonl")}


def test_pages_and_assets_are_served(client):
    for path in ("/", "/play", "/replay", "/arena", "/static/common.js", "/static/style.css"):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.content, path
    assert "javascript" in client.get("/static/play.js").headers["content-type"]
    assert client.get("/static/nothing.js").status_code == 404
    assert client.get("/api/catalogue", headers={"Host": "evil.example"}).status_code == 400


@pytest.fixture(scope="module")
def server(tmp_path_factory, material):
    records = tmp_path_factory.mktemp("records")
    with background_server(["--records", str(records), "--open", str(material["hands"]), "--pace", "0"]) as url:
        yield url


def raw_get(url: str, path: str) -> tuple[int, bytes]:
    """GET ``path`` exactly as written (no client normalises the dots away)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request("GET", path)
    answer = connection.getresponse()
    body = answer.read()
    connection.close()
    return answer.status, body


def test_the_command_binds_to_localhost_and_says_so(server, tmp_path):
    assert server.startswith("http://127.0.0.1:")
    script = Path(sys.executable).with_name("pinochle-web")

    def run(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(script), *arguments], capture_output=True, text=True, check=False, cwd=tmp_path)

    result = run("--help")
    assert result.returncode == 0 and "--open PATH" in result.stdout and "127.0.0.1" in result.stdout
    result = run("--open", "no/such/file")
    assert result.returncode == 2 and "no such file or folder: no/such/file" in result.stderr
    result = run("--rule", "head_rule=sometimes")
    assert result.returncode == 2 and "head_rule='sometimes'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2fpinochle_env%2fcards.py",
        "/static/....//app.py",
        "/%2e%2e/pyproject.toml",
        "/static//etc/passwd",
        "/api/sources/..%2f..%2fetc%2fpasswd",
        "/api/sources/%2e%2e/hands/0",
    ],
)
def test_path_traversal_reaches_nothing(server, path):
    status, body = raw_get(server, path)
    assert status in (400, 404), (path, status)
    assert b"def " not in body and b"root:" not in body and b"[project]" not in body


def test_an_agent_thinking_does_not_hold_up_other_requests(server):
    """pimc searches each card for 0.4 s in the server's agents pool; meanwhile every request is
    answered within 200 ms."""
    agents = ["human", "pimc:samples=1000,budget=0.4", "pimc:samples=1000,budget=0.4", "pimc:samples=1000,budget=0.4"]
    parts = urlsplit(server)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)

    def call(method: str, path: str, body: dict | None = None) -> tuple[dict, float]:
        start = time.perf_counter()
        connection.request(
            method,
            path,
            body=json.dumps(body) if body is not None else None,
            headers={"Content-Type": "application/json"},
        )
        answer = json.loads(connection.getresponse().read())
        return answer, time.perf_counter() - start

    state, _ = call("POST", "/api/tables", {"agents": agents, "seed": 2})
    table = state["table"]
    waits = []
    deadline = time.monotonic() + TIMEOUT
    while len(waits) < 12 and time.monotonic() < deadline:
        state, took = call("GET", f"/api/tables/{table}")
        if state["thinking"] is not None and state["phase"] == "play":
            waits.append(took)
            call("GET", "/api/catalogue")
        elif state["thinking"] is None:
            assert not state["hand_over"], "the hand ended before pimc was seen thinking"
            pass_or_first = next((a for a in state["legal"] if a["name"] == "pass"), state["legal"][0])
            call("POST", f"/api/tables/{table}/actions", {"action": pass_or_first["action"]})
        time.sleep(0.03)
    connection.close()
    assert len(waits) == 12 and max(waits) < 0.2, waits
