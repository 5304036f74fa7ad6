"""Bot programs as seats: the reference bots in both languages through the arena, the spec grammar,
what a misbehaving bot gets (a clear error, nothing lost, never a hang), the checker, and the
generated transcript of docs/bot_protocol.md."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents.arena import ArenaConfig, ArenaError, WorkerFailure, run_arena
from agents.arena.play import Job, play_job
from agents.arena.tournament import MAX_CHUNK, MAX_PROGRAM_CHUNK, plan_jobs
from agents.program import BotError
from agents.program.check import check_bot
from agents.program.check import main as check_main
from agents.program.files import program_files
from agents.registry import load_agent, program_commands, split_specs
from pinochle_env.rules.switches import Rules
from tests.helpers import ROOT

PYTHON = shlex.quote(sys.executable)
PYTHON_BOT = f"{PYTHON} examples/random_bot.py"
FAULTY = f"{PYTHON} {shlex.quote(str(Path(__file__).with_name('faulty_bot.py')))}"
ANNOUNCE = f"program:cmd={FAULTY} announce"


def _node() -> str:
    node = shutil.which("node")
    assert node is not None, "the JavaScript reference bot needs Node.js: apt-get install nodejs (.ci/run does)"
    return node


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    """The reference bots' commands name examples/ relative to the repository root, as the docs do."""
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_reference_bots_play_the_heuristic_through_the_arena(tmp_path, language):
    bot = PYTHON_BOT if language == "python" else f"{_node()} examples/random_bot.js"
    spec = f"program:cmd={bot}"
    workers = 1 if language == "python" else 2  # the JavaScript bot from pool workers
    summary = run_arena(ArenaConfig(agents=("heuristic", spec), deals=2), tmp_path, workers=workers)
    (pairing,) = summary["pairings"]
    assert pairing["deal_pairs"] == 2 and pairing["b"] == spec
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert all(line["timing"]["b"][0] > 0 for line in lines)  # the bot took decisions in every pair
    (program,) = json.loads((tmp_path / "config.json").read_text())["programs"]
    script = Path(bot.split()[-1])
    assert program["command"] == bot and [entry["file"] for entry in program["files"]] == [str(script)]
    assert len(program["files"][0]["sha256"]) == 64


def test_a_bot_seeded_by_its_match_plays_the_same_whatever_the_table_does_around_it():
    """The Python reference bot, seeded by match_start, answers the same in two runs of the checker."""
    talks: list[list[str]] = [[], []]
    for talk in talks:
        check_bot(PYTHON_BOT, Rules(), hands=1, transcript=lambda way, line, talk=talk: talk.append(way + line))
    assert talks[0] == talks[1] and any(line.startswith('<{"type": "action"') for line in talks[0])


def test_the_python_bot_passes_the_checker_in_every_game():
    for variant in ("partnership", "cutthroat", "two_hand"):
        checks = check_bot(PYTHON_BOT, Rules(variant=variant), hands=1)
        assert [check.errors for check in checks] == [()] and checks[0].decisions > 0


# ------------------------------------------------------------------------------ specs


def test_program_spec_keeps_commas_in_the_command_and_takes_a_timeout():
    agent = load_agent("program:cmd=python3 bot.py --weights a,b,timeout=2.5")
    assert agent.command == ["python3", "bot.py", "--weights", "a,b"] and agent.timeout == 2.5
    quoted = load_agent("program:timeout=3,cmd=./my bot 'two words'")
    assert quoted.command == ["./my", "bot", "two words"] and quoted.timeout == 3
    mix = "mix:play=program:cmd=node examples/random_bot.js,timeout=4,default=heuristic"
    assert program_commands(mix) == ["node examples/random_bot.js"]
    assert split_specs("random,program:cmd=python3 bot.py --x 1,2,heuristic") == [
        "random",
        "program:cmd=python3 bot.py --x 1,2",
        "heuristic",
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("program:", "has no command"),
        ("program:cmd=python3 'bot.py", "cannot split the command"),
        ("program:cmd=x,timeout=0", "must be a number of seconds above 0"),
        ("program:cmd=x,timeout=1e7", "at most 86,400"),
        ("program:cmd=x,timeout=inf", "not a finite number"),
        ("program:python3 bot.py", "unknown parameter 'python3 bot.py' for agent 'program'"),
    ],
)
def test_bad_program_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec)


