"""pinochle-play: the terminal game, in-process and end to end through stdin in a subprocess.

A ``Typist`` plays the person's seat in-process, reading the legal moves from the session's game
(the test hook), after some scripted bad input; the lines it typed are then fed to the real
command in a subprocess, which must print exactly the same transcript and save the same records.
"""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents import registry
from agents.terminal import PlayOptions, PlaySession, main, parse_options
from agents.terminal.cli import build_parser
from agents.terminal.tables import table_for
from pinochle_env.actions import layout_for
from pinochle_env.cards import NUM_TYPES, RANKS, SUITS, card_to_str
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import Rules
from tests.helpers import ROOT

BAD_OPENING = ["gibberish", "1010", "990", "?", "QS"]


class Typist:
    """Types the person's moves: scripted lines first, then bad cards at the first play, else legal moves.

    Legal moves are ``pass`` in the auction (the lowest bid with ``bid``), ``play on`` at the
    throw-in choice, in a meld turn a dix exchange if it can, else the first legal action (a meld
    while there is one), else the first legal one. ``stop_at_hand`` raises ``EOFError`` (Ctrl-D)
    at the first prompt of that hand (0-based); ``help_at_play`` types ``?`` first at every prompt
    for a card to play; ``pass_at_once`` types all the cards of the person's first pass (or
    burial) on one line (``passed_at_once``), after a line that cannot be taken whole (with a card
    the rules forbid, or a card held once named twice); ``after_first_trick`` lines are typed at
    the first prompt after a trick, ``at_first[decision]`` at the first prompt of that kind of decision.
    """

    def __init__(
        self,
        out: io.StringIO,
        script: list[str] | None = None,
        stop_at_hand: int | None = None,
        help_at_play: bool = False,
        pass_at_once: bool = False,
        after_first_trick: list[str] | None = None,
        bid: bool = False,
        at_first: dict[str, list[str]] | None = None,
    ) -> None:
        self.out = out
        self.script = list(script or [])
        self.stop_at_hand = stop_at_hand
        self.help_at_play = help_at_play
        self.pass_at_once = pass_at_once
        self.passed_at_once: str | None = None
        self.after_first_trick = list(after_first_trick or [])
        self.bid = bid
        self.at_first = dict(at_first or {})
        self.last_prompt: tuple[int, int] | None = None
        self.forced_prompts = 0  # prompts for a card to play when only one is legal
        self.session: PlaySession | None = None
        self.typed: list[str] = []
        self.tried_bad_cards = False

    def __call__(self, prompt: str) -> str:
        self.out.write(prompt)
        game = self.session.game
        decision = game.phase.decision
        if self.stop_at_hand is not None and game.hand_number >= self.stop_at_hand:
            raise EOFError
        self.forced_prompts += decision == "play" and len(game.legal_actions()) == 1
        if decision == "play" and not self.tried_bad_cards:
            self.tried_bad_cards = True
            self.script += bad_cards(game)
        if self.pass_at_once and self.passed_at_once is None and decision == "passing":
            count = self.session.table.cards_to_pass(game.view(game.to_act))
            self.passed_at_once = " ".join(first_legal_cards(game, count))
            forbidden = bad_cards(game)[1:]
            held_once = [card_to_str(c) for c in range(NUM_TYPES) if game.hands[game.to_act][c] == 1][:1] * 2
            self.script += [" ".join(forbidden or held_once), self.passed_at_once]
        self.script[:0] = self.at_first.pop(decision, [])
        if self.after_first_trick and game.tricks:
            self.script[:0], self.after_first_trick = self.after_first_trick, []
        here = (game.hand_number, len(game.tricks) * 10 + len(game.trick))
        if self.help_at_play and decision == "play" and here != self.last_prompt:
            self.script.insert(0, "?")
        self.last_prompt = here
        line = self.script.pop(0) if self.script else legal_move(game, self.bid)
        self.typed.append(line)
        return line


