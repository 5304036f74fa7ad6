"""Tests of the PettingZoo AEC environment ``pinochle_v0`` (``pinochle_env.env`` / ``raw_env``)."""

from __future__ import annotations

import copy
import functools
import importlib
import pickle
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import pinochle_env
from pinochle_env import IllegalActionError, Rules
from pinochle_env.cards import cards_from_counts, format_cards
from pinochle_env.games.kit import margins, variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.table_image import FRAME_SHAPE, table_image
from tests.helpers import OTHER_GAMES, S8_DEAL, SEATS_OF, play_random

# PettingZoo's checkers warn about every dict observation (as for its own masked classic games)
# and api_test passes an arbitrary reset option, which the env answers with a warning.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:ignoring unknown reset option"),
    pytest.mark.filterwarnings("ignore:.*[Ii]llegal move"),
]

AGENTS = [f"player_{seat}" for seat in range(4)]
#: Keys the hand-record format documents (extra keys are allowed).
RECORD_KEYS = (
    "variant", "options", "dealer", "deal", "auction", "declarer", "bid", "trump", "passed_to_declarer",
    "passed_back", "meld", "thrown_in", "tricks", "points", "score", "totals",
)  # fmt: skip

CONFIGS = {
    "default": {},
    "simultaneous-any-400": {"pass_mode": "simultaneous", "bid_raises": "any", "max_bid": 400},
    "game-3-hands": {"episode": "game", "max_hands": 3},
    "penalty-variants": {"illegal_action": "penalty", "pass_count": 3, "throw_in": "always", "all_pass": "redeal"},
    "cutthroat": {"variant": "cutthroat"},
    "cutthroat-game-penalty": {"variant": "cutthroat", "episode": "game", "max_hands": 3, "illegal_action": "penalty"},
    "two-hand": {"variant": "two_hand"},
    "two-hand-game-win": {"variant": "two_hand", "episode": "game", "reward": "win", "target_score": 300},
}


# ---------------------------------------------------------------------------------------------- helpers


def legal(e) -> np.ndarray:
    return np.flatnonzero(e.observe(e.agent_selection)["action_mask"])


def action_id(u, name: str) -> int:
    """The action id whose name (``action_to_string``) is ``name``."""
    return next(a for a in range(u.layout.size) if u.action_to_string(a) == name)


def random_step(e, rng: np.random.Generator) -> int:
    action = int(rng.choice(legal(e)))
    e.step(action)
    return action


def thermometer(e, cards: list[str], piece: str = "hand") -> np.ndarray:
    """A 48-wide thermometer of ``cards`` built from ``describe()``'s labels (``hand[TS x>=1]``, ``hand[TS x2]``)."""
    u = e.unwrapped
    start = next(i for i in range(u.spec.size) if u.describe(i).startswith(piece + "["))
    out = np.zeros(48, np.float32)
    for k in range(48):
        label = u.describe(start + k)
        name, _, level = label[len(piece) + 1 : -1].partition(" ")
        needed = 1 if level == "x>=1" else 2
        out[k] = cards.count(name) >= needed
    return out


def piece(e, observation: np.ndarray, name: str) -> np.ndarray:
    p = e.unwrapped.spec.piece(name)
    return observation[p.slice]


def run_episode(e, seed: int | None, policy_seed: int, options=None, max_iter: int = 20_000):
    """Play one episode with random legal actions; what each agent collected through ``last()``."""
    e.reset(seed=seed, options=options)
    rng = np.random.default_rng(policy_seed)
    rewards = dict.fromkeys(AGENTS, 0.0)
    seen = {a: [] for a in AGENTS}
    flags = {}
    for agent in e.agent_iter(max_iter):
        obs, reward, terminated, truncated, info = e.last()
        rewards[agent] += reward
        if "hand_record" in info:
            seen[agent].append(info["hand_record"])
        if terminated or truncated:
            flags[agent] = (terminated, truncated)
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents, "episode did not finish"
    return rewards, seen, flags


