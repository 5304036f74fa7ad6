"""Hand records: JSONL files, exact replay (whole hands and partial), decisions, training arrays, in
every game."""

from __future__ import annotations

import copy
import json
import math
import random
import re

import numpy as np
import pytest

import pinochle_env
from pinochle_env import BatchedGames, records
from pinochle_env.cards import card_from_str, card_to_str
from pinochle_env.games.kit import margins, new_game, variant_kit
from pinochle_env.games.partnership.encoding import PartnershipSpec
from pinochle_env.games.partnership.game import Game, Phase
from pinochle_env.games.partnership.replay import RECORD_KEYS
from pinochle_env.records import replay, to_arrays
from pinochle_env.rules.switches import PRESETS, SWITCH_NAMES, Rules
from tests.helpers import OTHER_GAMES, ROOT, S8_DEAL

#: The hand-record example of the rules (section "Hand record"), with every switch at its default.
SPEC_EXAMPLE = {
    "variant": "partnership",
    "options": {
        "variant": "partnership",
        "bid_raises": "seed",
        "pass_with_help": True,
        "all_pass": "dealer_stuck",
        "max_bid": 1000,
        "pass_count": 4,
        "pass_mode": "sequential",
        "throw_in": "seed",
        "run_extras": "consume",
        "head_rule": "winner",
        "must_overtrump": True,
        "counting": "counters",
        "save_meld": "points",
        "save_meld_applies_to": "defenders",
        "target_score": 1500,
    },
    "dealer": 3,
    "deal": S8_DEAL,
    "auction": [[0, 250], [1, 270], [2, "pass"], [3, "help"], [0, "pass"]],
    "declarer": 1,
    "bid": 270,
    "trump": "C",
    "passed_to_declarer": ["9D", "AS", "KH", "AD"],
    "passed_back": ["QS", "AC", "9S", "AD"],
    "meld": [80, 0, 0, 0],
    "thrown_in": True,
    "tricks": [],
    "points": [0, 0],
    "score": [80, -270],
    "totals": [80, -270],
}


# --------------------------------------------------------------------------------------------
# Helpers: play hands with random legal actions, remembering the state before every decision.


def pick(game: Game, rnd: random.Random) -> int:
    """A random legal action; the auction leans on passes and low bids so that hands get played."""
    legal = game.legal_actions()
    if game.phase == Phase.AUCTION:
        bids = [a for a in legal if a < game.layout.num_bids]
        if not bids or rnd.random() < 0.6:
            return rnd.choice([a for a in legal if a >= game.layout.num_bids])
        return rnd.choice(bids[:2])
    if game.phase == Phase.THROW_IN:
        return game.layout.play_on
    return rnd.choice(legal)


def snapshot(game: Game) -> dict:
    return {
        "events": list(game.events),
        "to_act": game.to_act,
        "phase": game.phase,
        "legal": game.legal_actions(),
        "hands": [list(h) for h in game.hands],
        "totals": list(game.totals),
    }


def play_hand(game: Game, rnd: random.Random) -> tuple[dict, list[int], list[dict]]:
    """Finish the current hand; returns its record, its actions and the state before each of them
    (then the final state). With ``all_pass="redeal"`` only the last deal's decisions count."""
    actions: list[int] = []
    states: list[dict] = []
    while not game.hand_over:
        states.append(snapshot(game))
        action = pick(game, rnd)
        actions.append(action)
        game.apply(action)
        if game.phase == Phase.AUCTION and not game.auction:  # redealt: start over
            actions, states = [], []
    states.append(snapshot(game))
    return game.record(), actions, states


def played_hands(rules: Rules, seed: int, hands: int) -> list[tuple[dict, list[int], list[dict]]]:
    """``hands`` consecutive hands of one game (a new game after a win)."""
    rnd = random.Random(seed)
    game = Game(rules, np.random.default_rng(seed))
    out = []
    for _ in range(hands):
        out.append(play_hand(game, rnd))
        if game.winner is None:
            game.next_hand()
        else:
            game = Game(rules, np.random.default_rng([seed, len(out)]))
    return out


