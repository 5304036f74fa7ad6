"""Tests of the batched API (``BatchedGames``), above all its decision-for-decision equivalence with the env."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pinochle_env
from pinochle_env import BatchedGames, IllegalActionError, Rules
from pinochle_env.games.partnership.game import Event
from pinochle_env.records import replay
from tests.helpers import OTHER_GAMES

AGENTS = [f"player_{seat}" for seat in range(4)]
SEEDS = [3, 14, 15, 92, 65]

# The partnership game's batch plays whole hands as arrays (``pinochle_env.games.partnership.lockstep_hands``), a second
# implementation of the rules: between them, these configurations give every rule switch each of
# its values, in one-hand episodes (scored and dealt in the arrays unless records are kept) and in
# games (scored by the engines).
CONFIGS = {
    "hand-default": ({}, {}),
    "hand-variants": ({"pass_mode": "simultaneous", "bid_raises": "any", "max_bid": 400, "throw_in": "always"}, {}),
    "game-300-max3": ({"target_score": 300}, {"episode": "game", "max_hands": 3}),
    "meld-and-score": ({"run_extras": "reuse", "save_meld": "trick", "save_meld_applies_to": "both"}, {}),
    "royal-no-throw-in": ({"run_extras": "royal_in_run", "save_meld": "none", "throw_in": "never"}, {}),
    "pass-3-simultaneous": ({"pass_count": 3, "pass_mode": "simultaneous"}, {}),
    "no-passing": ({"pass_count": 0}, {}),
    "led-card-no-overtrump": ({"head_rule": "led_card", "must_overtrump": False, "counting": "classic"}, {}),
    "highest-led": ({"head_rule": "highest_led", "counting": "ak10_kq5"}, {}),
    "trump-lead-only": ({"head_rule": "trump_lead_only"}, {}),
    "no-heading": ({"head_rule": "none", "must_overtrump": False}, {}),
    "cutthroat-game-max3": ({"variant": "cutthroat", "target_score": 300}, {"episode": "game", "max_hands": 3}),
    "two-hand": ({"variant": "two_hand"}, {}),
}
# Auctions passed out, which random bidding seldom gives: the policy passes whenever it may.
PASSED_OUT = {
    "dealer-stuck": ({"max_bid": 300}, {}),
    "redeal": ({"all_pass": "redeal", "pass_with_help": False, "bid_raises": "any"}, {}),
    "redeal-game": ({"all_pass": "redeal", "target_score": 300}, {"episode": "game", "max_hands": 2}),
}


def env_decision(e):
    """(acting seat, observation, mask) of the env's agent on turn."""
    agent = e.agent_selection
    obs = e.observe(agent)
    return AGENTS.index(agent), obs["observation"], obs["action_mask"]


def random_actions(masks: np.ndarray, rng: np.random.Generator, passing: int | None = None) -> np.ndarray:
    """A legal action per row, uniformly; if ``passing`` is given, that action instead two times
    in three where it is legal (so that about a fifth of the auctions are passed out)."""
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
    if passing is not None:
        chosen = (masks[:, passing] == 1) & (rng.random(len(masks)) < 2 / 3)
        actions[chosen] = passing
    return actions


# How the batch steps: whole hands as arrays (with and without records, which make the engines
# catch up at every hand's end), or every game's engine (arrays=None: the other variants' only way).
MODES = {"arrays": (True, True), "arrays-no-records": (True, False), "engines": (None, True)}


CASES = [
    pytest.param(switches, episode, *mode, id=f"{name}-{mode_name}")
    for name, (switches, episode) in CONFIGS.items()
    for mode_name, mode in MODES.items()
    if switches.get("variant", "partnership") == "partnership" or not mode[0]  # only it has arrays
]


@pytest.mark.parametrize(("switches", "episode", "arrays", "record"), CASES)
def test_batch_matches_env_decision_for_decision(switches, episode, arrays, record):
    assert_matches_env(switches, episode, arrays=arrays, record=record)


@pytest.mark.parametrize("mode", MODES.values(), ids=MODES.keys())
@pytest.mark.parametrize("config", PASSED_OUT.values(), ids=PASSED_OUT.keys())
def test_batch_matches_env_when_auctions_are_passed_out(config, mode):
    arrays, record = mode
    assert_matches_env(*config, arrays=arrays, record=record, pass_out=True)