def snapshot(e):
    u = e.unwrapped
    return {
        "selection": e.agent_selection,
        "agents": list(e.agents),
        "observations": {a: e.observe(a) for a in e.agents},
        "events": len(u.game.events),
        "phase": u.game.phase,
        "to_act": u.game.to_act,
        "hands": [list(h) for h in u.game.hands],
        "rewards": dict(u.rewards),
        "cumulative": dict(u._cumulative_rewards),
        "terminations": dict(e.terminations),
        "truncations": dict(e.truncations),
        "records": len(u.hand_records),
        "state": e.state(),
    }


def assert_same_snapshot(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key == "observations":
            assert a[key].keys() == b[key].keys()
            for agent in a[key]:
                for part in ("observation", "action_mask"):
                    np.testing.assert_array_equal(a[key][agent][part], b[key][agent][part])
        elif key == "state":
            np.testing.assert_array_equal(a[key], b[key])
        else:
            assert a[key] == b[key], key


# ---------------------------------------------------------------------------------------------- PettingZoo checks


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_pettingzoo_api_test(config):
    api_test(pinochle_env.env(**config), num_cycles=300)


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_pettingzoo_seed_test(config):
    seed_test(functools.partial(pinochle_env.env, **config), num_cycles=300)


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_pettingzoo_render_test(config):
    render_test(functools.partial(pinochle_env.env, **config))


def test_seeds_reproduce_and_differ():
    def first_hands(seed):
        e = pinochle_env.env()
        e.reset(seed=seed)
        return [e.unwrapped.game.hands[s][:] for s in range(4)], e.agent_selection

    assert first_hands(7) == first_hands(7)
    assert len({str(first_hands(seed)) for seed in range(6)}) == 6
    assert first_hands(np.int64(7)) == first_hands(7)
    for seed in (-1, "1", True, np.array(3)):  # numpy's messages named neither the option nor the value
        with pytest.raises(ValueError, match=re.escape(f"seed must be None or a whole number >= 0, got {seed!r}")):
            pinochle_env.env().reset(seed=seed)


@pytest.mark.parametrize("variant", ["partnership", "two_hand"])
def test_action_names_take_only_action_ids(variant):
    """action_to_string(1.5) was 'bid 265.0' and True 'bid 260'."""
    layout = variant_kit(Rules(variant=variant)).layout
    assert layout.to_string(np.int64(layout.card0)) == layout.to_string(layout.card0)
    assert layout.to_string(np.array(layout.card0)) == layout.to_string(layout.card0)  # as SB3's predict gives
    for action in (1.5, True, -1, layout.size, "3"):
        with pytest.raises(ValueError, match=re.escape(f"action {action!r} is not an action id 0..{layout.size - 1}")):
            layout.to_string(action)
    with pytest.raises(ValueError, match="is not an action id"):
        pinochle_env.action_to_string(1.5)


def test_action_names_take_only_a_bid_cap_the_rules_allow():
    """action_to_string(5, max_bid=0) was 'AC' and max_bid=255 'trump diamonds' (a layout of -24 or
    1 bids); action 5 is 'bid 300' under every cap the rules allow."""
    assert pinochle_env.action_to_string(5, max_bid=np.int64(300)) == "bid 300"
    for max_bid in (0, 255, 5080, "400", None):
        with pytest.raises(ValueError, match=re.escape(f"rule max_bid={max_bid!r} is not allowed")):
            pinochle_env.action_to_string(5, max_bid=max_bid)
        with pytest.raises(ValueError, match="rule max_bid="):
            pinochle_env.ActionLayout(max_bid)


def test_observing_an_agent_that_is_not_in_the_game_names_the_agents():
    e = pinochle_env.env()
    e.reset(seed=0)
    with pytest.raises(KeyError, match="no agent 'player_9' in this game; its agents: player_0, player_1"):
        e.observe("player_9")


def test_registry_make():
    assert pettingzoo.spec("aec", "pinochle_v0").entry_point.startswith("pinochle_env")
    e = pettingzoo.make("aec", "pinochle_v0", max_bid=400, pass_mode="simultaneous")
    assert e.metadata["name"] == "pinochle_v0"
    assert isinstance(e.unwrapped, pinochle_env.raw_env)
    e.reset(seed=3)
    assert e.unwrapped.rules.max_bid == 400
    assert e.unwrapped.rules.pass_mode == "simultaneous"
    assert e.agents == AGENTS
    assert pinochle_env.env().metadata["name"] == "pinochle_v0"


# ---------------------------------------------------------------------------------------------- illegal actions


def play_until(e, rng, predicate, limit=400):
    for _ in range(limit):
        if predicate(e):
            return
        random_step(e, rng)
    raise AssertionError("never reached the wanted position")


@pytest.mark.parametrize("phase", ["auction", "play"])
def test_illegal_action_raises_and_changes_nothing(phase):
    e = pinochle_env.env()
    e.reset(seed=11, options={"dealer": 3, "deal": S8_DEAL})
    u = e.unwrapped
    rng = np.random.default_rng(0)
    if phase == "play":
        play_until(e, rng, lambda e: u.game.phase.name == "PLAY" and len(u.game.trick) == 1)
    legal_ids = legal(e)
    legal_names = [u.action_to_string(int(a)) for a in legal_ids]
    if phase == "auction":
        wrong = {action_id(u, "TS"): "TS", action_id(u, "bid 300"): "bid 300", action_id(u, "trump hearts"): "hearts"}
    else:
        cards = [a for a in range(u.layout.size) if u.layout.card0 <= a < u.layout.throw_in]
        bad = [a for a in cards if a not in legal_ids][:3]
        wrong = {a: u.action_to_string(a) for a in bad}
        wrong[action_id(u, "bid 250")] = "bid 250"  # a bid during play
    wrong.update({10_000: "10000", -1: "-1", np.int64(-5): "-5"})  # no integers at all: tests/env/test_interop.py
    before = snapshot(e)
    for action, name in wrong.items():
        with pytest.raises(IllegalActionError) as info:
            e.step(action)
        assert isinstance(info.value, ValueError)
        message = str(info.value)
        assert name in message, (action, message)
        for legal_name in legal_names:
            assert legal_name in message, (action, message)
        assert_same_snapshot(before, snapshot(e))
    # still playable afterwards, with a numpy integer too
    e.step(np.int64(legal_ids[0]))
    assert len(u.game.events) > before["events"]


def test_illegal_action_penalty_ends_episode():
    e = pinochle_env.env(illegal_action="penalty")
    e.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(5):
        random_step(e, rng)
    offender = e.agent_selection
    mask = e.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    e.step(illegal)  # no exception
    assert all(e.terminations.values()) or all(e.truncations.values())
    collected = dict.fromkeys(AGENTS, 0.0)
    for agent in e.agent_iter(50):
        _, reward, terminated, truncated, _ = e.last()
        assert terminated or truncated
        collected[agent] += reward
        e.step(None)
    assert not e.agents
    assert collected[offender] == -1
    assert all(collected[a] == 0 for a in AGENTS if a != offender)


@pytest.mark.parametrize("mode", ["raise", "penalty"])
@pytest.mark.parametrize("action", [500, -1, 108, np.int64(2**40)])
def test_an_action_id_out_of_range_is_a_value_error_naming_the_range_in_every_mode(mode, action):
    """In penalty mode it was PettingZoo's bare AssertionError "action is not in action space"."""
    e = pinochle_env.env(illegal_action=mode)
    e.reset(seed=4)
    agent, events = e.agent_selection, len(e.unwrapped.game.events)
    with pytest.raises(IllegalActionError, match=rf"{agent}: action {int(action)} .*out of range 0\.\.107"):
        e.step(action)
    assert (e.agent_selection, len(e.unwrapped.game.events)) == (agent, events)  # nothing changed
    assert not any(e.terminations.values())


def test_penalty_mode_plays_normally():
    e = pinochle_env.env(illegal_action="penalty")
    rewards, _, flags = run_episode(e, 8, 8)
    assert sum(rewards.values()) == pytest.approx(0)
    assert all(t and not r for t, r in flags.values())
    # after a penalty, the next episode is a normal one again
    e.reset(seed=1)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))
    assert not any(e.unwrapped.hand_records)
    rewards, seen, flags = run_episode(e, 2, 2)
    assert len(e.unwrapped.hand_records) == 1 and seen["player_0"] == e.unwrapped.hand_records
    assert flags == dict.fromkeys(AGENTS, (True, False))