def test_a_transcript_file_is_written_in_place_where_its_folder_is_not_writable(tmp_path, monkeypatch):
    """--transcript /dev/stdout was refused for anyone but root: /dev cannot be written in."""
    from agents.program import check

    existing, fresh = tmp_path / "talk.txt", tmp_path / "new.txt"
    existing.write_text("")
    monkeypatch.setattr(check.os, "access", lambda path, mode: Path(path) == existing)
    assert check.transcript_problem(existing) == ""
    assert check.transcript_problem(fresh) == f"the folder {tmp_path} cannot be written"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--hands", "0"], "error: --hands must be at least 1, got 0\n"),
        (["--hands", "-1"], "error: --hands must be at least 1, got -1\n"),
        (["--timeout", "0"], "error: --timeout must be a number of seconds above 0 and at most 86,400, got 0\n"),
        (["--timeout", "-1"], "error: --timeout must be a number of seconds above 0 and at most 86,400, got -1\n"),
        (["--timeout", "1e9"], "error: --timeout must be a number of seconds above 0 and at most 86,400, got 1e+09\n"),
        (["--timeout", "inf"], "error: --timeout must be a number of seconds above 0 and at most 86,400, got inf\n"),
        (["--timeout", "nan"], "error: --timeout must be a number of seconds above 0 and at most 86,400, got nan\n"),
        (["--seed", "-1"], "error: --seed must be >= 0, got -1\n"),
        (["--hands", "0", "--seed", "-1"], "error: --hands must be at least 1, got 0\n"),  # the first, alone
        (["--transcript", "{tmp}"], "--transcript {tmp}: is a folder"),
        (["--transcript", "{tmp}/file/talk.txt"], "{tmp}/file is not a folder"),
        (["--transcript", "{tmp}/nowhere/talk.txt"], "the folder {tmp}/nowhere does not exist"),
    ],
)
def test_bot_check_refuses_a_bad_command_line_before_playing(tmp_path, capsys, argv, message):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(SystemExit) as exit_info:
        check_main([sys.executable, *[arg.format(tmp=tmp_path) for arg in argv]])
    said = capsys.readouterr()
    assert exit_info.value.code == 2 and message.format(tmp=tmp_path) in said.err
    assert "Traceback" not in said.err and "hand 1" not in said.out  # refused before any hand


def test_the_arena_refuses_a_program_that_does_not_start_or_speak_the_protocol(tmp_path):
    with pytest.raises(ArenaError, match=r"bad agent spec .*cannot start: No such file.*no-such-bot"):
        run_arena(ArenaConfig(agents=("random", "program:cmd=./no-such-bot")), tmp_path / "a")
    with pytest.raises(ArenaError, match=r"speaks protocol 99; this table speaks 1"):
        run_arena(ArenaConfig(agents=("random", f"program:cmd={FAULTY} version")), tmp_path / "b")


def test_program_files_are_the_arguments_naming_files_else_the_program_given_by_path(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("")
    assert program_files(f"{PYTHON} {script} --depth 3") == [script]
    assert program_files(str(script)) == [script]
    assert program_files("python3 -m mybot") == []


# ------------------------------------------------------------------------------ misbehaving bots


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("illegal", r"at decision 2 \(hand 0, seat 0, .* phase\): action 999 is not legal.*its answer: .*999"),
        ("garbage", r"at decision 2 .*: not JSON .*its answer: 'let me think\.\.\.'"),
        ("crash", r"at decision 2 .*closed its output \(exit status 3\).*standard error: Traceback: something broke"),
        ("hang", r"at decision 2 .*sent no answer within 1 s"),
    ],
)
def test_a_misbehaving_bot_is_stopped_with_an_error_naming_it_the_decision_and_its_answer(fault, message):
    (check,) = check_bot(f"{FAULTY} {fault}", Rules(), hands=1, timeout=1)
    (error,) = check.errors
    assert error.startswith(f"bot 'program:cmd={FAULTY} {fault}' (named 'faulty-{fault}') at decision 2")
    assert re.search(message, error), error


