"""What the web app holds against hostile or damaged input (issue 34): the limits on what a request
or a file may cost, the ``Host`` check on every bind, symbolic links, deeply nested JSON, records
cut short by a kill, bad command-line values, and every error answered as ``{"error": ...}``."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from starlette.testclient import TestClient

from pinochle_env.rules.switches import Rules
from pinochle_web.app import create_app
from pinochle_web.catalogue import entry_id
from pinochle_web.cli import announce, main, parse_settings
from pinochle_web.hosts import allowed_hosts
from pinochle_web.limits import MAX_BODY_BYTES, MAX_JSON_DEPTH
from pinochle_web.settings import Settings
from pinochle_web.tables import TableError, Tables, TableSetup
from tests.web.demo import bot_hands, small_arena

DEEP = "[" * 100_000
AGENTS = ["human", "random", "random", "random"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Hand records of each game and a two-agent arena run, to copy and damage."""
    folder = tmp_path_factory.mktemp("files")
    return {"hands": bot_hands(folder / "hands.jsonl"), "arena": small_arena(folder / "arena", ("random", "heuristic"))}


def client_for(tmp_path, opened=(), base_url="http://127.0.0.1", **settings) -> TestClient:
    app = create_app(Settings(records=tmp_path / "records", open=tuple(opened), pace=0.0, **settings))
    return TestClient(app, base_url=base_url)


