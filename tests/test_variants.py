"""The games besides the partnership game (three- and two-handed) through the generic layers: rule
validation, rewards, records, the arena's seat rotations, the bots, the trainer presets and
checkpoint agents.

(The engines' own rules are tested in test_cutthroat.py and test_two_hand.py; the PettingZoo
checks and the batched-vs-env equality run for the variants in test_env.py and test_batch.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pinochle_env
from agents.arena import ArenaConfig, run_arena
from agents.arena.report import deal_pair_margin
from agents.base import check_plays, decide
from agents.gym_env import SingleSeatEnv
from agents.neural.agent import BUNDLED_FILES
from agents.neural.checkpoints import CheckpointError
from agents.registry import load_agent
from pinochle_env import BatchedGames, Rules
from pinochle_env.games.kit import margins, new_game, variant_kit
from pinochle_env.games.registry import GAMES
from pinochle_env.records import replay, to_arrays
from pinochle_train import cli

#: Every game but the default one (whose generic behaviour the other test files check): a game
#: added to the registry runs these tests without an edit here.
VARIANTS = tuple(name for name in GAMES if name != "partnership")
SEATS = {name: len(game.teams) for name, game in GAMES.items()}


# ---------------------------------------------------------------------------------------------- rules


@pytest.mark.parametrize("variant", list(GAMES))
@pytest.mark.parametrize("max_bid", [500, 1000])
def test_each_kit_declares_the_action_layout_its_engine_plays(variant, max_bid):
    """The generic layers read a game's actions from its kit (no throwaway game); the engine agrees."""
    applies = GAMES[variant].switches is None or "max_bid" in GAMES[variant].switches
    rules = Rules(variant=variant, **({"max_bid": max_bid} if applies else {}))
    kit = variant_kit(rules)
    game = kit.new_game(np.random.default_rng(0))
    assert kit.layout == game.layout and kit.layout.size == game.layout.size
    assert pinochle_env.env(**rules.to_dict()).action_space("player_0").n == kit.layout.size


@pytest.mark.parametrize("variant", VARIANTS)
def test_switches_that_do_not_apply_are_refused(variant):
    stray = "pass_count" if variant == "cutthroat" else "head_rule"
    value = 3 if variant == "cutthroat" else "none"
    with pytest.raises(ValueError, match=f"{stray} does not apply to variant='{variant}'"):
        Rules(variant=variant, **{stray: value})


def test_target_score_defaults_per_variant_and_can_be_set():
    assert Rules().target_score == 1500
    assert Rules(variant="cutthroat").target_score == 1500
    assert Rules(variant="two_hand").target_score == 1000
    assert Rules(variant="two_hand", target_score=500).target_score == 500
    assert Rules().replace(variant="two_hand").target_score == 1000
    assert Rules(target_score=700).replace(variant="two_hand").target_score == 700


def test_single_seat_env_refuses_the_variants():
    with pytest.raises(ValueError, match="partnership game only"):
        SingleSeatEnv(variant="two_hand")


def test_partnership_engine_refuses_a_variant_rule_set():
    with pytest.raises(ValueError, match=r"use pinochle_env\.new_game"):
        pinochle_env.Game(Rules(variant="cutthroat"))


# ---------------------------------------------------------------------------------------------- rewards


def test_margins_formula():
    assert margins([120, -40], (0, 1, 0, 1)) == [160, -160, 160, -160]
    assert margins([90, 30, -30], (0, 1, 2)) == [90, 0, -90]
    assert sum(margins([250, 11, 7], (0, 1, 2))) == pytest.approx(0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_env_rewards_are_own_score_minus_the_others_mean(variant):
    """Play seeded random hands through env(): each hand's rewards follow its record's scores."""
    e = pinochle_env.env(variant=variant, episode="game", max_hands=4, target_score=10_000)
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    u = e.unwrapped
    assert u.possible_agents == [f"player_{s}" for s in range(SEATS[variant])]
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


@pytest.mark.parametrize("variant", VARIANTS)
def test_win_reward_is_zero_sum(variant):
    batch = BatchedGames(4, rules={"variant": variant, "target_score": 200}, seed=1, episode="game", reward="win")
    step = batch.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in step.action_masks])
        step = batch.step(actions)
        for i in np.flatnonzero(step.terminated):
            ended += 1
            rewards = step.rewards[i]
            assert rewards.sum() == pytest.approx(0, abs=1e-6)
            assert rewards.max() == 1.0  # the winner
            assert sorted(rewards)[0] == (-0.5 if variant == "cutthroat" else -1.0)
    assert ended > 0


# ---------------------------------------------------------------------------------------------- records


@pytest.mark.parametrize("variant", VARIANTS)
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


# ---------------------------------------------------------------------------------------------- arena and bots