# ---------------------------------------------------------------------------------------------- reset options


@pytest.mark.parametrize("dealer", range(4))
def test_reset_presets_deal_and_dealer(dealer):
    e = pinochle_env.env()
    e.reset(seed=0, options={"dealer": dealer, "deal": S8_DEAL})
    assert e.agent_selection == AGENTS[(dealer + 1) % 4]
    assert e.unwrapped.game.dealer == dealer
    for seat, agent in enumerate(AGENTS):
        observation = e.observe(agent)["observation"]
        np.testing.assert_array_equal(piece(e, observation, "hand"), thermometer(e, S8_DEAL[seat]))
    # the dealer piece is relative: "me" for the dealer
    dealer_piece = piece(e, e.observe(AGENTS[dealer])["observation"], "dealer")
    np.testing.assert_array_equal(dealer_piece, [1, 0, 0, 0])


def test_reset_deal_as_card_types_and_record():
    e = pinochle_env.env()
    e.reset(seed=1, options={"dealer": 3, "deal": S8_DEAL})
    rng = np.random.default_rng(2)
    while not e.unwrapped.hand_records:
        random_step(e, rng)
    record = e.unwrapped.hand_records[0]
    assert record["dealer"] == 3
    assert [sorted(h) for h in record["deal"]] == [sorted(h) for h in S8_DEAL]