def test_the_checker_reports_every_error_and_a_bot_that_does_not_exit():
    checker = [sys.executable, "-m", "agents.program.check"]
    result = subprocess.run([*checker, f"{FAULTY} illegal", "--hands", "2"], capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("action 999 is not legal") == 2 and "2 protocol error(s)" in result.stdout
    (check,) = check_bot(f"{FAULTY} linger", Rules(), hands=1)
    assert check.errors == (f"bot 'program:cmd={FAULTY} linger' at the end of its match: "
                            "did not exit after match_end and the end of its input",)  # fmt: skip
    fine = subprocess.run([*checker, PYTHON_BOT, "--hands", "1"], capture_output=True)
    assert fine.returncode == 0 and b"0 protocol error(s)" in fine.stdout


def test_the_checker_plays_its_hands_in_one_process_and_reports_a_bot_that_takes_one_match():
    (first, second) = check_bot(f"{FAULTY} once", Rules(), hands=2)
    assert first.errors == ()
    (error,) = second.errors
    assert re.search(
        r"at (the start of match 2|decision 0 \(hand 0,.*\)): it closed its (input|output) \(exit status 0\)", error
    )
    assert [check.errors for check in check_bot(f"{FAULTY} none", Rules(), hands=2)] == [(), ()]


def test_a_crash_in_the_arena_keeps_the_results_so_far_and_the_stderr_and_resumes(tmp_path):
    counter = tmp_path / "count"
    spec = f"program:cmd={FAULTY} crash {counter} 200"  # its 200th decision of the run: in deal pair 1
    config = ArenaConfig(agents=("random", spec), deals=4)
    log = io.StringIO()
    with pytest.raises(WorkerFailure) as failure:
        run_arena(config, tmp_path / "run", workers=1, log=log)
    assert "Traceback (most recent call last)" not in log.getvalue()  # the message says all
    text = str(failure.value)
    assert f"bot {spec!r} (named 'faulty-crash') at decision" in text and "exit status 3" in text
    assert "continue with --resume" in text
    kept = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert 1 <= len(kept) < 4
    (log,) = (tmp_path / "run" / "bots").iterdir()
    assert "Traceback: something broke" in log.read_text() and "== deal " in log.read_text()
    summary = run_arena(config, tmp_path / "run", workers=1, resume=True)  # the fault came once
    assert summary["pairings"][0]["deal_pairs"] == 4


def test_a_hanging_bot_in_a_pool_worker_ends_the_run_instead_of_hanging_it(tmp_path):
    spec = f"program:cmd={FAULTY} hang,timeout=1"
    with pytest.raises(WorkerFailure, match=r"failed in a worker: BotError: .*sent no answer within 1 s"):
        run_arena(ArenaConfig(agents=("random", spec), deals=2), tmp_path, workers=2)


def test_resume_refuses_a_bot_program_that_changed(tmp_path):
    bot = tmp_path / "bot.py"
    shutil.copy(ROOT / "examples" / "random_bot.py", bot)
    config = ArenaConfig(agents=("random", f"program:cmd={PYTHON} {bot}"), deals=1)
    run_arena(config, tmp_path / "run")
    bot.write_text(bot.read_text() + "\n# changed\n")
    with pytest.raises(ArenaError, match=r"bot program changed since the run began: .*bot\.py"):
        run_arena(config.__class__(**{**config.__dict__, "deals": 2}), tmp_path / "run", resume=True)


# ------------------------------------------------------------------------------ the arena's bot processes


def _announced(folder: Path) -> list[tuple[int, ...]]:
    """The matches the announcing bot's processes began, by the arena's headings in its standard
    error logs: (deal, play, seat, process id, seed) each."""
    matches = []
    for log in folder.iterdir():
        heading: tuple[int, ...] = ()
        for line in log.read_text().splitlines():
            if found := re.fullmatch(r"== deal (\d+), play (\d+), seat (\d+): .* ==", line):
                heading = tuple(map(int, found.groups()))
            elif found := re.fullmatch(r"process (\d+) starts a match, seed (\d+)", line):
                matches.append((*heading, *map(int, found.groups())))
    return matches


def _child_processes() -> set[int]:
    """This process's children still there (running, or exited and never waited for)."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state_and_parent = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(state_and_parent[1]) == os.getpid():
            children.add(int(stat.parent.name))
    return children


def test_the_arena_keeps_a_bot_process_for_the_deals_of_a_job_one_per_play_and_seat(tmp_path):
    """Three deal pairs in one job: each play and seat of the bot is one process for all three deals
    (a new match each, seeded as a fresh process would be), so none sees both plays of a deal; the
    logs head each match's output with its deal, play and seat; no process outlives the job."""
    job = Job("deal", "random", ANNOUNCE, (0, 1, 2), Rules(), seed=7, hand_cap=1, logs=str(tmp_path / "job"))
    before = _child_processes()  # earlier tests' (multiprocessing's resource tracker)
    lines = play_job(job)
    assert [line["id"] for line in lines] == [0, 1, 2] and _child_processes() <= before
    matches = _announced(tmp_path / "job")
    places = {(deal, play, seat) for deal, play, seat, _, _ in matches}
    assert len(matches) == len(places) == 12  # 3 deals x 2 plays x the bot's 2 seats, one match each
    plays_and_seats: dict[int, set[tuple[int, int]]] = {}
    deals: dict[int, set[int]] = {}
    for deal, play, seat, process, _ in matches:
        plays_and_seats.setdefault(process, set()).add((play, seat))
        deals.setdefault(process, set()).add(deal)
    assert len(plays_and_seats) == 4 and all(len(places) == 1 for places in plays_and_seats.values())
    assert all(seen == {0, 1, 2} for seen in deals.values())
    alone = dataclasses.replace(job, ids=(2,), logs=str(tmp_path / "alone"))
    assert play_job(alone)[0]["plays"] == lines[2]["plays"]
    seeds = {(deal, play, seat): seed for deal, play, seat, _, seed in matches}
    assert {place: seeds[place] for place in seeds if place[0] == 2} == {
        (deal, play, seat): seed for deal, play, seat, _, seed in _announced(tmp_path / "alone")
    }


def test_a_pairing_with_a_bot_program_plays_larger_jobs():
    """A bot keeps its processes for a job, so its pairings get jobs of up to MAX_PROGRAM_CHUNK deal
    pairs (fewer process starts), others up to MAX_CHUNK, both split evenly over the workers."""
    config = ArenaConfig(agents=("random", ANNOUNCE, "heuristic"), deals=200)
    sizes: dict[tuple[str, str], set[int]] = {}
    for job in plan_jobs(config, set(), workers=1):
        sizes.setdefault((job.a, job.b), set()).add(len(job.ids))
    with_bot = [pairing for pairing in sizes if ANNOUNCE in pairing]
    assert len(with_bot) == 2 and all(max(sizes[pairing]) == MAX_PROGRAM_CHUNK for pairing in with_bot)
    assert max(sizes["random", "heuristic"]) == MAX_CHUNK < MAX_PROGRAM_CHUNK
    assert max(len(job.ids) for job in plan_jobs(config, set(), workers=40)) == 600 // (4 * 40)


def test_a_bot_failing_in_the_middle_of_a_job_names_its_deal_and_no_process_is_left(tmp_path):
    crash = f"program:cmd={FAULTY} crash {tmp_path / 'count'} 120"  # deal 1: B decides 88 times a deal
    job = Job("deal", ANNOUNCE, crash, (0, 1, 2), Rules(), seed=7, hand_cap=1, logs=str(tmp_path / "bots"))
    before = _child_processes()
    with pytest.raises(BotError) as failure:
        play_job(job)
    assert _child_processes() <= before
    named = re.match(
        rf"deal (\d), play (\d): bot {re.escape(repr(crash))} \(named 'faulty-crash'\) at decision ", str(failure.value)
    )
    assert named is not None and named.group(1) != "0", failure.value
    (log,) = [path.read_text() for path in (tmp_path / "bots").iterdir() if "something broke" in path.read_text()]
    crashed_in = log.split("Traceback: something broke")[0].rsplit("== deal ", 1)[1]
    assert crashed_in.startswith(f"{named.group(1)}, play {named.group(2)}, seat ")


# ------------------------------------------------------------------------------ other drivers


def test_bot_programs_sit_in_the_single_seat_env_and_the_play_command(capsys, tmp_path):
    from agents.gym_env import SingleSeatEnv
    from agents.terminal.cli import main as play

    spec = f"program:cmd={PYTHON_BOT}"
    env = SingleSeatEnv(partner=spec, opponents=[spec, f"program:cmd={FAULTY} none"])
    env.reset(seed=3)
    done, info = False, {}
    while not done:
        mask = env.action_masks()
        _, _, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
        done = terminated or truncated
    env.close()
    assert "hand_record" in info
    assert play(["--opponents", spec, "--seed", "1"], read=lambda prompt: "quit") == 0
    at_once = f"program:cmd={FAULTY} illegal {tmp_path / 'count'} 1"  # illegal at its first decision
    failed = play(["--opponents", at_once, "--seed", "1", "--seat", "1"], read=lambda prompt: "quit")
    assert failed == 1 and "action 999 is not legal" in capsys.readouterr().err


def test_the_transcript_in_the_docs_is_the_one_a_hand_gives_now():
    """docs/bot_protocol.md's transcript is generated (python docs/bot_transcript.py), never edited."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import bot_transcript
    finally:
        sys.path.remove(str(ROOT / "docs"))
    page = bot_transcript.page_block(bot_transcript.PAGE.read_text(encoding="utf-8"))
    assert page == bot_transcript.transcript(), "regenerate it: python docs/bot_transcript.py"
    assert '> {"type":"hand_end"' in page and '> {"type":"match_end"}' in page