def legal_move(game, bid: bool = False) -> str:
    legal, layout, decision = game.legal_actions(), game.layout, game.phase.decision
    if decision == "auction":
        return layout.to_string(legal[0] if bid and legal[0] < layout.num_bids else layout.passing)
    if decision == "throw_in":
        return layout.to_string(layout.play_on)
    if decision == "meld" and layout.dix_exchange in legal:
        return layout.to_string(layout.dix_exchange)
    return layout.to_string(legal[0])


def first_legal_cards(game, count: int) -> list[str]:
    """The first legal card, ``count`` times over on a copy of the game (cards to pass or bury)."""
    game = game.clone()
    cards = []
    for _ in range(count):
        action = game.legal_actions()[0]
        cards.append(game.layout.to_string(action))
        game.apply(action)
    return cards


def bad_cards(game) -> list[str]:
    """A card the person does not hold, and a held card the rules forbid now (when there is one)."""
    hand, legal = game.hands[game.to_act], game.legal_actions()
    missing = [card_to_str(c) for c in range(NUM_TYPES) if not hand[c]][:1]
    forbidden = [card_to_str(c) for c in range(NUM_TYPES) if hand[c] and game.layout.card0 + c not in legal][:1]
    return missing + forbidden


def play_in_process(options: PlayOptions, **typist_options) -> tuple[str, Typist, list[dict]]:
    out = io.StringIO()
    typist = Typist(out, **typist_options)
    typist.session = PlaySession(options, typist, out)
    records = typist.session.run()
    return out.getvalue(), typist, records