@pytest.mark.parametrize(
    "options",
    [
        {"deal": S8_DEAL[:3]},
        {"deal": [*S8_DEAL[:3], S8_DEAL[3][:11]]},
        {"deal": [S8_DEAL[0], S8_DEAL[0], S8_DEAL[2], S8_DEAL[3]]},
        {"deal": [*S8_DEAL[:3], [*S8_DEAL[3][:11], "XX"]]},
        {"dealer": 4},
        {"dealer": -1},
    ],
    ids=["3-hands", "11-cards", "wrong-copies", "bad-card", "dealer-4", "dealer-neg"],
)
def test_reset_bad_deal_raises(options):
    e = pinochle_env.env()
    with pytest.raises(ValueError):
        e.reset(seed=0, options={"dealer": 0, **options})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dealer": True}, "dealer must be a seat 0..3, got True"),
        ({"dealer": 1.0}, "dealer must be a seat 0..3, got 1.0"),
        ({"deal": "abc"}, "a deal is a list of 4 hands (lists of cards), got 'abc'"),
        ({"deal": [*S8_DEAL[:3], "AS TS"]}, "a hand is a list of cards"),
        ({"deal": [*S8_DEAL[:3], [*S8_DEAL[3][:11], 1.5]]}, "a card is a card string such as 'TS' or a card type"),
    ],
)
def test_reset_options_of_the_wrong_type_are_refused_saying_what_they_take(options, message):
    """A boolean dealer made seat 1 deal (booleans are refused as actions), a float one failed
    later, and a deal as a string said "a deal needs 4 hands, got 3"."""
    e = pinochle_env.env()
    with pytest.raises(ValueError, match=re.escape(message)):
        e.reset(seed=0, options=options)


def test_reset_unknown_option_warns():
    e = pinochle_env.env()
    with pytest.warns(UserWarning, match="bogus"):
        e.reset(seed=0, options={"bogus": 1})
    assert e.agents == AGENTS


# ---------------------------------------------------------------------------------------------- constructor options


def test_unknown_option_raises_naming_it():
    with pytest.raises(ValueError) as info:
        pinochle_env.env(pas_mode="simultaneous")
    message = str(info.value)
    assert "pas_mode" in message
    for known in ("episode", "reward", "illegal_action", "pass_mode", "max_bid", "target_score"):
        assert known in message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("pass_mode", "bogus"),
        ("bid_raises", "double"),
        ("max_bid", 255),
        ("max_bid", 250),
        ("pass_count", 2),
        ("pass_with_help", "yes"),
        ("target_score", 0),
        ("head_rule", "winners"),
        ("episode", "match"),
        ("reward", "score"),
        ("illegal_action", "ignore"),
        ("render_mode", "svg"),
        ("max_hands", 0),
        ("reward_scale", 0),
    ],
)
def test_bad_option_value_raises_naming_it(name, value):
    with pytest.raises(ValueError, match=name):
        pinochle_env.env(**{name: value})