@pytest.fixture(scope="module")
def hands() -> list[tuple[dict, list[int], list[dict]]]:
    """Hands of a few rule sets; later hands of a game carry non-zero running totals."""
    out = played_hands(Rules(), 1, 4)
    out += played_hands(Rules(pass_mode="simultaneous", counting="classic", throw_in="never", target_score=300), 2, 4)
    out += played_hands(Rules(pass_count=0, bid_raises="any", max_bid=400, head_rule="led_card"), 3, 3)
    return out


@pytest.fixture(scope="module")
def played(hands) -> tuple[dict, list[int], list[dict]]:
    """A hand with tricks played, from the second hand of a game on (non-zero totals before it)."""
    return next(h for h in hands if h[0]["tricks"] and h[0]["hand_number"] > 0 and h[0]["totals"] != h[0]["score"])


def test_fixture_hands_are_varied(hands):
    recs = [record for record, _, _ in hands]
    assert any(r["tricks"] for r in recs)
    assert any(r["hand_number"] > 0 for r in recs)
    assert len({json.dumps(r["options"], sort_keys=True) for r in recs}) == 3


# --------------------------------------------------------------------------------------------
# JSONL files


def test_jsonl_round_trip_and_append(tmp_path, hands):
    recs = [record for record, _, _ in hands]
    path = tmp_path / "hands.jsonl"
    assert records.write_jsonl(path, recs[:5]) == 5
    assert list(records.read_jsonl(path)) == recs[:5]
    assert len(path.read_text(encoding="utf-8").splitlines()) == 5  # one object per line
    assert records.write_jsonl(path, iter(recs[5:]), append=True) == len(recs) - 5
    assert list(records.read_jsonl(path)) == recs
    # Without append the file is replaced.
    assert records.write_jsonl(str(path), recs[:2]) == 2
    assert list(records.read_jsonl(str(path))) == recs[:2]
    # Empty lines are skipped; an empty iterable writes an empty file.
    path.write_text("\n" + json.dumps(recs[0]) + "\n\n   \n" + json.dumps(recs[1]) + "\n", encoding="utf-8")
    assert list(records.read_jsonl(path)) == recs[:2]
    assert records.write_jsonl(path, []) == 0
    assert list(records.read_jsonl(path)) == []


def test_one_record_alone_or_a_non_record_is_refused_before_writing(tmp_path, hands):
    """write_jsonl(path, record) wrote the record's 20 key names as 20 records."""
    path = tmp_path / "hands.jsonl"
    record = hands[0][0]
    with pytest.raises(ValueError, match=re.escape("not one record: write_jsonl(path, [record])")):
        records.write_jsonl(path, record)
    with pytest.raises(ValueError, match="record 1 is not a hand record"):
        records.write_jsonl(path, [record, "options"])
    assert not path.exists()


def test_appending_after_a_last_line_without_its_newline(tmp_path, hands):
    """A line cut short by a kill (pinochle-play --save appends) was joined by the next record, so
    neither could be read; it is removed, and a complete last record gets its newline."""
    recs = [record for record, _, _ in hands]
    path = tmp_path / "hands.jsonl"
    records.write_jsonl(path, recs[:2])
    path.write_bytes(path.read_bytes() + json.dumps(recs[2]).encode()[:40])  # a record cut short
    assert records.write_jsonl(path, recs[3:5], append=True) == 2
    assert list(records.read_jsonl(path)) == [*recs[:2], *recs[3:5]]
    path.write_bytes(path.read_bytes() + json.dumps(recs[5]).encode())  # whole, without its newline
    records.write_jsonl(path, recs[6:7], append=True)
    assert list(records.read_jsonl(path)) == [*recs[:2], *recs[3:7]]
    path.write_bytes(path.read_bytes() + b"[" * 100_000)  # too deep for json to read: not a record either
    records.write_jsonl(path, recs[7:8], append=True)
    assert list(records.read_jsonl(path)) == [*recs[:2], *recs[3:8]]