def run_cli(args: list[str], lines: list[str]) -> subprocess.CompletedProcess:
    stdin = "".join(f"{line}\n" for line in lines)
    command = [sys.executable, "-m", "agents.terminal", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def first_hand_played_out_with_a_forbidden_card() -> tuple[int, str, Typist, list[dict]]:
    """The first seed whose first hand is played out and whose first play offers a held card the rules forbid."""
    for seed in range(50):
        transcript, typist, records = play_in_process(PlayOptions(seed=seed, hands=1), script=BAD_OPENING)
        if len(records[0]["tricks"]) == 12 and "you must" in transcript:
            return seed, transcript, typist, records
    raise AssertionError("no such seed in 0..49")


def check_through_stdin(args: list[str], transcript: str, typist: Typist, records: list[dict], tmp_path: Path) -> None:
    """The real command, fed the lines the typist typed, prints the same transcript and saves the same records."""
    save = tmp_path / "hands.jsonl"
    result = run_cli([*args, "--save", str(save)], typist.typed)
    assert result.returncode == 0, result.stderr
    assert result.stdout == transcript + f"saved {len(records)} hand record(s) to {save}\n"
    assert read_records(save) == json.loads(json.dumps(records))
    assert "Traceback" not in result.stderr


def test_full_hand_through_stdin_matches_in_process_play(tmp_path):
    seed, transcript, typist, records = first_hand_played_out_with_a_forbidden_card()
    check_through_stdin(["--seed", str(seed), "--hands", "1"], transcript, typist, records, tmp_path)
    for expected in (
        "not understood: 'gibberish' (the auction takes a bid such as '260', or 'pass')",
        "bid 1010 is not a multiple of 10",
        "bid 990 is not legal now: a bid raises the high bid by 10 or 20",
        "commands:",
        "QS is not legal now: this is the auction;",
        "you do not hold",
        "you must",  # follow suit, head the trick or trump
        "hand over:",
        "hands finished: 1",
    ):
        assert expected in transcript


def test_end_of_input_stops_cleanly_and_saves_the_finished_hands(tmp_path):
    transcript, typist, records = play_in_process(PlayOptions(seed=1, hands=3), stop_at_hand=1)
    assert len(records) == 1 and "summary (quit)" in transcript
    save = tmp_path / "hands.jsonl"
    result = run_cli(["--seed", "1", "--hands", "3", "--save", str(save)], typist.typed)
    assert result.returncode == 0, result.stderr
    assert "== summary (quit)\nhands finished: 1" in result.stdout
    assert read_records(save) == json.loads(json.dumps(records))


def test_quit_and_other_seats_and_rules():
    options = parse_options(["--seat", "2", "--left", "mix:default=random", "--rule", "pass_count=0"])
    specs = [options.spec_for(name) for name in ("left", "partner", "right")]
    assert (options.seat, specs) == (2, ["mix:default=random", "random", "random"])
    assert PlaySession(options).agents[3].name == "mix:default=random"  # player 3 sits on player 2's left
    assert options.rules.pass_count == 0 and options.hands is None
    out = io.StringIO()
    assert main(["--seat", "2", "--seed", "1"], read=lambda prompt: "quit", out=out) == 0
    assert "you are player 2 (team 0, with player 0)" in out.getvalue() and "hands finished: 0" in out.getvalue()


def test_ctrl_c_stops_like_quit():
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    out = io.StringIO()
    assert PlaySession(PlayOptions(seed=1), interrupt, out).run() == []
    assert "== summary (quit)" in out.getvalue()


def test_a_whole_game_to_the_target_score():
    transcript, _, records = play_in_process(PlayOptions(seat=1, seed=2))
    assert records[-1]["game_winner"] is not None
    assert "game won by" in transcript and f"hands finished: {len(records)}" in transcript


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "no_such_rule=1"], "unknown rule switch"),
        (["--rule", "head_rule"], "expected NAME=VALUE"),
        (["--partner", "no_such_agent"], "unknown agent"),
        (["--hands", "0"], "at least 1"),
        (["--seed", "-1"], "--seed must be >= 0, got -1"),
        (["--save", "/no/such/folder/x.jsonl"], "no folder"),
        (["--seat", "4"], "the partnership game has seats 0..3"),
        (["--rule", "variant=cutthroat", "--seat", "3"], "the cutthroat game has seats 0..2"),
        (
            ["--rule", "variant=cutthroat", "--partner", "heuristic"],
            "has no partner seat; its other seats: --left, --right",
        ),
        (["--rule", "variant=two_hand", "--left", "heuristic"], "the two_hand game has no left seat"),
        (
            ["--rule", "variant=cutthroat", "--opponents", "pimc:evaluate=heuristic"],
            "player 1 (left), pimc:evaluate=heuristic: pimc:evaluate=heuristic plays the partnership",
        ),
        (["--rules-preset", "pagat", "--rule", "variant=two_hand"], "rule run_extras does not apply to variant"),
        (["--rule", "bid_raises=plus10"], "not a random seed"),
        (["--rules-preset", "strict"], "unknown rules preset 'strict'; presets: default, pagat, casual"),
    ],
)
def test_bad_command_lines_are_refused(args, message):
    result = run_cli(args, [])
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def hand_order(hand_line: str) -> list[str]:
    """The cards of a ``your hand: S: A T | H: - | ...`` line, in the order shown."""
    cards = []
    for group in hand_line.split("your hand: ", 1)[1].split(" | "):
        label, ranks = group.split(": ")
        suit = label[0]
        assert suit in SUITS, hand_line
        cards += [rank + suit for rank in ranks.split() if rank in RANKS]
    return cards


def test_legal_moves_are_listed_in_the_order_of_the_hand():
    transcript, _, _ = play_in_process(PlayOptions(seed=3, hands=1), help_at_play=True)
    checked = 0
    lines = transcript.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("legal now: ") and lines[k + 1].startswith("your card> "):
            hand = next(earlier for earlier in reversed(lines[:k]) if earlier.startswith("your hand: "))
            legal = line.removeprefix("legal now: ").split(", ")
            assert legal == [card for card in dict.fromkeys(hand_order(hand)) if card in legal], line
            checked += 1
    assert checked > 5


def test_several_cards_are_passed_at_once(tmp_path):
    for seed in range(50):
        transcript, typist, records = play_in_process(PlayOptions(seed=seed, hands=1), pass_at_once=True)
        if typist.passed_at_once is not None:
            break
    else:
        raise AssertionError("the person passes in no first hand of seeds 0..49")
    record = records[0]
    passed = record["passed_to_declarer" if record["declarer"] == 2 else "passed_back"]
    assert typist.passed_at_once == " ".join(passed)
    assert f"you pass {' '.join(passed)} to player 2 (partner)" in transcript
    assert "none of" in transcript and "taken" in transcript  # the line naming a card twice was refused whole
    assert transcript.count("to your partner> ") == 2  # one prompt for the bad line, one for all four cards
    check_through_stdin(["--seed", str(seed), "--hands", "1"], transcript, typist, records, tmp_path)