def refused(answer, status: int, reason: str) -> None:
    """``answer`` is a refusal in the API's shape: ``status``, JSON ``{"error": ...}`` naming ``reason``."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json" and reason in answer.json()["error"], answer.text


# ------------------------------------------------------------------------------ request bodies


def test_a_body_over_the_limit_is_refused_unread(tmp_path):
    big = json.dumps({"agents": AGENTS, "padding": "x" * MAX_BODY_BYTES})
    with client_for(tmp_path) as client:
        refused(client.post("/api/tables", content=big, headers={"Content-Type": "application/json"}), 413, "bytes")
        chunks = (big[i : i + 65536].encode() for i in range(0, len(big), 65536))  # no Content-Length
        refused(client.post("/api/tables", content=chunks, headers={"Content-Type": "application/json"}), 413, "bytes")
        assert client.post("/api/tables", json={"agents": AGENTS, "padding": "x" * 1000}).status_code == 201


@pytest.mark.parametrize(
    "body", [DEEP, "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), '{"agents": ' + DEEP + "]"]
)
def test_deeply_nested_json_in_a_body_is_refused(tmp_path, body):
    with client_for(tmp_path) as client:
        answer = client.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
        refused(answer, 400, f"nested deeper than {MAX_JSON_DEPTH}")


def test_deeply_nested_lines_in_opened_files_neither_stop_the_server_nor_fail_the_catalogue(tmp_path, files):
    """A file of nothing but ``[`` is left out; a records file or an arena run with such a line
    after good ones is listed and answers 422 naming the line."""
    folder = tmp_path / "opened"
    folder.mkdir()
    (folder / "deep.jsonl").write_text(DEEP + "\n")
    records = folder / "records.jsonl"
    records.write_text(files["hands"].read_text() + DEEP + "\n" + files["hands"].read_text())
    arena = folder / "arena"
    shutil.copytree(files["arena"], arena)
    results = (files["arena"] / "results.jsonl").read_text()
    (arena / "results.jsonl").write_text(results + DEEP + "\n" + results)
    with client_for(tmp_path, (folder,)) as client:
        listing = client.get("/api/catalogue").json()
        assert {entry["name"] for entry in listing["records"]} == {"opened/records.jsonl", "opened/arena/results.jsonl"}
        refused(client.get(f"/api/sources/{entry_id(records)}"), 422, "records.jsonl:4")
        refused(client.get(f"/api/arenas/{entry_id(arena)}"), 422, "results.jsonl")


# ------------------------------------------------------------------------------ tables kept


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Idle:
    """A pool that runs nothing: the tables' agents never move."""

    def submit(self, fn, /, *args, **kwargs):
        return None


def test_the_server_keeps_a_bounded_number_of_tables_and_closes_idle_ones(tmp_path):
    clock = Clock()
    tables = Tables(tmp_path, Idle(), capacity=2, idle_seconds=60.0, clock=clock)
    setup = TableSetup(Rules(), 0, tuple(AGENTS), seed=1)
    first, second = tables.open(setup), tables.open(setup)
    clock.now = 30.0
    tables.get(first.id)  # used: the second is now the least recently used
    third = tables.open(setup)
    with pytest.raises(TableError, match="closed to make room: the server keeps at most 2 tables") as closed:
        tables.get(second.id)
    assert closed.value.status == 410 and second.closed.is_set()
    assert tables.get(first.id) is first and tables.get(third.id) is third
    clock.now = 95.0  # both last used at 30 s: idle for 65 s
    for table in (first, third):
        with pytest.raises(TableError, match="closed after 60 s unused") as closed:
            tables.get(table.id)
        assert closed.value.status == 410
    with pytest.raises(TableError, match="no table") as unknown:
        tables.get("0123456789ab")
    assert unknown.value.status == 404


def test_a_closed_table_answers_410_through_the_api(tmp_path):
    with client_for(tmp_path, max_tables=1) as client:
        first = client.post("/api/tables", json={"agents": AGENTS}).json()["table"]
        second = client.post("/api/tables", json={"agents": AGENTS}).json()["table"]
        refused(client.get(f"/api/tables/{first}"), 410, "closed to make room")
        refused(client.post(f"/api/tables/{first}/actions", json={"action": 0}), 410, "open a new table")
        assert client.get(f"/api/tables/{second}").status_code == 200


# ------------------------------------------------------------------------------ hosts


@pytest.mark.parametrize(
    ("bind", "base_url"),
    [
        ("::1", "http://[::1]:8765"),
        ("127.0.0.2", "http://127.0.0.2:8765"),
        ("0.0.0.0", "http://localhost:8765"),
        ("192.0.2.7", "http://192.0.2.7:8765"),
        ("127.0.0.1", "http://localhost:8765"),
    ],
)
def test_every_bind_answers_only_its_own_host_names(tmp_path, bind, base_url):
    settings, _ = parse_settings(["--host", bind, "--records", str(tmp_path / "records")])
    app = create_app(settings)
    with TestClient(app, base_url=base_url) as client:
        assert client.get("/api/catalogue").status_code == 200
        for host in ("rebind.attacker.example", "rebind.attacker.example:8765", "", "[::1"):
            refused(client.get("/api/catalogue", headers={"Host": host}), 400, "does not answer to the host")
        refused(client.get("/", headers={"Host": "evil.example"}), 400, "--allow-host NAME")


def test_allow_host_adds_a_name(tmp_path):
    settings, _ = parse_settings(["--host", "0.0.0.0", "--allow-host", "Pinochle.LAN", "--allow-host", "10.0.0.9"])
    assert {"pinochle.lan", "10.0.0.9", "localhost"} <= set(settings.allowed_hosts)
    assert settings.allowed_hosts == allowed_hosts("0.0.0.0", ["pinochle.lan", "10.0.0.9"])
    with TestClient(create_app(settings), base_url="http://pinochle.lan:8765") as client:
        assert client.get("/api/options").status_code == 200
        assert client.get("/api/options", headers={"Host": "10.0.0.9"}).status_code == 200
        refused(client.get("/api/options", headers={"Host": "pinochle.lan.evil.example"}), 400, "host")


@pytest.mark.parametrize(("bind", "only_here"), [("::1", True), ("127.0.0.2", True), ("0.0.0.0", False)])
def test_the_start_up_lines_say_who_can_connect(capsys, bind, only_here):
    announce(bind, 8765, Settings(allowed_hosts=allowed_hosts(bind)))
    out, err = capsys.readouterr()
    assert ("only this machine can connect" in out) == only_here
    assert err.startswith("WARNING: ") != only_here and ("anyone" in out + err) != only_here
    assert "answers requests addressed to: " in out and "localhost" in out


# ------------------------------------------------------------------------------ the command line


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--port", "70000"], "argument --port: 70000 is not a port number 0..65535"),
        (["--port", "-1"], "argument --port: -1 is not a port number"),
        (["--port", "http"], "argument --port: 'http' is not a port number"),
        (["--pace", "inf"], "argument --pace: inf is not a pause in seconds 0..60"),
        (["--pace", "nan"], "argument --pace: nan is not a pause"),
        (["--pace", "-0.5"], "argument --pace: -0.5 is not a pause"),
        (["--workers", "0"], "argument --workers: 0 is not a number of threads 1..32"),
        (["--workers", "100000"], "argument --workers: 100000 is not a number of threads"),
        (["--host", ""], "argument --host: '' is no address: 127.0.0.1 listens for this machine only, 0.0.0.0 on"),
        (["--host", " "], "argument --host: ' ' is no address"),
        (["--allow-host", "*"], "argument --allow-host: '*' is not a host name"),
        (["--allow-host", "evil.example:80"], "is not a host name or IP address"),
    ],
)
def test_bad_command_line_values_are_one_line_errors(tmp_path, capsys, arguments, message):
    with pytest.raises(SystemExit) as exit_:
        parse_settings([*arguments, "--records", str(tmp_path / "records")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "records").exists()


# ------------------------------------------------------------------------------ files


def test_symbolic_links_in_an_arena_folder_are_not_followed(tmp_path, files):
    """A results.jsonl that is a link makes no arena; a config.json that is a link is not read."""
    named = tmp_path / "named"
    linked, real = named / "linked", named / "real"
    linked.mkdir(parents=True)
    (linked / "results.jsonl").symlink_to(files["arena"] / "results.jsonl")
    shutil.copytree(files["arena"], real)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"agents": ["random", "heuristic"], "secret": "do not show"}))
    (real / "config.json").unlink()
    (real / "config.json").symlink_to(secret)
    with client_for(tmp_path, (named,)) as client:
        arenas = client.get("/api/catalogue").json()["arena"]
        assert [entry["name"] for entry in arenas] == ["named/real"]
        report = client.get(f"/api/arenas/{entry_id(real)}").json()
        assert report["config"] is None and report["summary"]["agents"] == ["random", "heuristic"]
        refused(client.get(f"/api/arenas/{entry_id(linked)}"), 404, "no arena")