@pytest.mark.parametrize("variant", VARIANTS)
def test_arena_plays_every_seat_rotation(variant, tmp_path: Path):
    """A deal is played once per seat A can take: 3 plays in cutthroat, 2 in the two-handed game,
    all on the same cards, with A's margin its score minus the mean of the others'."""
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=6, seed=3)
    summary = run_arena(config, tmp_path, workers=1, progress_every=0)
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    seats = SEATS[variant]
    for line in lines:
        plays = line["plays"]
        assert [play["a_team"] for play in plays] == list(range(seats))
        deals = {json.dumps(play["hands"][0]["deal"]) for play in plays}
        assert len(deals) == 1  # the same cards in every rotation
        expected = np.mean(
            [
                play["hands"][0]["score"][play["a_team"]]
                - (sum(play["hands"][0]["score"]) - play["hands"][0]["score"][play["a_team"]]) / (seats - 1)
                for play in plays
            ]
        )
        assert deal_pair_margin(line) == pytest.approx(expected)
    assert summary["pairings"][0]["deal_pairs"] == 6


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_beats_random(variant, tmp_path: Path):
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=40, seed=11)
    margin = run_arena(config, tmp_path, workers=1, progress_every=0)["pairings"][0]["margin"]
    assert margin["low"] > 0, margin


@pytest.mark.parametrize("variant", VARIANTS)
def test_arena_results_do_not_depend_on_workers(variant, tmp_path: Path):
    config = ArenaConfig(("heuristic", "random"), rules=Rules(variant=variant), deals=4, games=1, seed=2)
    one = run_arena(config, tmp_path / "one", workers=1, progress_every=0)
    two = run_arena(config, tmp_path / "two", workers=2, progress_every=0)
    assert one["pairings"][0]["margin"] == two["pairings"][0]["margin"]
    assert one["pairings"][0]["games"] == two["pairings"][0]["games"]


# ---------------------------------------------------------------------------------------------- trainer


@pytest.mark.parametrize("variant", VARIANTS)
def test_trainer_preset_smoke_run_and_checkpoint_agent(variant, tmp_path: Path, capsys):
    """The variant's preset trains (tiny: a 2-hand warm start in one round), evaluates through the
    arena, and its policy plays as an agent in that variant only."""
    args = [
        "--config", variant, "--workers", "0", "--games-per-worker", "4", "--updates", "2",
        "--decisions-per-update", "200", "--hidden", "32", "--critic-hidden", "32", "--minibatch-size", "64",
        "--eval-every", "0", "--final-eval-deals", "2", "--out-dir", str(tmp_path), "--run-name", "r",
        "--log-every", "100", "--imitation-hands", "2", "--imitation-epochs", "1", "--imitation-rounds", "1",
    ]  # fmt: skip
    assert cli.main(args) == 0
    assert "final evaluation" in capsys.readouterr().err
    run = tmp_path / "r"
    assert list(run.glob("events.out.tfevents.*")) and (run / "checkpoints" / "update_000002.pt").exists()
    agent = load_agent(f"checkpoint:{run / 'policy.pt'}", seed=0)
    game = new_game(Rules(variant=variant), np.random.default_rng(4))
    while not game.hand_over:
        game.apply(decide(agent, game))
    other = "two_hand" if variant == "cutthroat" else "cutthroat"
    game = new_game(Rules(variant=other), np.random.default_rng(4))
    with pytest.raises(CheckpointError, match=f"plays the {variant} game"):
        decide(load_agent(f"checkpoint:{run / 'policy.pt'}", seed=0), game)


@pytest.mark.parametrize("variant", ["partnership", "cutthroat", "two_hand"])
def test_bundled_agent_plays_each_game_with_the_policy_trained_for_it(variant):
    """``checkpoint:bundled`` is one agent per variant: one instance plays a whole hand of the game it
    is given, legally (the driver checks each action), with the policy whose metadata names that game,
    and turns to another game's policy when the next game differs."""
    agent = load_agent("checkpoint:bundled", seed=0)
    for rules in (Rules(variant=variant), Rules()):
        check_plays(agent, rules)
        assert agent.meta["rules"]["variant"] == rules.variant
        assert agent.path.name == {"partnership": "pinochle_ppo.pt"}.get(
            rules.variant, f"pinochle_ppo_{rules.variant}.pt"
        )
        game = new_game(rules, np.random.default_rng(0))
        while not game.hand_over:
            game.apply(decide(agent, game))


def test_checkpoint_agents_refuse_a_variant_up_front():
    """``check_plays`` refuses a checkpoint trained for another game before any deal, as for pimc:
    a run's policy, and the bundled agents that exist for the partnership game only."""
    run_policy = load_agent(f"checkpoint:{BUNDLED_FILES['bundled']['partnership']}", seed=0)
    check_plays(run_policy, Rules())
    for variant in ("cutthroat", "two_hand"):
        with pytest.raises(CheckpointError, match="plays the partnership game"):
            check_plays(run_policy, Rules(variant=variant))
        with pytest.raises(ValueError, match="bundled-any-rules plays the partnership game only"):
            check_plays(load_agent("checkpoint:bundled-any-rules", seed=0), Rules(variant=variant))
    with pytest.raises(CheckpointError, match="observation_size"):
        check_plays(load_agent("checkpoint:bundled", seed=0), Rules(max_bid=500))
