"""Self-play rollouts: many games in lockstep on the batched API, with batched network inference.

A :class:`RolloutWorker` owns a :class:`~pinochle_env.BatchedGames` and copies of the networks.
Each update it plays fresh hands, seeded by ``(seed, update, worker)``, until it has collected its
share of trained decisions, and returns them with their advantages (:class:`Samples`). Rollouts
are self-contained: a hand in progress never spans two updates, so a rollout can be redone
anywhere (another process, another machine) with the same result, and resuming a run needs no
rollout state.

Which decisions are trained: every decision of the current policy with more than one legal
action. Forced decisions (one legal action) are played without the network. In a share
``pool_prob`` of hands one team is a past policy from the opponent pool; its decisions are played
but not trained. Once a worker has its share, hands that start later are played out with the
first legal action (engine time only) and thrown away, while the hands that count finish.

Where the workers run is the backends' business (:mod:`~pinochle_train.backends`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.neural.network import build_critic, masked_logits, policy_for
from pinochle_env import BatchedGames
from pinochle_env.games.kit import margins
from pinochle_env.protocol import DECISIONS
from pinochle_env.records import dealer_stuck
from pinochle_env.rules.switches import Rules

from .config import TrainConfig, policy_shape
from .labels import INPUT_DTYPE

#: Per-hand statistics a worker reports (one row per counted hand), for TensorBoard.
HAND_STATS = (
    "contract",
    "made",
    "set",
    "thrown_in",
    "declarer_meld",
    "declarer_tricks",
    "help_calls",
    "bids",
    "raised",
    "dealer_stuck",
    "pool_hand",
    "learner_margin",
)

#: Network weights as sent to workers: ``policy`` and ``critic`` state dicts and the ``pool`` of
#: past policy state dicts, all as numpy arrays.
Weights = dict[str, Any]


@dataclasses.dataclass
class Samples:
    """Trained decisions of one rollout, with what PPO needs, plus the rollout's counts."""

    observation: np.ndarray  # (n, observation_size) INPUT_DTYPE: what the behaviour policy saw
    critic_input: np.ndarray  # (n, critic_input_size) INPUT_DTYPE: the state, or the observation again
    action_mask: np.ndarray  # (n, num_actions) uint8
    action: np.ndarray  # (n,) int64
    log_prob: np.ndarray  # (n,) float32, of the behaviour policy
    value: np.ndarray  # (n,) float32, at collection time
    advantage: np.ndarray  # (n,) float32, GAE over the seat's decisions in the hand
    returns: np.ndarray  # (n,) float32 = advantage + value
    phase: np.ndarray  # (n,) int8 index into DECISIONS (the kind of decision)
    hand_stats: np.ndarray  # (hands, len(HAND_STATS)) float32
    decisions: int  # engine decisions of the counted hands (forced and opponents' included)

    def __len__(self) -> int:
        return len(self.action)

    @staticmethod
    def concatenate(parts: list[Samples]) -> Samples:
        fields = {
            field.name: np.concatenate([getattr(part, field.name) for part in parts])
            for field in dataclasses.fields(Samples)
            if field.name != "decisions"
        }
        return Samples(**fields, decisions=sum(part.decisions for part in parts))