@pytest.mark.parametrize("value", ["x", None, float("inf"), float("nan")])  # inf made every reward 0
def test_bad_reward_scale_type_names_the_option(value):
    with pytest.raises(ValueError, match="reward_scale"):
        pinochle_env.env(reward_scale=value)


def test_option_combinations_rejected():
    with pytest.raises(ValueError, match="win"):
        pinochle_env.env(reward="win")
    with pytest.raises(ValueError, match="win"):
        pinochle_env.env(reward="win", episode="hand")
    with pytest.raises(ValueError, match="max_hands"):
        pinochle_env.env(max_hands=2)


# ---------------------------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("seed", range(6))
def test_margin_reward_team_shared_zero_sum(seed):
    e = pinochle_env.env(reward_scale=100)
    rewards, seen, flags = run_episode(e, seed, 100 + seed)
    records = e.unwrapped.hand_records
    assert len(records) == 1
    assert seen == dict.fromkeys(AGENTS, records)  # each agent got the record in its last()
    assert sum(rewards.values()) == pytest.approx(0, abs=1e-9)
    assert rewards["player_0"] == rewards["player_2"]
    assert rewards["player_1"] == rewards["player_3"]
    score = records[0]["score"]
    assert rewards["player_0"] == pytest.approx((score[0] - score[1]) / 100)
    assert rewards["player_1"] == pytest.approx((score[1] - score[0]) / 100)
    assert flags == dict.fromkeys(AGENTS, (True, False))


def test_margin_reward_default_scale_and_nonzero():
    margins = []
    for seed in range(4):
        e = pinochle_env.env()
        rewards, _, _ = run_episode(e, seed, seed)
        score = e.unwrapped.hand_records[0]["score"]
        assert rewards["player_0"] == pytest.approx((score[0] - score[1]) / 1000)
        margins.append(rewards["player_0"])
    assert any(m != 0 for m in margins)


def test_margin_reward_over_a_game():
    e = pinochle_env.env(episode="game", max_hands=3, reward_scale=10)
    rewards, seen, _ = run_episode(e, 21, 21)
    records = e.unwrapped.hand_records
    assert len(records) == 3 and seen == dict.fromkeys(AGENTS, records)
    expected = sum(r["score"][0] - r["score"][1] for r in records) / 10
    assert rewards["player_0"] == pytest.approx(expected)
    assert rewards["player_2"] == pytest.approx(expected)
    assert rewards["player_1"] == pytest.approx(-expected)
    assert rewards["player_3"] == pytest.approx(-expected)


def game_winner(records, target):
    totals = records[-1]["totals"]
    over = [team for team in (0, 1) if totals[team] >= target]
    assert over, totals
    return over[0] if len(over) == 1 else records[-1]["declarer"] % 2


@pytest.mark.parametrize("seed", range(3))
def test_win_reward_at_game_end(seed):
    e = pinochle_env.env(episode="game", reward="win", target_score=300)
    rewards, _, flags = run_episode(e, seed, seed + 50)
    records = e.unwrapped.hand_records
    winner = game_winner(records, 300)
    for seat, agent in enumerate(AGENTS):
        assert rewards[agent] == (1.0 if seat % 2 == winner else -1.0)
    assert flags == dict.fromkeys(AGENTS, (True, False))


def test_win_reward_truncated_game_pays_nothing():
    e = pinochle_env.env(episode="game", reward="win", max_hands=1, target_score=5000)
    rewards, _, flags = run_episode(e, 3, 3)
    assert rewards == dict.fromkeys(AGENTS, 0.0)
    assert flags == dict.fromkeys(AGENTS, (False, True))


@pytest.mark.parametrize("seed", range(3))
def test_max_hands_truncates(seed):
    e = pinochle_env.env(episode="game", max_hands=2, target_score=5000)
    _, _, flags = run_episode(e, seed, seed)
    assert len(e.unwrapped.hand_records) == 2
    assert flags == dict.fromkeys(AGENTS, (False, True))


@pytest.mark.parametrize("seed", range(4))
def test_game_ends_with_a_winner(seed):
    e = pinochle_env.env(episode="game", target_score=300)
    _, _, flags = run_episode(e, seed, seed + 7)
    records = e.unwrapped.hand_records
    assert flags == dict.fromkeys(AGENTS, (True, False))
    winner = game_winner(records, 300)
    assert records[-1]["totals"][winner] >= 300
    for record in records[:-1]:  # the game went on while nobody had reached the target
        assert max(record["totals"]) < 300
    assert [r.get("hand_number", i) for i, r in enumerate(records)] == list(range(len(records)))