def test_a_forced_card_is_played_without_asking():
    transcript, typist, records = play_in_process(PlayOptions(seed=5, hands=2))
    assert typist.forced_prompts == 0
    played_out = [record for record in records if record["tricks"]]
    # The last trick is always forced, so each hand played out says so at least once.
    assert transcript.count("(your only legal card)") >= len(played_out) >= 1


def test_trump_is_marked_in_the_hand():
    transcript, _, records = play_in_process(PlayOptions(seed=3, hands=1))
    trump = records[0]["trump"]
    hands = [line for line in transcript.splitlines() if line.startswith("your hand: ")]
    named = transcript.index("names trump")
    after = [line for line in transcript[named:].splitlines() if line.startswith("your hand: ")]
    assert after and all(f"| {trump} (trump): " in f"| {line[11:]}" for line in after)
    assert sum("(trump)" in line for line in hands) == len(after)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_trump_is_bold_on_a_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Terminal()
    typist = Typist(out)
    typist.session = PlaySession(PlayOptions(seed=3, hands=1), typist, out)
    typist.session.run()
    assert "\033[1m" in out.getvalue() and "(trump): " in out.getvalue()


BREAKDOWN = re.compile(
    r"^  (?P<team>us|them)(?P<declaring> \(declaring\))?: "
    r"(?:meld \d+, thrown in|meld (?P<meld>\d+)(?P<lost> lost \(.+\))?"
    r"(?: \+ tricks (?P<points>\d+) = (?P<total>\d+)(?P<short>, short of \d+)?)?): (?P<score>[+-]\d+)$",
    re.M,
)


def test_the_hand_result_gives_each_team_its_meld_and_tricks():
    transcript, _, records = play_in_process(PlayOptions(seed=4, hands=3))
    results = transcript.split("hand over: ")[1:]
    assert len(results) == len(records) == 3
    for result, record in zip(results, records, strict=True):
        lines = list(BREAKDOWN.finditer(result.split("\ngame: ")[0]))
        assert [line["team"] for line in lines] == (["us", "them"] if record["declarer"] % 2 == 0 else ["them", "us"])
        for line in lines:
            team = 0 if line["team"] == "us" else 1
            assert int(line["score"]) == record["score"][team]
            assert bool(line["declaring"]) == (record["declarer"] % 2 == team)
            if line["points"] is not None:
                assert int(line["meld"]) == record["meld"][team] + record["meld"][team + 2]
                assert int(line["points"]) == record["points"][team]
                assert int(line["total"]) == int(line["meld"]) * (not line["lost"]) + int(line["points"])
        assert f"\ngame: us {record['totals'][0]}, them {record['totals'][1]}" in result


def test_the_hand_result_says_when_meld_is_lost():
    """RULES.md case S4: bid 260, meld 60 and 100, the declaring team takes all 250 points."""
    record = {
        "declarer": 1, "bid": 260, "auction": [[1, 260]], "thrown_in": False, "made": True,
        "meld": [50, 60, 50, 0], "points": [0, 250], "tricks": [{"winner": 1}] * 12,
        "score": [0, 310], "totals": [0, 310], "game_winner": None,
    }  # fmt: skip
    lines = table_for(Rules(), 0, None, print).hand_result(record)
    assert lines == [
        "hand over: player 1 (left) bid 260 and made it",
        "  them (declaring): meld 60 + tricks 250 = 310: +310",
        "  us: meld 100 lost (no trick points) + tricks 0 = 0: +0",
        "game: us 0, them 310",
    ]