def to_numpy(state_dict: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {name: tensor.detach().cpu().numpy().copy() for name, tensor in state_dict.items()}


def _load(module: nn.Module, weights: dict[str, np.ndarray]) -> None:
    """Copy weights in (``torch.tensor`` copies: arrays from Ray's object store are read-only)."""
    module.load_state_dict({name: torch.tensor(array) for name, array in weights.items()})


def rollout_seeds(seed: int, update: int, worker: int) -> tuple[int, np.random.Generator]:
    """The deal seed and the sampling generator of one worker's rollout for one update."""
    deal, sampling = np.random.SeedSequence([seed, update, worker]).spawn(2)
    return int(deal.generate_state(1)[0]), np.random.default_rng(sampling)


def rollout_rules(config: TrainConfig, update: int, worker: int) -> Rules:
    """The rules of one worker's rollout for one update: the config's, or with ``sample_rules`` a rule
    set drawn afresh over the switches (the same for the same seed, update and worker)."""
    return config.drawn_rules(np.random.default_rng([config.seed, update, worker, 2**31 + 3]))


def gae(values: np.ndarray, reward: float, lam: float) -> np.ndarray:
    """Advantages of one seat's decisions in one hand: the only reward comes at the hand's end.

    Undiscounted: delta_t = V_{t+1} - V_t, and the last delta is reward - V_T.
    """
    following = np.append(values[1:], reward)
    deltas = following - values
    advantages = np.empty_like(values)
    running = 0.0
    for t in range(len(values) - 1, -1, -1):
        running = deltas[t] + lam * running
        advantages[t] = running
    return advantages


class RolloutWorker:
    """Plays and collects one worker's share of an update's decisions."""

    def __init__(self, config: TrainConfig, index: int) -> None:
        self.config = config
        self.index = index
        self.games = self._batch(config.rule_set())
        sizes = network_sizes(self.games)
        #: What shapes the policy networks (the current one and the pool's): as a checkpoint says it.
        self._policy_shape = {
            "observation_size": sizes["observation_size"],
            "num_actions": sizes["num_actions"],
            "rules": config.rule_set().to_dict(),
            **policy_shape(config),
        }
        self.policy = policy_for(self._policy_shape)
        self.critic = build_critic(sizes["critic_input_size"][config.critic_input], config.critic_hidden)
        self.opponents: list[nn.Module] = []
        # Index into DECISIONS of the decision taken in each engine phase (-1: none).
        phase_type = self.games.kit.phase_type
        self._phase_group = np.full(max(phase_type) + 1, -1, dtype=np.int8)
        for phase in phase_type:
            if phase.decision is not None:
                self._phase_group[phase] = DECISIONS.index(phase.decision)

    def _batch(self, rules: Rules) -> BatchedGames:
        """The worker's games, under ``rules``."""
        return BatchedGames(self.config.games_per_worker, rules, reward_scale=self.config.reward_scale, record=True)

    def _set_weights(self, weights: Weights) -> None:
        _load(self.policy, weights["policy"])
        _load(self.critic, weights["critic"])
        pool = weights["pool"]
        while len(self.opponents) < len(pool):
            self.opponents.append(policy_for(self._policy_shape))
        for network, state in zip(self.opponents, pool, strict=False):
            _load(network, state)

    @torch.inference_mode()
    def collect(self, update: int, weights: Weights, target: int) -> Samples:
        """Play hands until ``target`` trained decisions are collected and every counted hand is over."""
        self._set_weights(weights)
        config = self.config
        rules = rollout_rules(config, update, self.index)
        if rules != self.games.rules:  # the same layout: only the rules (and their mask) change
            self.games = self._batch(rules)
        games = self.games
        deal_seed, rng = rollout_seeds(config.seed, update, self.index)
        n = games.num_games
        pool_size = len(weights["pool"])
        step = games.reset(seed=deal_seed)
        live = np.ones(n, dtype=bool)
        learner_team = np.full(n, -1)  # -1: every team is the current policy
        opponent = np.zeros(n, dtype=np.int64)
        num_seats, teams = games.num_seats, np.asarray(games.kit.teams)
        chains: list[list[list[int]]] = [[[] for _ in range(num_seats)] for _ in range(n)]

        def start_hand(row: int) -> None:
            chains[row] = [[] for _ in range(num_seats)]
            if pool_size and rng.random() < config.pool_prob:
                learner_team[row] = rng.integers(games.kit.num_teams)
                opponent[row] = rng.integers(pool_size)
            else:
                learner_team[row] = -1

        for row in range(n):
            start_hand(row)
        stored: dict[str, list[Any]] = {key: [] for key in ("obs", "critic", "mask", "action", "logp", "phase")}
        values: list[np.ndarray] = []
        finished: list[tuple[list[int], float]] = []  # (sample indices of one seat in one hand, reward)
        hand_stats: list[tuple[float, ...]] = []
        count = decisions = 0
        while live.any():
            masks, seats = step.action_masks, step.seats
            actions = masks.argmax(axis=1)  # the first legal action: forced and thrown-away rows
            choosing = live & (masks.sum(axis=1) > 1)
            learner = choosing & ((learner_team < 0) | (teams[seats] == learner_team))
            rows = np.flatnonzero(learner)
            if len(rows):
                # The policy decides on the inputs as stored, so that PPO's ratios compare like with like.
                obs = step.observations[rows].astype(INPUT_DTYPE)
                mask = masks[rows]
                logits = masked_logits(self.policy(torch.from_numpy(obs).float()), torch.from_numpy(mask))
                log_probs = torch.log_softmax(logits, dim=1).numpy()
                chosen = sample(np.exp(log_probs), rng)
                actions[rows] = chosen
                critic_in = obs if config.critic_input == "observation" else games.states(rows).astype(INPUT_DTYPE)
                values.append(self.critic(torch.from_numpy(critic_in).float()).squeeze(1).numpy())
                stored["obs"].append(obs)
                stored["critic"].append(critic_in if config.critic_input == "state" else None)
                stored["mask"].append(mask.astype(np.uint8))
                stored["action"].append(chosen)
                stored["logp"].append(log_probs[np.arange(len(rows)), chosen])
                stored["phase"].append(self._phase_group[step.phases[rows]])
                for offset, (row, seat) in enumerate(zip(rows.tolist(), seats[rows].tolist(), strict=True)):
                    chains[row][seat].append(count + offset)
                count += len(rows)
            for index in np.flatnonzero(choosing & ~learner).tolist():
                actions[index] = self._opponent_action(int(opponent[index]), step, index, rng)
            decisions += int(live.sum())
            step = games.step(actions)
            for row, record in zip(np.flatnonzero(step.hand_over).tolist(), step.records, strict=True):
                if not live[row]:
                    continue
                for seat in range(num_seats):
                    if chains[row][seat]:
                        finished.append((chains[row][seat], float(step.rewards[row, seat])))
                hand_stats.append(hand_summary(record, int(learner_team[row]), games.kit.teams))
                live[row] = count < target
                if live[row]:
                    start_hand(row)
        value = np.concatenate(values) if values else np.zeros(0, np.float32)
        advantage = np.zeros_like(value)
        for indices, reward in finished:
            advantage[indices] = gae(value[indices], reward, config.gae_lambda)
        observation = _stack(stored["obs"], games.observation_size, INPUT_DTYPE)
        return Samples(
            observation=observation,
            critic_input=observation
            if config.critic_input == "observation"
            else _stack(stored["critic"], games.state_size, INPUT_DTYPE),
            action_mask=_stack(stored["mask"], games.num_actions, np.uint8),
            action=np.concatenate(stored["action"]).astype(np.int64) if count else np.zeros(0, np.int64),
            log_prob=np.concatenate(stored["logp"]).astype(np.float32) if count else np.zeros(0, np.float32),
            value=value.astype(np.float32),
            advantage=advantage.astype(np.float32),
            returns=(advantage + value).astype(np.float32),
            phase=np.concatenate(stored["phase"]) if count else np.zeros(0, np.int8),
            hand_stats=np.asarray(hand_stats, np.float32).reshape(-1, len(HAND_STATS)),
            decisions=decisions,
        )

    def _opponent_action(self, opponent: int, step: Any, row: int, rng: np.random.Generator) -> int:
        """A sampled action of a pool policy for one row (not trained, so no value or storage)."""
        network = self.opponents[opponent]
        logits = masked_logits(
            network(torch.from_numpy(step.observations[row : row + 1])),
            torch.from_numpy(step.action_masks[row : row + 1]),
        )
        return int(sample(torch.softmax(logits, dim=1).numpy(), rng)[0])


def sample(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row by inverse CDF; never an action of probability 0 (u is drawn in (0, 1])."""
    cumulative = probabilities.cumsum(axis=1)
    threshold = (1.0 - rng.random(len(probabilities))) * cumulative[:, -1]
    return (cumulative < threshold[:, None]).sum(axis=1)


def _stack(chunks: list[np.ndarray], width: int, dtype: type) -> np.ndarray:
    return np.concatenate(chunks) if chunks else np.zeros((0, width), dtype)


def hand_summary(record: dict[str, Any], learner_team: int, teams: tuple[int, ...]) -> tuple[float, ...]:
    """One counted hand's statistics, in the order of ``HAND_STATS`` (``teams``: each seat's team).

    The two-handed game has no auction: its contract figures are NaN, its declarer meld and
    tricks those of both players on average.
    """
    margin = margins(record["score"], teams)[teams.index(learner_team)] if learner_team >= 0 else 0.0
    pool = (learner_team >= 0, margin)
    declarer = record.get("declarer", -1)
    if declarer is None or declarer < 0:
        nan = float("nan")
        meld, points = float(np.mean(record["meld"])), float(np.mean(record["points"]))
        return (nan, nan, nan, nan, meld, points, 0, 0, False, False, *pool)
    team = teams[declarer]
    thrown = bool(record["thrown_in"])
    made = bool(record["made"])
    calls = [call for _, call in record["auction"]]
    bids = sum(isinstance(call, int) for call in calls)
    meld = sum(points for seat, points in enumerate(record["meld"]) if teams[seat] == team)
    return (
        record["bid"],
        made,
        not made and not thrown,
        thrown,
        meld,
        record["points"][team],
        calls.count("help"),
        bids,
        bids > 1,
        dealer_stuck(record),
        *pool,
    )


def network_sizes(games: BatchedGames) -> dict[str, Any]:
    """Input and output sizes of the networks for a rule set (what checkpoints record)."""
    return {
        "observation_size": games.observation_size,
        "num_actions": games.num_actions,
        "critic_input_size": {"state": games.state_size, "observation": games.observation_size},
    }


def shares(target: int, workers: int) -> list[int]:
    """Split an update's decisions over workers (the first ones take the remainder)."""
    return [target // workers + (k < target % workers) for k in range(workers)]