# ---------------------------------------------------------------------------------------------- hand records


def test_hand_records_in_infos():
    e = pinochle_env.env(episode="game", max_hands=4, target_score=5000)
    e.reset(seed=5)
    u = e.unwrapped
    rng = np.random.default_rng(5)
    seen = {a: [] for a in AGENTS}
    hand_ends = 0
    for agent in e.agent_iter(5000):
        obs, _, terminated, truncated, info = e.last()
        if "hand_record" in info:
            seen[agent].append(info["hand_record"])
        if terminated or truncated:
            e.step(None)
            continue
        count = len(u.hand_records)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if len(u.hand_records) > count:  # this step ended a hand
            hand_ends += 1
            for other in AGENTS:
                assert u.infos[other]["hand_record"] == u.hand_records[-1]
        elif u.agents:
            assert "hand_record" not in u.infos[agent]
    records = u.hand_records
    assert hand_ends == len(records) == 4
    for agent in AGENTS:  # each agent sees every record exactly once, in its next last()
        assert seen[agent] == records
    totals = [0, 0]
    for record in records:
        for key in RECORD_KEYS:
            assert key in record
        assert record["variant"] == "partnership"
        assert record["options"]["target_score"] == 5000
        assert len(record["deal"]) == 4 and all(len(h) == 12 for h in record["deal"])
        assert len(record["meld"]) == 4
        if record["thrown_in"]:
            assert record["tricks"] == [] and record["points"] == [0, 0]
        else:
            assert len(record["tricks"]) == 12
            assert sum(record["points"]) == 250
        totals = [totals[0] + record["score"][0], totals[1] + record["score"][1]]
        assert record["totals"] == totals
    assert [r["dealer"] for r in records] == [(records[0]["dealer"] + i) % 4 for i in range(4)]


def test_hand_records_reset_with_episode():
    e = pinochle_env.env()
    run_episode(e, 1, 1)
    assert len(e.unwrapped.hand_records) == 1
    e.reset(seed=2)
    assert e.unwrapped.hand_records == []


# ---------------------------------------------------------------------------------------------- observations, state


def test_observation_spaces_and_documentation():
    e = pinochle_env.env()
    u = e.unwrapped
    size, n = u.spec.size, u.layout.size
    doc = importlib.import_module("pinochle_env.env").__doc__
    assert f"Box(float32, ({size},))" in doc
    assert f"Discrete({n})" in doc
    for agent in AGENTS:
        space = e.observation_space(agent)
        assert space["observation"].shape == (size,) and space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (n,) and space["action_mask"].dtype == np.int8
        assert e.action_space(agent).n == n
    assert n == pinochle_env.env(max_bid=400).unwrapped.layout.size + (1000 - 400) // 10


@pytest.mark.parametrize("config", [{}, {"pass_mode": "simultaneous", "throw_in": "always"}])
def test_observations_and_masks_through_an_episode(config):
    e = pinochle_env.env(episode="game", max_hands=2, **config)
    e.reset(seed=9)
    u = e.unwrapped
    rng = np.random.default_rng(9)
    decisions = 0
    first = e.observe(e.agent_selection)
    kept = {key: value.copy() for key, value in first.items()}
    for agent in e.agent_iter(3000):
        _, _, terminated, truncated, _ = e.last()
        live = not (terminated or truncated)
        for other in e.agents:
            obs = e.observe(other)
            assert set(obs) == {"observation", "action_mask"}
            assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (u.spec.size,)
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (u.layout.size,)
            assert e.observation_space(other).contains(obs)
            must_act = live and other == agent
            assert obs["action_mask"].any() == must_act, (other, agent)
            if must_act:
                assert list(np.flatnonzero(obs["action_mask"])) == u.game.legal_actions()
        if not live:
            e.step(None)
            continue
        decisions += 1
        e.step(int(rng.choice(legal(e))))
    assert decisions > 60
    for key, value in first.items():  # handed-out arrays are not overwritten by later steps
        np.testing.assert_array_equal(value, kept[key])