def test_read_records_replay(tmp_path, hands):
    path = tmp_path / "hands.jsonl"
    records.write_jsonl(path, [record for record, _, _ in hands])
    for record in records.read_jsonl(path):
        assert records.replay(record).record() == record


@pytest.mark.parametrize(
    ("line", "message"),
    [(b"\xff\xfe not text", "not UTF-8 text"), (b"[" * 100_000, "nested too deeply")],  # were bare errors
)
def test_a_line_that_cannot_be_read_names_its_number(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(SPEC_EXAMPLE).encode() + b"\n" + line + b"\n")
    with pytest.raises(ValueError, match=rf"bad\.jsonl:2: not a JSON hand record \({message}\)"):
        list(records.read_jsonl(path))


def test_malformed_line_names_its_number(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps(SPEC_EXAMPLE)
    path.write_text(good + "\n" + good + '\n{"variant": "partnership", \n' + good + "\n", encoding="utf-8")
    reader = records.read_jsonl(path)
    assert next(reader) == SPEC_EXAMPLE
    assert next(reader) == SPEC_EXAMPLE
    with pytest.raises(ValueError, match=r"bad\.jsonl:3\b"):
        next(reader)


def test_non_object_line_names_its_number(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(SPEC_EXAMPLE) + "\n42\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":2\b"):
        list(records.read_jsonl(path))


@pytest.mark.parametrize("key", ["tricks", "score", "options", "deal"])
def test_record_missing_a_key_raises(tmp_path, key):
    record = {k: v for k, v in SPEC_EXAMPLE.items() if k != key}
    path = tmp_path / "short.jsonl"
    records.write_jsonl(path, [SPEC_EXAMPLE, record])
    reader = records.read_jsonl(path)
    next(reader)
    with pytest.raises(ValueError, match=rf":2\b.*{key}"):
        next(reader)
    with pytest.raises(ValueError, match=key):  # "lacks deal", "no 'options'"
        records.replay(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deal": None}, "no deal or no dealer"),  # replayed a deal drawn at random
        ({"dealer": None}, "no deal or no dealer"),
        ({"totals": [1]}, "not one per team"),  # an IndexError
        ({"totals": 7}, "cannot be set up from it"),
        ({"trump": 5}, "no valid decision for player"),  # an AttributeError
        ({"variant": "solo"}, "not a partnership hand record"),
    ],
)
def test_a_damaged_record_is_a_value_error_naming_the_damage(change, message):
    for upto in (None, 3) if "trump" not in change else (None,):  # the trump is named after the auction
        with pytest.raises(ValueError, match=message):
            records.replay({**SPEC_EXAMPLE, **change}, upto=upto)


# --------------------------------------------------------------------------------------------
# Replay


def test_replay_reproduces_every_hand(hands):
    for record, _, _ in hands:
        game = records.replay(record)
        assert game.hand_over
        assert game.record() == record


def test_replay_upto_is_the_state_before_that_decision(hands):
    for record, actions, states in hands:
        n = len(actions)
        assert len(states) == n + 1
        for k in sorted({0, 1, 2, n // 2, n - 1, n}):
            game = records.replay(record, upto=k)
            state = states[k]
            assert game.events == state["events"], k
            assert game.to_act == state["to_act"] and game.phase == state["phase"]
            assert game.legal_actions() == state["legal"]
            assert game.hands == state["hands"] and game.totals == state["totals"]
            if k < n:
                assert game.to_act >= 0 and actions[k] in game.legal_actions()
        # The state just before the last decision, stepped once, is the finished hand.
        game = records.replay(record, upto=n - 1)
        game.apply(actions[-1])
        assert game.record() == record
        # ``upto`` past the end stops at the end.
        assert records.replay(record, upto=n + 5).record() == record
    record = hands[0][0]
    for upto in (-1, 2.5, "3", True):  # each used to replay the whole hand without a word
        with pytest.raises(ValueError, match=re.escape(f"upto={upto!r} must be a whole number of decisions >= 0")):
            records.replay(record, upto=upto)
    edited = {**record, "score": [999, 0]}
    with pytest.raises(ValueError, match=r"the record's score.* differ"):  # checked past the end too
        records.replay(edited, upto=len(hands[0][1]) + 5)


def test_decisions_yield_the_original_actions(hands):
    for record, actions, states in hands:
        seen = []
        for k, (game, seat, action) in enumerate(records.decisions(record)):
            assert seat == game.to_act == states[k]["to_act"]
            assert game.events == states[k]["events"]
            assert action in game.legal_actions()
            seen.append((seat, action))
        assert seen == [(state["to_act"], action) for state, action in zip(states, actions, strict=False)]


def first_card_not_held(record: dict, trick: int, position: int) -> str:
    """A card type the player at ``position`` of ``trick`` does not hold at that moment."""
    game = records.replay(record, upto=_decisions_before_play(record) + 4 * trick + position)
    seat = game.to_act
    return next(card_to_str(c) for c in range(24) if not game.hands[seat][c])


def _decisions_before_play(record: dict) -> int:
    return sum(1 for game, _, _ in records.decisions(record) if game.phase != Phase.PLAY)


def _change(path: list, value):
    def edit(record: dict) -> None:
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value

    return edit


EDITS = {
    "score": _change(["score", 0], lambda v: v + 10),
    "points": _change(["points"], lambda v: [v[1], v[0]]),
    "meld": _change(["meld", 2], lambda v: v + 20),
    "declarer": _change(["declarer"], lambda v: (v + 1) % 4),
    "bid": _change(["bid"], lambda v: v + 10),
    "thrown_in": _change(["thrown_in"], lambda v: not v),
    "trick winner": _change(["tricks", 3, "winner"], lambda v: (v + 1) % 4),
    "auction seat": _change(["auction", 0, 0], lambda v: (v + 1) % 4),
    "unknown trump": _change(["trump"], "X"),
    "bad card string": _change(["tricks", 0, "cards", 0], "ZZ"),
    "bad option": _change(["options", "head_rule"], "sometimes"),
}


@pytest.mark.parametrize("edit", list(EDITS), ids=str)
def test_edited_record_raises(played, edit):
    record = copy.deepcopy(played[0])
    EDITS[edit](record)
    with pytest.raises(ValueError):
        records.replay(record)


def test_illegal_card_in_a_trick_raises(played):
    record = copy.deepcopy(played[0])
    record["tricks"][2]["cards"][1] = first_card_not_held(record, 2, 1)
    with pytest.raises(ValueError, match="not legal"):
        records.replay(record)
    # A card the player holds but may not play: a void-suit discard while holding the led suit.
    record = copy.deepcopy(played[0])
    for number, trick in enumerate(record["tricks"]):
        game = records.replay(record, upto=_decisions_before_play(record) + 4 * number + 1)
        legal = {a - game.layout.card0 for a in game.legal_actions()}
        illegal = [c for c in range(24) if game.hands[game.to_act][c] and c not in legal]
        if illegal:
            trick["cards"][1] = card_to_str(illegal[0])
            with pytest.raises(ValueError, match="not legal"):
                records.replay(record)
            return
    pytest.fail("no trick with an illegal held card in the fixture hand")  # pragma: no cover


def test_illegal_jump_bid_raises():
    record = copy.deepcopy(SPEC_EXAMPLE)
    record["auction"][1] = [1, 280]  # seed raises: 260 or 270 over 250
    with pytest.raises(ValueError, match="not legal"):
        records.replay(record)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda r: r["tricks"].pop(), id="trick removed"),
        pytest.param(lambda r: r["auction"].pop(), id="call removed"),
        pytest.param(lambda r: r["passed_back"].pop(), id="pass removed"),
        pytest.param(lambda r: r["auction"].__setitem__(0, [r["auction"][0][0], "Pass"]), id="misspelled call"),
        pytest.param(lambda r: r["tricks"].append(r["tricks"][-1]), id="trick added"),
        pytest.param(lambda r: r["passed_back"].append("AS"), id="pass added"),
    ],
)
def test_record_with_missing_or_extra_decisions_raises(played, edit):
    record = copy.deepcopy(played[0])
    edit(record)
    with pytest.raises(ValueError):
        records.replay(record)