def test_commands_show_the_last_trick_and_the_meld():
    for seed in range(50):
        options = PlayOptions(seed=seed, hands=1)
        transcript, typist, records = play_in_process(options, after_first_trick=["last", "meld"])
        if "last" in typist.typed:
            break
    else:
        raise AssertionError("no first hand of seeds 0..49 asks the person after its first trick")
    trick = records[0]["tricks"][0]
    names = ["you", "left", "partner", "right"]
    plays = ", ".join(f"{names[(trick['leader'] + i) % 4]} {card}" for i, card in enumerate(trick["cards"]))
    winner = "you" if trick["winner"] == 0 else f"player {trick['winner']} ({names[trick['winner']]})"
    assert f"last trick (trick 1): {plays}; {winner} took it (" in transcript
    for seat, name in enumerate(names):
        assert re.search(rf"(^|> ){name}: {records[0]['meld'][seat]}\b", transcript, re.M), name  # after a prompt


def test_the_rule_value_seed_is_explained_in_words():
    options = PlayOptions(rules=Rules(throw_in="never"), seed=1, hands=1)
    transcript, _, _ = play_in_process(options, script=["rules", "990"])
    assert (
        "Playing 1 hand(s), docs/rules.md's standard rules except throw_in=never ('rules' explains them)" in transcript
    )
    standard = "docs/rules.md's standard rule, which it names 'seed'; not a random seed"
    assert f"  bid_raises=seed: a bid raises the high bid by 10 or 20 ({standard})" in transcript
    assert "  throw_in=never: every hand is played out" in transcript
    assert (
        "bid 990 is not legal now: a bid raises the high bid by 10 or 20 (docs/rules.md's standard raises)"
        in transcript
    )
    assert all("not a random seed" in line for line in transcript.splitlines() if "=seed" in line)
    plain, _, _ = play_in_process(PlayOptions(seed=1, hands=1))
    assert "Playing 1 hand(s), docs/rules.md's standard rules ('rules' explains them)" in plain


def test_end_of_input_in_the_first_hand_writes_no_file(tmp_path):
    save = tmp_path / "hands.jsonl"
    result = run_cli(["--seed", "1", "--save", str(save)], [])
    assert result.returncode == 0, result.stderr
    assert "hands finished: 0" in result.stdout and f"{save} was not written" in result.stdout
    assert not save.exists()


def test_each_finished_hand_is_saved_at_once(tmp_path):
    save = tmp_path / "hands.jsonl"
    out = io.StringIO()
    typist = Typist(out)

    def crash_in_the_second_hand(prompt: str) -> str:
        if typist.session.game.hand_number == 1:
            raise RuntimeError("the terminal went away")
        return typist(prompt)

    typist.session = PlaySession(PlayOptions(seed=1, hands=3, save=str(save)), crash_in_the_second_hand, out)
    with pytest.raises(RuntimeError):
        typist.session.run()
    assert read_records(save) == json.loads(json.dumps(typist.session.records)) and len(typist.session.records) == 1


def test_saved_hands_are_appended_to_an_existing_file(tmp_path):
    """Hand records are JSON lines: a second session adds its hands to the file, never truncates it."""
    save = tmp_path / "hands.jsonl"
    save.write_text('{"earlier": "session"}\n')
    _, _, records = play_in_process(PlayOptions(seed=1, hands=1, save=str(save)))
    assert read_records(save) == [{"earlier": "session"}, *json.loads(json.dumps(records))]
    assert "an existing file is added to" in " ".join(build_parser().format_help().split())


def test_a_save_path_that_cannot_take_records_is_refused_at_start_up(tmp_path, capsys):
    """A folder passed the start-up check, then lost the first hand to IsADirectoryError when it ended."""
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--save", str(tmp_path)])
    assert exit_info.value.code == 2
    assert f"--save {tmp_path}: is a folder; name a file" in capsys.readouterr().err
    # An empty path (an unset variable) was taken for no --save: the hands played were saved nowhere.
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--save", ""])
    assert exit_info.value.code == 2 and "--save '' names no file" in capsys.readouterr().err


def test_a_rules_preset_with_rules_over_it(tmp_path):
    args = ["--rules-preset", "casual", "--rule", "counting=classic", "--seed", "1", "--hands", "1"]
    options = parse_options(args)
    assert options.rules == Rules(head_rule="none", must_overtrump=False, counting="classic")
    assert parse_options(["--rules-preset", "casual", "--rule", "head_rule=winner"]).rules.head_rule == "winner"
    transcript, typist, records = play_in_process(options)
    assert "standard rules except head_rule=none, must_overtrump=false, counting=classic" in transcript
    assert records[0]["options"] == options.rules.to_dict()
    check_through_stdin(args, transcript, typist, records, tmp_path)