def test_describe_names_pieces():
    e = pinochle_env.env()
    u = e.unwrapped
    table = u.describe()
    for name in ("hand", "auction", "trump", "meld", "trick", "scores"):
        assert name in table
    labels = [u.describe(i) for i in range(u.spec.size)]
    assert all(isinstance(label, str) and label for label in labels)
    assert len(set(labels)) == len(labels)
    assert labels[0].startswith("hand")
    assert any("TS" in label for label in labels[:48])
    with pytest.raises(IndexError):
        u.describe(u.spec.size)
    assert u.describe(np.int64(3)) == labels[3]


@pytest.mark.parametrize("index", ["3", 1.5, True])
def test_describe_refuses_an_index_that_is_no_integer(index):
    """'3' and 1.5 were a bare TypeError from a comparison or a list; True read entry 1."""
    with pytest.raises(TypeError, match=f"observation index must be an integer or None, got {type(index).__name__}"):
        pinochle_env.env().unwrapped.describe(index)


def test_state_holds_observation_and_other_hands():
    e = pinochle_env.env()
    e.reset(seed=0, options={"dealer": 3, "deal": S8_DEAL})
    u = e.unwrapped
    size = u.spec.size
    rng = np.random.default_rng(3)
    checked = 0
    while True:
        state = e.state()
        assert state.shape == u.state_space.shape == (size + 3 * 48,) and state.dtype == np.float32
        assert u.state_space.contains(state)
        seat = max(u.game.to_act, 0)  # seat 0's point of view once the hand is over
        np.testing.assert_array_equal(state[:size], e.observe(AGENTS[seat])["observation"])
        for rel in (1, 2, 3):
            other = (seat + rel) % 4
            cards = format_cards(cards_from_counts(u.game.hands[other]))
            if checked == 0:
                assert sorted(cards) == sorted(S8_DEAL[other])
            np.testing.assert_array_equal(state[size + 48 * (rel - 1) : size + 48 * rel], thermometer(e, cards))
        checked += 1
        if u.game.hand_over:
            break
        random_step(e, rng)
    assert checked > 10


# ---------------------------------------------------------------------------------------------- rendering


def test_render_ansi_shows_auction_and_hands():
    e = pinochle_env.env(render_mode="ansi")
    e.reset(seed=0, options={"dealer": 3, "deal": S8_DEAL})
    for action in ("bid 250", "pass", "bid 270", "help"):
        e.step(action_id(e.unwrapped, action))
    text = e.render()
    assert isinstance(text, str)
    assert "auction" in text.lower()
    assert "250" in text and "270" in text and "help" in text
    lines = text.splitlines()
    for seat, hand in enumerate(S8_DEAL):
        line = next(line for line in lines if f"player {seat}" in line and "|" in line)
        ranks = sorted(tok for tok in line.split(":", 1)[1].replace("|", " ").split() if tok in list("ATKQJ9"))
        assert ranks == sorted(card[0] for card in hand), (seat, line)
        for suit in "SHDC":
            suit_ranks = line.split(f"{suit}:")[1].split("|")[0].split()
            assert sorted(suit_ranks) == sorted(card[0] for card in hand if card[1] == suit), (seat, suit, line)


def test_render_human_prints(capsys):
    e = pinochle_env.env(render_mode="human")
    e.reset(seed=2)
    capsys.readouterr()
    assert e.render() is None
    printed = capsys.readouterr().out
    ansi = pinochle_env.env(render_mode="ansi")
    ansi.reset(seed=2)
    assert printed.strip() == ansi.render().strip()
    e.step(int(legal(e)[0]))  # human mode renders on every step
    assert "auction" in capsys.readouterr().out.lower()


@pytest.mark.parametrize("variant", GAMES)
def test_render_rgb_array_draws_the_ansi_table_in_a_fixed_frame(variant):
    text, image = (
        pinochle_env.env(render_mode="ansi", variant=variant),
        pinochle_env.env(render_mode="rgb_array", variant=variant),
    )
    for e in (text, image):
        e.reset(seed=4)
    frames = []
    for _ in range(12):
        frames.append(image.render())
        np.testing.assert_array_equal(frames[-1], table_image(text.render()))
        action = int(legal(text)[0])
        text.step(action)
        image.step(action)
    assert {frame.shape for frame in frames} == {FRAME_SHAPE} and frames[0].dtype == np.uint8
    assert not np.array_equal(frames[0], frames[-1])