# --------------------------------------------------------------------------------------------
# The rules' example record


def test_spec_example_replays_and_reproduces_itself(tmp_path):
    game = records.replay(SPEC_EXAMPLE)
    record = game.record()
    assert {k: record[k] for k in SPEC_EXAMPLE} == SPEC_EXAMPLE
    assert record["made"] is False and record["hand_number"] == 0 and record["game_winner"] is None
    assert record["melds"] == [[["marriage S", 20], ["dix x2", 20], ["pinochle", 40]], [], [], []]
    assert game.thrown_in is True and game.phase == Phase.HAND_OVER
    # Section 8's deal is written the way the engine writes deals: suits S H D C, strongest first.
    assert record["deal"] == SPEC_EXAMPLE["deal"]
    # The full record replays too, and survives a file round trip.
    assert records.replay(record).record() == record
    path = tmp_path / "example.jsonl"
    records.write_jsonl(path, [SPEC_EXAMPLE])
    assert records.replay(next(records.read_jsonl(path))).record() == record
    # Decisions: 5 calls, trump, 4 + 4 passed cards; no throw-in decision (270 short of 250+).
    moves = [(seat, game.layout.to_string(action)) for game, seat, action in records.decisions(SPEC_EXAMPLE)]
    assert moves == [
        (0, "bid 250"), (1, "bid 270"), (2, "pass"), (3, "help"), (0, "pass"), (1, "trump clubs"),
        (3, "9D"), (3, "AS"), (3, "KH"), (3, "AD"), (1, "QS"), (1, "AC"), (1, "9S"), (1, "AD"),
    ]  # fmt: skip