def test_a_records_file_cut_short_by_a_kill_shows_its_complete_hands(tmp_path, files):
    damaged = tmp_path / "damaged.jsonl"
    text = files["hands"].read_bytes()
    damaged.write_bytes(text + text.splitlines()[0][:60])  # the fourth hand, cut during its append
    with client_for(tmp_path, (damaged,)) as client:
        hands = client.get(f"/api/sources/{entry_id(damaged)}").json()["hands"]
        assert len(hands) == 3
        steps = client.get(f"/api/sources/{entry_id(damaged)}/hands/2").json()["steps"]
        assert steps[-1]["state"]["hand_over"]
    first, *rest = text.splitlines(keepends=True)
    damaged.write_bytes(first + first[:60] + b"\n" + b"".join(rest))  # a bad line that is not the last
    with client_for(tmp_path, (damaged,)) as client:
        refused(client.get(f"/api/sources/{entry_id(damaged)}"), 422, "damaged.jsonl:2")


def test_a_record_whose_rules_are_refused_answers_422(tmp_path, files):
    record = json.loads(files["hands"].read_text().splitlines()[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**record, "options": {**record["options"], "head_rule": "sometimes"}}) + "\n")
    with client_for(tmp_path, (bad,)) as client:
        for path in ("hands/0", "hands/0/analysis?seat=0"):
            refused(client.get(f"/api/sources/{entry_id(bad)}/{path}"), 422, "head_rule='sometimes'")


def test_an_edited_record_answers_422_rather_than_show_two_scores(tmp_path, files):
    """Its label showed the file's score and its replay the real one, without a word."""
    record = json.loads(files["hands"].read_text().splitlines()[0])
    edited = tmp_path / "edited.jsonl"
    edited.write_text(json.dumps({**record, "score": [999, 0]}) + "\n")
    with client_for(tmp_path, (edited,)) as client:
        refused(client.get(f"/api/sources/{entry_id(edited)}/hands/0"), 422, "an edited record?")


def test_an_arena_config_whose_agents_are_not_a_list_answers_422(tmp_path, files):
    """ "agents": "heuristic" gave a report of the agents h, e, u, r, i, ... (the string's letters)."""
    arena = tmp_path / "arena"
    shutil.copytree(files["arena"], arena)
    config = json.loads((arena / "config.json").read_text())
    for agents in ("heuristic", [], [1, 2]):
        (arena / "config.json").write_text(json.dumps({**config, "agents": agents}))
        with client_for(tmp_path, (arena,)) as client:
            refused(client.get(f"/api/arenas/{entry_id(arena)}"), 422, "its agents are not a list of agent specs")


def test_an_arena_report_lists_the_pairs_in_order_whatever_order_they_finished_in(tmp_path, files):
    arena = tmp_path / "arena"
    shutil.copytree(files["arena"], arena)
    lines = (arena / "results.jsonl").read_text().splitlines(keepends=True)
    (arena / "results.jsonl").write_text("".join(reversed(lines)))  # as workers may finish them
    with client_for(tmp_path, (arena,)) as client:
        report = client.get(f"/api/arenas/{entry_id(arena)}").json()
        hands = client.get(f"/api/sources/{report['results']}").json()["hands"]
    pairs = [(pair["kind"], pair["id"]) for pair in report["pairs"]]
    assert pairs == sorted(pairs) and len(pairs) == len(lines) > 1
    for pair in report["pairs"]:  # each still links to its own hands
        assert f"{pair['kind']} pair {pair['id']}:" in hands[pair["first_hand"]]["label"]


# ------------------------------------------------------------------------------ error answers


def test_an_internal_error_is_answered_as_json(tmp_path, monkeypatch):
    app = create_app(Settings(records=tmp_path / "records"))

    def broken() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(app.state.service.catalogue, "scan", broken)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        refused(client.get("/api/catalogue"), 500, "internal error (RuntimeError)")
        refused(client.get("/api/nothing"), 404, "Not Found")
        refused(client.put("/api/tables"), 405, "Method Not Allowed")


def test_without_the_web_extra_the_command_names_it_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # what a missing package looks like to import
    with pytest.raises(SystemExit) as raised:
        main(["--records", str(tmp_path), "--port", "0"])
    assert raised.value.code == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("pinochle-web: error: the web app needs Uvicorn; install the web extra: ")
    assert 'pip install "pinochle-rl[web]"' in said and "\n" not in said