def test_render_without_mode_returns_none():
    e = pinochle_env.env()
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e.render() is None


# ---------------------------------------------------------------------------------------------- copies


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "clone"])
def test_game_copies_keep_full_state(how):
    e = pinochle_env.env(pass_mode="simultaneous")
    e.reset(seed=13)
    rng = np.random.default_rng(13)
    for _ in range(12):  # into the passing phase
        random_step(e, rng)
    game = e.unwrapped.game
    copied = {
        "pickle": lambda g: pickle.loads(pickle.dumps(g)),
        "deepcopy": copy.deepcopy,
        "clone": lambda g: g.clone(),
    }[how](game)
    assert copied is not game
    assert copied.events == game.events and copied.hands == game.hands and copied.phase == game.phase
    assert copied.legal_actions() == game.legal_actions()
    for g in (copied, game):
        assert [v.__dict__ for v in (g.view(s) for s in range(4))] == [game.view(s).__dict__ for s in range(4)]
    a1 = play_random(game, np.random.default_rng(99))
    a2 = play_random(copied, np.random.default_rng(99))
    assert a1 == a2
    assert game.record() == copied.record()
    # the generator is copied too: the next deals are the same
    game.next_hand()
    copied.next_hand()
    assert game.hands == copied.hands and game.dealer == copied.dealer


def test_clone_is_independent():
    e = pinochle_env.env()
    e.reset(seed=17)
    game = e.unwrapped.game
    clone = game.clone()
    events, hands, auction = list(game.events), [list(h) for h in game.hands], list(game.auction)
    play_random(clone, np.random.default_rng(1))
    assert clone.hand_over
    assert game.events == events and game.hands == hands and game.auction == auction
    assert not game.hand_over
    # and the other way round: the env's game moving on leaves a fresh clone alone
    clone = game.clone()
    rng = np.random.default_rng(2)
    for _ in range(10):
        random_step(e, rng)
    assert clone.events == events and clone.hands == hands
    # generators are independent objects with equal state
    assert clone.rng is not game.rng


def test_last_before_reset_is_refused():
    environment = pinochle_env.env()
    with pytest.raises(AttributeError, match="before reset"):
        environment.last()
    for name in ("agents", "agent_selection", "rewards"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(environment, name)


def test_rewards_are_paid_at_a_hand_end_and_cleared_at_the_next_step():
    e = pinochle_env.env(episode="game", max_hands=3)
    e.reset(seed=8)
    rng = np.random.default_rng(8)
    paid_steps = 0
    while e.agents:
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        hands_before = len(e.unwrapped.hand_records)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        rewards = list(e.rewards.values())
        if len(e.unwrapped.hand_records) > hands_before:
            score = e.unwrapped.hand_records[-1]["score"]
            margin = (score[0] - score[1]) / 1000
            assert rewards == pytest.approx([margin, -margin, margin, -margin])
            paid_steps += 1
        else:
            assert rewards == [0.0] * len(rewards)
    assert paid_steps == 3


# ---------------------------------------------------------------------------------------------- other games


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_env_rewards_are_own_score_minus_the_others_mean(variant):
    """Play seeded random hands through env(): each hand's rewards follow its record's scores."""
    e = pinochle_env.env(variant=variant, episode="game", max_hands=4, target_score=10_000)
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    u = e.unwrapped
    assert u.possible_agents == [f"player_{s}" for s in range(SEATS_OF[variant])]
    paid = dict.fromkeys(u.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _ = e.last()
        paid[agent] += reward
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        e.step(action)
    assert len(u.hand_records) == 4
    expected = np.sum([margins(r["score"], Rules(variant=variant).teams) for r in u.hand_records], axis=0) / 1000
    np.testing.assert_allclose([paid[a] for a in u.possible_agents], expected, rtol=1e-5)
    assert sum(paid.values()) == pytest.approx(0, abs=1e-6)
    assert any(abs(v) > 0 for v in paid.values())