CUTTHROAT = Rules(variant="cutthroat", throw_in="never")


def first_hand_where(rules: Rules, wanted, **typist_options) -> tuple[int, str, Typist, list[dict]]:
    """The first seed in 0..49 whose first hand under ``rules`` makes ``wanted(transcript, typist, record)`` true."""
    for seed in range(50):
        transcript, typist, records = play_in_process(PlayOptions(rules=rules, seed=seed, hands=1), **typist_options)
        if wanted(transcript, typist, records[0]):
            return seed, transcript, typist, records
    raise AssertionError("no such seed in 0..49")


def test_cutthroat_as_declarer_through_stdin(tmp_path):
    """The person wins the auction, takes the widow, buries 3 cards on one line and plays 15 tricks."""

    def declares_and_tries_a_melded_card(transcript: str, typist: Typist, record: dict) -> bool:
        return record["declarer"] == 0 and "is in your meld" in transcript

    seed, transcript, typist, records = first_hand_where(
        CUTTHROAT, declares_and_tries_a_melded_card, bid=True, pass_at_once=True
    )
    record, buried = records[0], " ".join(records[0]["buried"])
    assert "Pinochle, cutthroat (three-handed) game: you are player 0; player 1 (left): random, " in transcript
    assert f"you win the auction at {record['bid']}\nthe widow: {' '.join(record['widow'])}; you take it" in transcript
    assert "is in your meld, and you hold other cards to bury" in transcript  # the line before was refused whole
    assert f"> you bury {buried}\n" in transcript and typist.passed_at_once == buried  # after the prompt
    assert len(record["tricks"]) == 15 and typist.forced_prompts == 0
    # The result: the declarer's buried counters count besides its tricks; each opponent on its own.
    extra = f" + buried {record['buried_points']}" if record["buried_points"] else ""
    tricks = record["points"][0] - record["buried_points"]
    assert f"  you (declarer): meld {record['meld'][0]} + tricks {tricks}{extra} = " in transcript
    for seat, name in ((1, "left"), (2, "right")):
        line = rf"^  {name}: meld {record['meld'][seat]}( lost \(.+\))? \+ tricks {record['points'][seat]} = "
        assert re.search(line, transcript, re.M), name
    args = ["--rule", "variant=cutthroat", "--rule", "throw_in=never", "--seed", str(seed), "--hands", "1"]
    check_through_stdin(args, transcript, typist, records, tmp_path)


def test_cutthroat_an_opponent_buries_face_down():
    _, transcript, _, records = first_hand_where(CUTTHROAT, lambda transcript, typist, record: record["declarer"] != 0)
    record = records[0]
    where = ["you", "left", "right"][record["declarer"]]
    name = f"player {record['declarer']} ({where})"
    assert f"the widow: {' '.join(record['widow'])}; {name} takes it" in transcript
    assert f"\n{name} buries 3 cards\n" in transcript and "you bur" not in transcript
    assert f"\n  {where} (declarer): meld {record['meld'][record['declarer']]}" in transcript


TWO_HAND = Rules(variant="two_hand")