def assert_same_decisions(step, envs, t: int) -> None:
    """Each env's seat to act, phase, observation and mask are the batch's at step ``t``."""
    for i, e in enumerate(envs):
        seat, observation, mask = env_decision(e)
        assert step.seats[i] == seat, (t, i)
        assert step.phases[i] == e.unwrapped.game.phase, (t, i)
        np.testing.assert_array_equal(step.observations[i], observation, err_msg=f"step {t} game {i}")
        np.testing.assert_array_equal(step.action_masks[i], mask, err_msg=f"step {t} game {i}")
        assert step.observations[i].dtype == observation.dtype and step.action_masks[i].dtype == mask.dtype


def assert_same_games(batch, envs, t: int) -> None:
    """The batch's perfect-information states and engines are each env's at step ``t``."""
    states = batch.states()
    for i, e in enumerate(envs):
        np.testing.assert_array_equal(states[i], e.state())
        assert vars(batch.games[i]).keys() == vars(e.unwrapped.game).keys()
        for name, value in vars(e.unwrapped.game).items():
            if name != "rng":
                assert getattr(batch.games[i], name) == value, (t, i, name)


def assert_matches_env(
    switches: dict, episode: dict, arrays: bool | None, record: bool, pass_out: bool = False
) -> None:
    """Play the batch and one env per game side by side with the same random actions; every
    decision, reward, flag, record and (now and then) perfect-information state and engine must
    be the same. With ``pass_out`` the seats pass most of the time, and some auctions must be
    passed out (the dealer stuck, or a new deal)."""
    n = len(SEEDS)
    batch = BatchedGames(n, rules=switches, seed=SEEDS, record=record, arrays=arrays, **episode)
    assert batch.arrays == bool(arrays)
    envs = [pinochle_env.env(**switches, **episode) for _ in SEEDS]
    for e, seed in zip(envs, SEEDS, strict=True):
        e.reset(seed=seed)
    rng = np.random.default_rng(2024)
    step = batch.reset()
    hands = np.zeros(n, int)
    episodes = np.zeros(n, int)
    flags = {"terminated": 0, "truncated": 0}
    passed_out = 0
    for t in range(260):
        assert_same_decisions(step, envs, t)
        if t % 13 == 0:  # reading the games brings those in trick play up to date: mid-trick too
            assert_same_games(batch, envs, t)
        actions = random_actions(step.action_masks, rng, batch.layout.passing if pass_out else None)
        step = batch.step(actions)
        finished = iter(step.records)
        for i, e in enumerate(envs):
            u = e.unwrapped
            before, events = len(u.hand_records), getattr(u.game, "events", None)
            e.step(int(actions[i]))
            hand_over = len(u.hand_records) > before
            if pass_out:  # a new event log without a hand's end is a new deal
                redealt = not hand_over and u.game.events is not events
                passed_out += redealt or (hand_over and any(event[0] == Event.STUCK for event in events))
            assert step.hand_over[i] == hand_over, (t, i)
            np.testing.assert_allclose(step.rewards[i], [u.rewards[a] for a in u.possible_agents], rtol=1e-6)
            if not hand_over:
                assert not step.terminated[i] and not step.truncated[i]
                continue
            hands[i] += 1
            if record:
                assert next(finished) == u.hand_records[-1]
            assert step.terminated[i] == all(u.terminations.values())
            assert step.truncated[i] == all(u.truncations.values())
            if step.terminated[i] or step.truncated[i]:
                flags["terminated"] += int(step.terminated[i])
                flags["truncated"] += int(step.truncated[i])
                episodes[i] += 1
                while e.agents:  # the dead agents step out, then a new episode on the same generator
                    e.step(None)
                e.reset()
        assert next(finished, None) is None
    assert (hands >= 3).all(), hands  # every game crossed hand boundaries
    if pass_out:
        assert passed_out > 2, passed_out
    assert (episodes >= 1).all() and episodes.sum() > n, episodes  # episode boundaries too
    if episode:
        assert flags["terminated"] > 0 and flags["truncated"] > 0, flags
        assert (hands > episodes).any()  # some episodes held several hands
    else:
        assert (hands == episodes).all()