def test_spec_example_from_a_fresh_game():
    game = Game(Rules(), np.random.default_rng(0), dealer=3, deal=SPEC_EXAMPLE["deal"])
    layout = game.layout
    for seat, call in SPEC_EXAMPLE["auction"]:
        assert game.to_act == seat
        game.apply(layout.help if call == "help" else layout.passing if call == "pass" else layout.bid_action(call))
    game.apply(layout.trump_action(3))
    for card in SPEC_EXAMPLE["passed_to_declarer"] + SPEC_EXAMPLE["passed_back"]:
        game.apply(layout.card_action(card_from_str(card)))
    assert game.hand_over
    assert {k: v for k, v in game.record().items() if k in SPEC_EXAMPLE} == SPEC_EXAMPLE


# --------------------------------------------------------------------------------------------
# Training arrays


def env_hands(seed: int, hands: int = 1, **switches) -> tuple[list[dict], list[tuple], dict[str, float]]:
    """Play ``pinochle_env.env`` with random legal actions; returns the hand records, what the acting
    agent saw at each decision (seat, observation, mask, action), and the final rewards."""
    environment = pinochle_env.env(
        episode="game" if hands > 1 else "hand", max_hands=hands if hands > 1 else None, **switches
    )
    environment.reset(seed=seed)
    rnd = random.Random(seed)
    seen, final = [], {}
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            final[agent] = reward
            environment.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        bids = [a for a in legal if a < environment.unwrapped.layout.num_bids]
        action = int(rnd.choice([a for a in legal if a not in bids] if bids and rnd.random() < 0.6 else legal[:3]))
        seen.append((int(agent.split("_")[1]), observation["observation"], observation["action_mask"], action))
        environment.step(action)
    return environment.unwrapped.hand_records, seen, final