def test_two_handed_hand_through_stdin(tmp_path):
    """Stock play, meld turns (melds, the dix), the draws, the play-out and the result, end to end."""

    def melds_and_the_dix(transcript: str, typist: Typist, record: dict) -> bool:
        entries = [entry for turn in record["melds"] for entry in turn]
        mine = {entry["meld"].split()[0] for entry in entries if entry["seat"] == 0}
        return {"dix", "marriage"} <= mine and any(entry["seat"] == 1 for entry in entries)

    refusals = {"play": ["no meld"], "meld": ["AS", "double run"]}
    seed, transcript, typist, records = first_hand_where(TWO_HAND, melds_and_the_dix, at_first=refusals)
    record = records[0]
    trump = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[record["trump"]]
    assert "Pinochle, two-handed game: you are player 0; player 1 (opponent): random." in transcript
    assert f"trump: {trump} (the turn-up {record['turn_up']} lies under the stock)" in transcript
    assert "no meld is not legal now: you meld only in your meld turn" in transcript
    assert "AS is not legal now: this is your meld turn" in transcript
    assert "double run is not legal now: it needs " in transcript
    for entry in (entry for turn in record["melds"] for entry in turn):
        who = "you" if entry["seat"] == 0 else re.escape("player 1 (opponent)")
        if entry["meld"] == "dix exchange":
            said = f"{who} exchange(s)? the dix {entry['cards'][0]} for the turn-up {entry['took']} \\(10\\)"
        elif entry["meld"] == "dix show":
            said = f"{who} shows? the dix {entry['cards'][0]} \\(10\\)"
        else:
            said = f"{who} melds? (royal marriage|{entry['meld']}) for {entry['points']}: {' '.join(entry['cards'])}"
        assert re.search(said, transcript), said
    # The person's draws are named, the opponent's never (but the turn-up it takes last).
    mine = [card for pair in record["draws"] for seat, card in pair if seat == 0]
    assert re.findall(r"you (?:draw (?:the last stock card )?|take the turn-up )(\w\w)", transcript) == mine
    assert "player 1 (opponent) draws a card" in transcript
    assert not re.search(r"player 1 \(opponent\) draws (?!a card|the last stock card,)", transcript)
    assert "the stock is gone" in transcript and "opponent holds: " in transcript
    for seat, name in ((0, "you"), (1, "opponent")):
        meld, points, score = record["meld"][seat], record["points"][seat], record["score"][seat]
        assert f"\n  {name}: meld {meld} + tricks {points} = {score}\n" in transcript
    assert len(record["tricks"]) == 24 and typist.forced_prompts == 0
    args = ["--rule", "variant=two_hand", "--seed", str(seed), "--hands", "1"]
    check_through_stdin(args, transcript, typist, records, tmp_path)


def test_two_handed_turned_up_dix_scores_for_the_dealer():
    seed = next(seed for seed in range(200) if PlaySession(PlayOptions(rules=TWO_HAND, seed=seed)).game.turn_up_dix)
    transcript, _, _ = play_in_process(PlayOptions(rules=TWO_HAND, seed=seed), script=["meld", "quit"])
    dealer = re.search(r"== hand 1: (player \d \((you|opponent)\)) deals", transcript)
    assert (
        dealer
        and f"the turn-up is the dix: the dealer, {dealer[1].replace('player 0 (you)', 'you')}, scores 10" in transcript
    )
    assert re.search(rf"{dealer[2]}: 10 \(the turned-up dix 10\)", transcript)


class Passer:
    """Passes whenever it may, else takes the first legal action."""

    name = "passer"

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, view, mask) -> int:
        layout = layout_for(view.rules.max_bid)
        return layout.passing if mask[layout.passing] else int(mask.nonzero()[0][0])


@pytest.mark.parametrize("variant", ["partnership", "cutthroat"])
@pytest.mark.parametrize("all_pass", ["dealer_stuck", "redeal"])
def test_nobody_bids(monkeypatch, variant, all_pass):
    monkeypatch.setitem(registry._REGISTRY, "passer", (lambda seed=None: Passer(), {}))
    rules = Rules(variant=variant, all_pass=all_pass)
    seed = next(seed for seed in range(20) if PlaySession(PlayOptions(rules=rules, seed=seed)).game.dealer != 0)
    options = PlayOptions(rules=rules, seed=seed, hands=1, opponents="passer", partner="passer")
    transcript, _, records = play_in_process(options, script=["pass", "250"])
    dealer = records[0]["dealer"]
    name = f"player {dealer} ({variant_kit(rules).seat_names[dealer]})"
    if all_pass == "redeal":
        assert f"nobody bid: {name} deals again\nyour hand: " in transcript
        assert records[0]["declarer"] == 0 and records[0]["bid"] == 250
    else:
        assert f"nobody bid: the dealer, {name}, is stuck at 250" in transcript
        assert f"hand over: {name} was stuck at 250 and " in transcript