def test_arrays_by_batch_size_and_variant():
    assert BatchedGames(BatchedGames.ARRAYS_FROM, seed=0).arrays
    assert not BatchedGames(BatchedGames.ARRAYS_FROM - 1, seed=0).arrays
    assert BatchedGames(2, seed=0, arrays=True).arrays and not BatchedGames(500, seed=0, arrays=False).arrays
    assert not BatchedGames(500, rules={"variant": "cutthroat"}, seed=0).arrays
    with pytest.raises(ValueError, match="cutthroat"):
        BatchedGames(2, rules={"variant": "cutthroat"}, arrays=True)
    with pytest.raises(ValueError, match="arrays"):
        BatchedGames(2, arrays="yes")


def test_int_seed_reproducible_and_games_differ():
    a, b = BatchedGames(6, seed=5), BatchedGames(6, seed=5)
    sa, sb = a.reset(), b.reset()
    np.testing.assert_array_equal(sa.observations, sb.observations)
    assert len({row.tobytes() for row in sa.observations}) == 6
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(80):
        sa, sb = a.step(random_actions(sa.action_masks, rng_a)), b.step(random_actions(sb.action_masks, rng_b))
        np.testing.assert_array_equal(sa.observations, sb.observations)
        np.testing.assert_array_equal(sa.rewards, sb.rewards)
    c = BatchedGames(6, seed=6).reset()
    assert not np.array_equal(c.observations, a.reset(seed=5).observations)
    with pytest.raises(ValueError, match="seed"):
        BatchedGames(3, seed=[1, 2]).reset()


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ([1.2, 1.9], "seed 0 must be None or a whole number >= 0, got 1.2"),  # both played as seed 1
        ([True, False], "seed 0 must be None or a whole number >= 0, got True"),
        ([1, -2], "seed 1 must be None or a whole number >= 0, got -2"),
        (-1, "seed must be None or a whole number >= 0, got -1"),
        (1.5, "seed must be None, a whole number >= 0 or one per game, got 1.5"),
        ("ab", "one per game, got 'ab'"),
        (np.array(3), "one per game, got array(3)"),
    ],
)
def test_a_bad_seed_is_refused_when_the_batch_is_made(seed, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        BatchedGames(2, seed=seed)
    assert BatchedGames(2, seed=np.array([5, 6])).reset() is not None
    with pytest.raises(ValueError):
        BatchedGames(0)


@pytest.mark.parametrize("rows", [[-1], [0.5], [2], [True]])
def test_states_refuse_rows_that_are_not_game_numbers(rows):
    """``states([-1])`` returned the last game's state and ``states([0.5])`` game 0's."""
    games = BatchedGames(2, seed=0)
    games.reset()
    with pytest.raises(ValueError, match=r"rows must be game numbers 0\.\.1"):
        games.states(rows)
    assert games.states([1]).shape == (1, games.state_size)


@pytest.mark.parametrize("variant", [Rules().variant, *OTHER_GAMES])
def test_states_of_no_rows_are_an_empty_stack(variant):
    """``states([])`` failed with a reshape error in the partnership game's stacked encoder."""
    games = BatchedGames(2, seed=0, rules=Rules(variant=variant))
    games.reset()
    empty = games.states([])
    assert empty.shape == (0, games.state_size) and empty.dtype == np.float32


@pytest.mark.parametrize("count", ["4", 2.0, True, 0])
def test_the_number_of_games_must_be_a_positive_integer(count):
    with pytest.raises(ValueError, match=f"num_games must be an integer >= 1, got {count!r}"):
        BatchedGames(count)


def test_step_before_reset():
    with pytest.raises(RuntimeError):
        BatchedGames(2, seed=0).step([0, 0])


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_illegal_action_names_game_and_changes_nothing(arrays):
    n = 4
    batch = BatchedGames(n, seed=[1, 2, 3, 4], arrays=arrays)
    step = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        step = batch.step(random_actions(step.action_masks, rng))
    legal = random_actions(step.action_masks, rng)
    events = [len(g.events) for g in batch.games]
    masks = step.action_masks.copy()
    layout = batch.layout
    for game, bad in [(2, int(np.flatnonzero(masks[2] == 0)[0])), (1, 10_000), (3, -1), (0, layout.size)]:
        actions = legal.copy()
        actions[game] = bad
        with pytest.raises(IllegalActionError) as info:
            batch.step(actions)
        message = str(info.value)
        assert isinstance(info.value, ValueError)
        assert f"game {game}" in message
        assert str(bad) in message
        for a in np.flatnonzero(masks[game]):
            assert layout.to_string(int(a)) in message
        assert [len(g.events) for g in batch.games] == events  # no game moved, not even the legal ones
    after = batch.step(legal)  # the batch still works from where it was
    assert sum(len(g.events) for g in batch.games) > sum(events)
    assert after.observations.shape == step.observations.shape


@pytest.mark.parametrize("shape", [(3,), (5,), (4, 1), (1, 4), ()])
def test_wrong_action_shape_raises(shape):
    batch = BatchedGames(4, seed=0)
    step = batch.reset()
    events = [len(g.events) for g in batch.games]
    with pytest.raises(ValueError, match="4"):
        batch.step(np.zeros(shape, dtype=np.int64) + int(np.flatnonzero(step.action_masks[0])[0]))
    assert [len(g.events) for g in batch.games] == events


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_rewards_zero_sum_and_only_at_hand_end(arrays):
    n = 8
    batch = BatchedGames(n, seed=123, reward_scale=100, arrays=arrays)
    step = batch.reset()
    assert step.rewards.shape == (n, 4) and step.rewards.dtype == np.float32
    assert not step.rewards.any() and not step.hand_over.any()
    rng = np.random.default_rng(3)
    nonzero = 0
    for t in range(300):
        previous = (step.observations, step.action_masks, step.seats, step.rewards)
        kept = [a.copy() for a in previous]
        step = batch.step(random_actions(step.action_masks, rng))
        if t % 10 == 0:  # a step's arrays are not overwritten by the next step (rollout buffers keep them)
            for old, copied in zip(previous, kept, strict=True):
                np.testing.assert_array_equal(old, copied)
        r = step.rewards
        assert r.shape == (n, 4)
        np.testing.assert_allclose(r.sum(axis=1), 0, atol=1e-6)
        np.testing.assert_array_equal(r[:, 0], r[:, 2])
        np.testing.assert_array_equal(r[:, 1], r[:, 3])
        assert not r[~step.hand_over].any()
        nonzero += int(r[step.hand_over].any(axis=1).sum())
    assert nonzero > 10


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_records_replay_exactly(arrays):
    n = 6
    rules = Rules(pass_mode="simultaneous", counting="classic")
    batch = BatchedGames(n, rules=rules, seed=77, record=True, arrays=arrays)
    step = batch.reset()
    rng = np.random.default_rng(4)
    records = []
    for _ in range(200):
        step = batch.step(random_actions(step.action_masks, rng))
        assert len(step.records) == int(step.hand_over.sum())
        records += step.records
    assert len(records) >= n
    for record in records:
        assert record["options"] == rules.to_dict()
        assert replay(record).record() == record
    unrecorded = BatchedGames(2, seed=1)
    step = unrecorded.reset()
    for _ in range(150):
        step = unrecorded.step(random_actions(step.action_masks, rng))
        assert step.records == []


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_records_come_in_the_order_of_the_games(arrays):
    """``zip(np.flatnonzero(step.hand_over), step.records)`` pairs each record with its game: the
    reward a game got at its hand's end is the margin of its record's score."""
    batch = BatchedGames(64, seed=8, record=True, arrays=arrays)
    step = batch.reset()
    rng = np.random.default_rng(9)
    together = 0  # steps where several hands ended, with different scores
    for _ in range(250):
        step = batch.step(random_actions(step.action_masks, rng))
        rows = np.flatnonzero(step.hand_over)
        assert len(rows) == len(step.records)
        for row, record in zip(rows.tolist(), step.records, strict=True):
            team, other = record["score"]
            margin = (team - other) / 1000
            np.testing.assert_allclose(step.rewards[row], [margin, -margin, margin, -margin], rtol=1e-6)
        together += len({tuple(record["score"]) for record in step.records}) > 1
    assert together > 10, together


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_states_shape_and_content(arrays):
    n = 3
    batch = BatchedGames(n, seed=[4, 5, 6], arrays=arrays)
    step = batch.reset()
    rng = np.random.default_rng(5)
    for _ in range(30):
        states = batch.states()
        assert states.shape == (n, batch.state_size) and states.dtype == np.float32
        assert batch.state_size == batch.observation_size + 3 * 48
        np.testing.assert_array_equal(states[:, : batch.observation_size], step.observations)
        np.testing.assert_array_equal(batch.states([2, 0]), states[[2, 0]])  # any rows, in any order
        for i, game in enumerate(batch.games):
            seat = int(step.seats[i])
            tail = states[i, batch.observation_size :].reshape(3, 2, 24)
            for rel in (1, 2, 3):
                hand = np.array(game.hands[(seat + rel) % 4])
                np.testing.assert_array_equal(tail[rel - 1, 0], hand >= 1)
                np.testing.assert_array_equal(tail[rel - 1, 1], hand >= 2)
        step = batch.step(random_actions(step.action_masks, rng))


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_game_episodes_terminate_or_truncate(arrays):
    n = 6
    target = 300
    batch = BatchedGames(
        n, rules={"target_score": target}, seed=9, episode="game", max_hands=2, record=True, arrays=arrays
    )
    step = batch.reset()
    rng = np.random.default_rng(6)
    in_episode = np.zeros(n, int)
    seen = {"terminated": 0, "truncated": 0, "continued": 0}
    for _ in range(500):
        step = batch.step(random_actions(step.action_masks, rng))
        records = iter(step.records)
        assert not (step.terminated & ~step.hand_over).any()
        assert not (step.truncated & ~step.hand_over).any()
        assert not (step.terminated & step.truncated).any()
        for i in np.flatnonzero(step.hand_over):
            record = next(records)
            in_episode[i] += 1
            won = max(record["totals"]) >= target
            if step.terminated[i]:
                assert won
                seen["terminated"] += 1
            elif step.truncated[i]:
                assert not won and in_episode[i] == 2
                seen["truncated"] += 1
            else:
                assert not won and in_episode[i] < 2
                seen["continued"] += 1
            if step.episode_over[i]:
                in_episode[i] = 0
                assert batch.games[i].totals == [0, 0] and batch.games[i].hand_number == 0
                assert not step.observations[i][batch.spec.piece("scores").slice].any()
            else:
                assert batch.games[i].totals == record["totals"]
    assert all(seen.values()), seen


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "engines"])
def test_win_reward_batch(arrays):
    batch = BatchedGames(
        4, rules={"target_score": 300}, seed=10, episode="game", reward="win", record=True, arrays=arrays
    )
    step = batch.reset()
    rng = np.random.default_rng(7)
    games_won = 0
    for _ in range(400):
        step = batch.step(random_actions(step.action_masks, rng))
        for i in np.flatnonzero(step.hand_over):
            if step.terminated[i]:
                games_won += 1
                assert sorted(step.rewards[i]) == [-1, -1, 1, 1]
            else:
                assert not step.rewards[i].any()
    assert games_won > 0
    with pytest.raises(ValueError, match="win"):
        BatchedGames(2, reward="win")


# --------------------------------------------------------------------------------------------
# The other games' win reward


@pytest.mark.parametrize("variant", OTHER_GAMES)
def test_win_reward_is_zero_sum(variant):
    batch = BatchedGames(4, rules={"variant": variant, "target_score": 200}, seed=1, episode="game", reward="win")
    step = batch.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        step = batch.step(random_actions(step.action_masks, rng))
        for i in np.flatnonzero(step.terminated):
            ended += 1
            rewards = step.rewards[i]
            assert rewards.sum() == pytest.approx(0, abs=1e-6)
            assert rewards.max() == 1.0  # the winner
            assert sorted(rewards)[0] == (-0.5 if variant == "cutthroat" else -1.0)
    assert ended > 0