def test_to_arrays_shapes_and_dtypes(hands):
    recs = [record for record, _, _ in hands if record["options"]["max_bid"] == 1000]
    arrays = records.to_arrays(recs)
    total = sum(len(actions) for record, actions, _ in hands if record["options"]["max_bid"] == 1000)
    spec = PartnershipSpec(Rules())
    size = Game(Rules(), np.random.default_rng(0)).layout.size
    expected = {
        "observation": ((total, spec.size), np.float32),
        "action_mask": ((total, size), np.int8),
        "action": ((total,), np.int64),
        "seat": ((total,), np.int8),
        "hand": ((total,), np.int64),
        "reward": ((total,), np.float32),
        "done": ((total,), np.bool_),
    }
    assert set(arrays) == set(expected)
    for key, (shape, dtype) in expected.items():
        assert arrays[key].shape == shape and arrays[key].dtype == dtype, key
    assert np.all(arrays["action_mask"][np.arange(total), arrays["action"]] == 1)
    want = [a for record, actions, _ in hands if record["options"]["max_bid"] == 1000 for a in actions]
    assert arrays["action"].tolist() == want
    assert np.all(np.diff(arrays["hand"]) >= 0) and set(arrays["hand"].tolist()) == set(range(len(recs)))


def test_to_arrays_rewards_and_done(hands):
    recs = [record for record, _, _ in hands if record["options"]["max_bid"] == 1000]
    arrays = records.to_arrays(recs, reward_scale=100.0)
    for number, record in enumerate(recs):
        rows = np.flatnonzero(arrays["hand"] == number)
        margin = (record["score"][0] - record["score"][1]) / 100.0
        seats = arrays["seat"][rows]
        done_rows = rows[arrays["done"][rows]]
        # Each seat's last decision of the hand, and only it, is done and carries the reward.
        assert sorted(done_rows.tolist()) == sorted(rows[np.flatnonzero(seats == s)[-1]] for s in set(seats.tolist()))
        assert len(done_rows) == 4  # every seat decides at least once in a hand
        for row in done_rows:
            sign = 1 if arrays["seat"][row] % 2 == 0 else -1
            assert arrays["reward"][row] == pytest.approx(sign * margin)
        assert np.all(arrays["reward"][rows[~arrays["done"][rows]]] == 0)
        assert arrays["reward"][rows].sum() == pytest.approx(0.0, abs=1e-6)  # zero-sum per hand


def test_to_arrays_refuses_mixed_bid_caps_and_nothing(hands):
    mixed = [hands[0][0], next(record for record, _, _ in hands if record["options"]["max_bid"] != 1000)]
    with pytest.raises(ValueError, match="max_bid"):
        records.to_arrays(mixed)
    with pytest.raises(ValueError):
        records.to_arrays([])


def test_to_arrays_refuses_an_edited_score_and_a_scale_that_is_no_scale(hands):
    """A record's edited score became its rewards (0.999 for [999, 0]); a reward_scale of 0 divided
    by zero, -1 flipped every reward and inf made them all 0."""
    record = hands[0][0]
    with pytest.raises(ValueError, match=r"record 1: its score \[999, 0\] differs from its replay's"):
        records.to_arrays([record, {**record, "score": [999, 0]}])
    for scale in (0, -1.0, math.inf, math.nan, True):
        with pytest.raises(ValueError, match=re.escape(f"reward_scale={scale!r} must be a finite number > 0")):
            records.to_arrays([record], reward_scale=scale)


def assert_arrays_match_environment(arrays, seen):
    """Each decision's seat, action, mask and observation in ``to_arrays`` equal the environment's."""
    assert len(arrays["action"]) == len(seen)
    for row, (seat, observation, mask, action) in enumerate(seen):
        assert arrays["seat"][row] == seat and arrays["action"][row] == action
        np.testing.assert_array_equal(arrays["action_mask"][row], mask)
        np.testing.assert_array_equal(arrays["observation"][row], observation)


@pytest.mark.parametrize(
    ("seed", "switches"),
    [(0, {}), (5, {"pass_mode": "simultaneous", "throw_in": "always"}), (9, {"max_bid": 400, "head_rule": "none"})],
)
def test_to_arrays_matches_the_environment(seed, switches):
    for s in range(seed, seed + 3):
        recs, seen, final = env_hands(s, **switches)
        assert len(recs) == 1
        arrays = records.to_arrays(recs)
        assert_arrays_match_environment(arrays, seen)
        # The arrays' rewards are the environment's (margin) rewards of each seat.
        for row in np.flatnonzero(arrays["done"]):
            assert arrays["reward"][row] == pytest.approx(final[f"player_{arrays['seat'][row]}"])