def _first_seed_where_the_person(wanted, **options) -> int:
    """The first seed whose first hand brings the person (seat 0) to a ``wanted(game)`` prompt."""
    for seed in range(60):
        session = PlaySession(PlayOptions(seed=seed, hands=1, **options), lambda prompt: "quit", io.StringIO())
        game = session.game
        while not game.hand_over and not (game.to_act == 0 and wanted(game)):
            game.apply(decide_for(session, game))
        if not game.hand_over:
            return seed
    raise AssertionError("no such seed in 0..59")


def decide_for(session: PlaySession, game) -> int:
    """The session's agent's action at a seat of theirs, the first legal action at the person's."""
    from agents.base import decide

    return decide(session.agents[game.to_act], game) if game.to_act in session.agents else game.legal_actions()[0]


def test_a_card_named_more_often_than_it_is_held_is_said_so():
    """``9S 9S`` while holding one 9S said "you do not hold 9S"."""

    def passing(game) -> bool:
        return game.phase.decision == "passing" and any(count == 1 for count in game.hands[0])

    seed = _first_seed_where_the_person(passing)
    out = io.StringIO()
    typed: list[str] = []

    def read(prompt: str) -> str:
        game = session.game
        if typed:
            raise EOFError
        if game.phase.decision != "passing":  # as the seed was found
            return game.layout.to_string(game.legal_actions()[0])
        once = card_to_str(next(c for c in range(NUM_TYPES) if game.hands[0][c] == 1))
        typed.append(f"{once} {once}")
        return typed[-1]

    session = PlaySession(PlayOptions(seed=seed, hands=1), read, out)
    session.run()
    once = typed[0].split()[0]
    assert f"{once} is named more times than you hold it (none of {once} {once} taken)" in out.getvalue()


def test_a_line_not_understood_is_answered_with_what_the_decision_takes():
    """At the trump prompt the hint suggested "a bid like '260'"."""
    seed = _first_seed_where_the_person(lambda game: game.phase.decision == "trump")
    transcript, _, _ = play_in_process(PlayOptions(seed=seed, hands=1), bid=True, at_first={"trump": ["heats"]})
    assert "not understood: 'heats' (the trump takes a suit such as 'hearts' or 'H')" in transcript
    assert "260" not in transcript.split("heats", 1)[1].splitlines()[1]


@pytest.mark.parametrize(
    ("rules", "raises"),
    [({}, "bid 260 (a raise of 10 or 20 over the high bid)"), ({"bid_raises": "any"}, "any multiple of 10 above")],
)
def test_the_help_says_how_bids_may_rise_under_the_rules(rules, raises):
    """``?`` in the auction said bids go up in tens, where a raise is 10 or 20."""
    transcript, _, _ = play_in_process(PlayOptions(seed=1, hands=1, rules=Rules(**rules)), at_first={"auction": ["?"]})
    assert raises in transcript and "in tens" not in transcript


def test_the_hand_is_shown_once_when_the_person_opens_the_auction():
    """ "your hand:" was printed twice at the start of each hand."""
    seed = _first_seed_where_the_person(lambda game: game.phase.decision == "auction" and not game.auction)
    transcript, _, _ = play_in_process(PlayOptions(seed=seed, hands=1))
    start = transcript[transcript.index("== hand 1") : transcript.index("your bid> ")]
    assert start.count("your hand:") == 1


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_the_arrow_keys_edit_the_line_typed():
    """Without readline the Left arrow reached the move: 'pss' Left Left 'a' was refused as 'pss\\x1b[D\\x1b[Da'."""
    import os
    import pty
    import select

    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "agents.terminal", "--seed", "1", "--hands", "1"]
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, cwd=ROOT)
    os.close(follower)
    said, typed = b"", False
    try:
        while process.poll() is None or select.select([leader], [], [], 0)[0]:
            if not select.select([leader], [], [], 20)[0]:
                break
            try:
                said += os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not typed and b"your bid> " in said:
                os.write(leader, b"pss\x1b[D\x1b[Da\r")
                typed = True
            elif typed and b"you pass" in said:
                os.write(leader, b"\x04")
    finally:
        process.kill()
        process.wait()
        os.close(leader)
    assert b"you pass" in said and b"not understood" not in said