def test_to_arrays_states_are_the_environments_states():
    """``states=True`` adds each decision's perfect-information state, equal to ``env.state()`` then."""
    environment = pinochle_env.env()
    environment.reset(seed=3)
    rnd = random.Random(3)
    states = []
    for _ in environment.agent_iter():
        observation, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        states.append(environment.state())
        environment.step(int(rnd.choice(np.flatnonzero(observation["action_mask"]))))
    arrays = records.to_arrays(environment.unwrapped.hand_records, states=True)
    np.testing.assert_array_equal(arrays["state"], np.asarray(states))
    assert "state" not in records.to_arrays(environment.unwrapped.hand_records)


def test_to_arrays_matches_the_environment_over_a_game():
    """Later hands of a game (non-zero running scores) encode the same as in the environment."""
    recs, seen, _ = env_hands(11, hands=4, target_score=300)
    assert len(recs) >= 2
    arrays = records.to_arrays(recs)
    assert_arrays_match_environment(arrays, seen)


# --------------------------------------------------------------------------------------------
# The documentation's record section


DOCS = ROOT / "docs" / "rules.md"


def test_docs_example_record_is_what_the_engine_writes():
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 1
    example = json.loads(blocks[0])
    assert records.replay(example).record() == example
    assert {k: example[k] for k in SPEC_EXAMPLE} == SPEC_EXAMPLE


def test_docs_name_every_record_key_and_switch():
    text = DOCS.read_text(encoding="utf-8")
    extra = ("melds", "made", "hand_number", "game_winner")
    for key in (*RECORD_KEYS, *extra):
        assert f"| `{key}` |" in text, key
    for name in SWITCH_NAMES:
        assert f"| `{name}` |" in text, name
    for preset in PRESETS:
        assert f"| `{preset}` |" in text, preset


def test_dealer_stuck_is_a_declarer_without_a_bid():
    assert not records.dealer_stuck(SPEC_EXAMPLE)  # seat 1 declared at its own bid of 270
    stuck = {**SPEC_EXAMPLE, "auction": [[0, "pass"], [1, "help"], [2, "pass"]], "declarer": 3, "bid": 250}
    assert records.dealer_stuck(stuck)
    assert not records.dealer_stuck({"variant": "two_hand", "declarer": None})


# --------------------------------------------------------------------------------------------
# The other games' records


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_records_replay_and_arrays(variant):
    """Records of random hands replay exactly through records.replay, and to_arrays pays the margins."""
    batch = BatchedGames(3, rules={"variant": variant}, seed=7, record=True)
    step = batch.reset()
    rng = np.random.default_rng(7)
    hands: list[dict] = []
    while len(hands) < 6:
        step = batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in step.action_masks]))
        hands += step.records
    for record in hands:
        json.dumps(record)  # JSON-ready
        assert record["variant"] == variant
        assert replay(record).record() == record
    arrays = to_arrays(hands, states=True)
    kit = variant_kit(Rules(variant=variant))
    assert arrays["observation"].shape[1] == kit.spec.size and arrays["state"].shape[1] == kit.state_size
    assert arrays["action_mask"][np.arange(len(arrays["action"])), arrays["action"]].all()
    for index, record in enumerate(hands):
        rows = (arrays["hand"] == index) & arrays["done"]
        paid = {int(s): float(r) for s, r in zip(arrays["seat"][rows], arrays["reward"][rows], strict=True)}
        expected = margins(record["score"], kit.teams)
        assert paid == pytest.approx({seat: expected[seat] / 1000 for seat in paid})


def test_to_arrays_refuses_mixed_variants():
    records = []
    for variant in ("partnership", "two_hand"):
        game = new_game(Rules(variant=variant), np.random.default_rng(0))
        rng = np.random.default_rng(0)
        while not game.hand_over:
            game.apply(int(rng.choice(game.legal_actions())))
        records.append(game.record())
    with pytest.raises(ValueError, match="does not share the observation layout"):
        to_arrays(records)
