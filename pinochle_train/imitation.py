"""Warm start by imitation: learn a bot's decisions from its hand records, before self-play.

With ``imitate = "heuristic"`` and ``imitation_hands = N`` the trainer first has the bot play
``N`` hands against itself (worker processes, seeded by the run's seed), turns the hand records
into training arrays (:func:`pinochle_env.records.to_arrays`, with the perfect-information states
for the critic), and fits the policy to the bot's choices (cross-entropy over the masked logits)
and the critic to each hand's outcome for the deciding seat's team (the Monte-Carlo return), for
``imitation_epochs`` passes. Self-play PPO then improves on that start. Forced decisions (one
legal action) carry no information and are left out. With ``sample_rules`` each chunk of
``CHUNK_HANDS`` hands is played under a rule set of its own (:func:`chunk_rules`).

With ``imitation_rounds = R > 1`` the hands are split into R rounds (DAgger): the first round's
hands are the bot's own; in each later round the policy fitted so far (the student, saved in the
labels folder as ``student_NN.pt``) plays every seat while the bot only labels each decision, so
that the student learns the bot's choice in the positions its own mistakes lead to, not only in
those the bot reaches; after each round the networks are fitted again on every label so far.

With ``imitation_auction_hands = M`` the first round also has ``M`` hands played by the heuristic
(:data:`AUCTION_PLAYER`) of which the teacher labels only the auction: where the teacher bids as
the heuristic does (the ``default`` preset's teacher), a bidding label costs microseconds while a
searched hand costs seconds, and a network's bidding errors compound over an auction (a network fitted
to 3,000 teacher hands declared 72% of the hands against the heuristic's 28%).

Where the teacher values the legal cards (the search bot's card play, :func:`agents.base.decide_with_values`),
the labels keep those values (``card_values``), and ``imitation_temperature = T > 0`` fits the
policy to ``softmax(value / T)`` over the legal cards instead of the teacher's one choice
(:func:`cloning_loss`): a choice from a few sampled deals is noisy, and the values say which other
cards were nearly as good, so each label teaches more.

With ``auction_labels = "simulated"`` the auction is learned from values instead of the teacher's
calls: at every auction decision of every warm-start hand (the teacher's, the students' and the
auction-only hands) each legal call is valued by playing the true deal out on the search kernel
(:mod:`.simulated`, ``call_values``; ``"simulated_rest"`` values a pass where the rest of the
auction, called by the heuristic, ends), and the policy's auction logits are fitted to those values by
regression (:func:`cloning_loss`). Hundreds of thousands of such labels take minutes, and a network
fitted to them bids like the search bot, whose bidding beat the heuristic's by about 20 points a
hand with the same card play.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import torch
from torch import nn

from agents.base import check_plays, decide, decide_with_values, prepare
from agents.heuristic import HeuristicAgent
from agents.neural.network import MLP, masked_logits
from agents.registry import load_agent
from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.kit import margins, variant_kit
from pinochle_env.records import to_arrays
from pinochle_env.rules.switches import Rules

from .cloning import cloning_loss
from .config import CHUNK_HANDS, TrainConfig, auction_chunks, chunk_hands, imitation_chunks
from .labels import (
    INPUT_DTYPE,
    LabelsError,
    chunk_path,
    labels_identity,
    load_chunk,
    open_labels,
    save_chunk,
    stack_chunks,
    student_path,
)
from .simulated import auction_values

#: Who plays the auction-only hands (``imitation_auction_hands``), the teacher labelling their auctions.
AUCTION_PLAYER = "heuristic"


@dataclass
class PlayedLabels:
    """Hands played for the warm start and their labels, one row per decision in record order (what
    :func:`~pinochle_env.records.to_arrays` lists): the teacher's ``actions`` (-1 where it labelled
    nothing), its ``card_values`` (float32, one column per card type, NaN where it gave none: every
    other decision kind, or an agent that values nothing) and the ``call_values``, simulated, of the legal
    auction calls (float32, one column per call action id: the bids, pass and pass with help; NaN
    where none: :mod:`.simulated`)."""

    records: list[dict[str, Any]]
    actions: np.ndarray
    card_values: np.ndarray
    call_values: np.ndarray


def play_records(
    spec: str,
    rules: Rules,
    hands: int,
    seed: list[int],
    student: str | None = None,
    decisions: Collection[str] | None = None,
    auction_labels: str = "teacher",
) -> PlayedLabels:
    """``hands`` hands in the game of ``rules`` with the labels of the agent ``spec`` (see
    :class:`PlayedLabels`). Every seat plays ``spec``'s choice, or with a ``student`` spec the
    student's, ``spec`` only labelling; with ``decisions`` (kinds of
    :data:`~pinochle_env.protocol.DECISIONS`) ``spec`` labels only those, the label elsewhere being
    -1 (the student must then be given). With ``auction_labels`` ``"simulated"`` or
    ``"simulated_rest"`` (the config's values) every auction decision with a choice also gets its
    calls' values simulated on the true deal (:func:`pinochle_train.simulated.auction_values`, a
    pass valued where the heuristic's rest of the auction ends with ``"simulated_rest"``), on
    random streams of their own: the hands are the same either way."""
    if decisions is not None and student is None:
        raise ValueError("labelling only some decisions needs a student to play the others")
    kit = variant_kit(rules)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    teachers = [load_agent(spec, int(rng.integers(2**31))) for _ in range(kit.num_seats)]
    players = teachers if student is None else [load_agent(student, seat) for seat in range(kit.num_seats)]
    simulated = auction_labels != "teacher"
    simulation = _CallSimulation(seed, rules, auction_labels == "simulated_rest") if simulated else None
    card0 = variant_kit(rules).layout.card0
    records: list[dict[str, Any]] = []
    labels: list[int] = []
    values: list[np.ndarray] = []
    called: list[np.ndarray] = []
    for _ in range(hands):
        game = kit.new_game(rng)
        deal, first = game.deal, len(labels)
        while not game.hand_over:
            if game.deal is not deal:  # a redeal (all_pass = "redeal"): the record holds only the new deal
                deal = game.deal
                del labels[first:], values[first:], called[first:]
            row = np.full(NUM_TYPES, np.nan, np.float32)
            if decisions is None or game.phase.decision in decisions:
                label, action_values = decide_with_values(teachers[game.to_act], game)
                for action, value in (action_values or {}).items():
                    row[action - card0] = value
            else:
                label = -1
            labels.append(label)
            values.append(row)
            called.append(simulation.row(game) if simulation is not None else np.full(call_count(rules), np.nan))
            game.apply(label if student is None else decide(players[game.to_act], game))
        records.append(game.record())
    return PlayedLabels(
        records,
        np.asarray(labels, np.int64),
        np.array(values, np.float32).reshape(-1, NUM_TYPES),
        np.array(called, np.float32).reshape(len(labels), call_count(rules)),
    )


class _CallSimulation:
    """The ``call_values`` rows of :func:`play_records` with simulated auction labels: each legal call's
    value at an auction decision with a choice (:func:`pinochle_train.simulated.auction_values`),
    on random streams of their own (so the hands are those played without them)."""

    def __init__(self, seed: list[int], rules: Rules, rest_of_auction: bool) -> None:
        self.rest_of_auction = rest_of_auction
        self.rng = np.random.default_rng(np.random.SeedSequence([*seed, 2**31 + 5]))
        self.heuristic = HeuristicAgent(int(self.rng.integers(2**31)))
        self.calls = call_count(rules)

    def row(self, game: Any) -> np.ndarray:
        row = np.full(self.calls, np.nan, np.float32)
        if game.phase.decision == "auction" and len(game.legal_actions()) > 1:
            for action, value in auction_values(game, self.heuristic, self.rng, self.rest_of_auction).items():
                row[action] = value
        return row


@functools.lru_cache(maxsize=64)
def call_count(rules: Rules) -> int:
    """Auction call actions under ``rules`` (the bids, pass and pass with help: action ids from 0),
    the columns of ``call_values``; 0 in a game without an auction."""
    kit = variant_kit(rules)
    if "auction" not in kit.decisions_taken:
        return 0
    return int(kit.layout.trump0)


def chunk_rules(config: TrainConfig, chunk: int) -> Rules:
    """The rules of one chunk of imitation hands: the config's, or with ``sample_rules`` a rule set
    drawn over the switches for that chunk (as each rollout draws its own), so that the warm start
    already sees the rule sets self-play will."""
    return config.drawn_rules(np.random.default_rng([config.seed, chunk, 2**31 + 4]))


def chunk_rounds(config: TrainConfig) -> list[list[int]]:
    """The chunks of each round of the warm start: ``imitation_rounds`` runs of consecutive chunks,
    the first round followed by the auction-only chunks (``imitation_auction_hands``)."""
    chunks = imitation_chunks(config)
    rounds = config.imitation_rounds
    plan = [list(range(r * chunks // rounds, (r + 1) * chunks // rounds)) for r in range(rounds)]
    plan[0] += range(chunks, chunks + auction_chunks(config))
    return plan


def chunk_sizes(config: TrainConfig) -> dict[int, int]:
    """Hands in each chunk of the warm start (the last of the teacher's and of the auction-only
    chunks may be short)."""
    return dict(enumerate(chunk_hands(config.imitation_hands) + chunk_hands(config.imitation_auction_hands)))


def chunk_arrays(job: tuple[TrainConfig, int, int, Path | None]) -> dict[str, np.ndarray]:
    """One chunk of imitation data: play (the ``student`` policy file playing, when given; in an
    auction-only chunk the heuristic, the teacher labelling the auction alone), convert, drop forced
    and unlabelled decisions, inputs compacted to :data:`~.labels.INPUT_DTYPE`, masks to uint8."""
    config, chunk, hands, student = job
    auction_only = chunk >= imitation_chunks(config)
    player = AUCTION_PLAYER if auction_only else None if student is None else f"checkpoint:{student}"
    played = play_records(
        config.imitate,
        chunk_rules(config, chunk),
        hands,
        [config.seed, 2**31 + 1, chunk],
        player,
        ("auction",) if auction_only else None,
        auction_labels=config.auction_labels,
    )
    records, labels = played.records, played.actions
    arrays = to_arrays(records, config.reward_scale, states=config.critic_input == "state")
    # Each seat's return: its team's hand score minus the mean of the other teams', as self-play pays it.
    teams = variant_kit(config.rule_set()).teams
    paid = np.array([margins(record["score"], teams) for record in records], np.float32) / config.reward_scale
    keep = (arrays["action_mask"].sum(axis=1) > 1) & (labels >= 0)
    critic_key = "state" if config.critic_input == "state" else "observation"
    return {
        "observation": arrays["observation"][keep].astype(INPUT_DTYPE),
        "critic_input": arrays[critic_key][keep].astype(INPUT_DTYPE),
        "action_mask": arrays["action_mask"][keep].astype(np.uint8),
        "action": labels[keep],
        "returns": paid[arrays["hand"], arrays["seat"]][keep],
        "card_values": played.card_values[keep],
        "call_values": played.call_values[keep],
    }


def _one_thread() -> None:
    """A pool worker runs a student's network one position at a time on one thread: the pool
    already uses the cores (with PyTorch's default of a thread per core in each of 2 workers on 2
    cores, a student's hands took 2.5 times as long)."""
    torch.set_num_threads(1)


def play_chunk(job: tuple[TrainConfig, int, int, Path | None, Path | None]) -> dict[str, np.ndarray]:
    """:func:`chunk_arrays`, written to the labels folder (if one is given) as soon as it is made,
    in the worker."""
    config, chunk, hands, student, folder = job
    data = chunk_arrays((config, chunk, hands, student))
    if folder is not None:
        save_chunk(chunk_path(folder, chunk), data)
    return data


def collect_imitation_data(
    config: TrainConfig, log: TextIO | None = None, folder: Path | None = None, rounds: Sequence[int] | None = None
) -> dict[str, np.ndarray]:
    """Imitation arrays of the chunks of ``rounds`` (default: every round) of ``config.imitate``'s
    warm start, in chunk order.

    With a labels ``folder`` (the trainer's ``RUN/labels``), every chunk is written there as it is
    made and the chunks already there are read instead of played again: an interrupted warm start,
    and a resumed run's cloning loss, continue from what was played. A later round's chunks are
    played by that round's student (:func:`student_path`), which must be there.
    """
    plan = chunk_rounds(config)
    chunks = [(r, chunk) for r in (range(len(plan)) if rounds is None else rounds) for chunk in plan[r]]
    sizes = chunk_sizes(config)
    stored: dict[int, dict[str, np.ndarray]] = {}
    if folder is not None:
        open_labels(folder, labels_identity(config))
        stored = {
            chunk: load_chunk(chunk_path(folder, chunk)) for _, chunk in chunks if chunk_path(folder, chunk).exists()
        }
        if stored and log is not None:
            print(f"imitation: {len(stored)} of {len(chunks)} chunks read from {folder}", file=log, flush=True)
    jobs = []
    for r, chunk in chunks:
        if chunk in stored:
            continue
        student = None
        if r > 0:
            if folder is None:
                raise ValueError(f"imitation round {r + 1} needs the labels folder that holds its student")
            student = student_path(folder, r)
            if not student.is_file():
                raise LabelsError(
                    f"imitation round {r + 1} needs its student's policy file {student} to play its hands"
                )
            try:  # a damaged or foreign student would fail in a worker, in a traceback
                check_plays(load_agent(f"checkpoint:{student}"), config.rule_set())
            except ValueError as error:  # a CheckpointError included
                raise LabelsError(f"imitation round {r + 1}'s student cannot play its hands: {error}") from None
        jobs.append((config, chunk, sizes[chunk], student, folder))
    if jobs:
        # One-time set-up here, not in each worker (the search bot compiles its kernel, cached on disk).
        prepare(load_agent(config.imitate, config.seed), config.rule_set())
        if config.auction_labels != "teacher":
            from agents.search.kernel import compile_search_kernel

            compile_search_kernel()
        if config.workers <= 1:
            played = _gather(map(play_chunk, jobs), len(jobs), log)
        else:
            with multiprocessing.get_context("spawn").Pool(config.workers, initializer=_one_thread) as pool:
                played = _gather(pool.imap(play_chunk, jobs), len(jobs), log)
        stored.update(zip([job[1] for job in jobs], played, strict=True))
    return stack_chunks([stored[chunk] for _, chunk in chunks])


def _gather(iterator: Any, total: int, log: TextIO | None) -> list[dict[str, np.ndarray]]:
    parts = []
    for done, part in enumerate(iterator, start=1):
        parts.append(part)
        if log is not None and (done == total or done % max(total // 10, 1) == 0):
            print(f"imitation: played {done}/{total} chunks of {CHUNK_HANDS} hands", file=log, flush=True)
    return parts


def fit_imitation(
    policy: nn.Module,
    critic: MLP,
    optimizer: torch.optim.Optimizer,
    data: dict[str, np.ndarray],
    config: TrainConfig,
    device: torch.device,
    log: TextIO | None = None,
) -> dict[str, float]:
    """Fit the policy to the bot's actions (or its soft targets, :func:`cloning_loss`) and the critic
    to the outcomes; the final epoch's statistics (``cross_entropy`` is that policy loss) and the
    decisions fitted."""
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, 2**31 + 2]))
    card0 = variant_kit(config.rule_set()).layout.card0
    tensors = {key: torch.from_numpy(value) for key, value in data.items()}
    n = len(data["action"])
    parameters = [*policy.parameters(), *critic.parameters()]
    statistics: dict[str, float] = {}
    for epoch in range(config.imitation_epochs):
        totals = np.zeros(3)
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, config.minibatch_size):
            index = order[start : start + config.minibatch_size]
            batch = {key: tensor[index].to(device) for key, tensor in tensors.items()}
            logits = masked_logits(policy(batch["observation"].float()), batch["action_mask"])
            policy_loss = cloning_loss(logits, batch, card0, config.imitation_temperature, config.value_temperature)
            value = critic(batch["critic_input"].float()).squeeze(1)
            value_loss = 0.5 * ((value - batch["returns"]) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + config.value_coef * value_loss).backward()
            nn.utils.clip_grad_norm_(parameters, config.max_grad_norm)
            optimizer.step()
            agree = (logits.argmax(dim=1) == batch["action"]).float().sum()
            totals += [policy_loss.item() * len(index), value_loss.item() * len(index), agree.item()]
        statistics = {
            "cross_entropy": totals[0] / n, "value_loss": totals[1] / n, "agreement": totals[2] / n, "decisions": n,
        }  # fmt: skip
        if log is not None:
            print(
                f"imitation: epoch {epoch + 1}/{config.imitation_epochs}, {n:,} decisions, cross-entropy "
                f"{statistics['cross_entropy']:.3f}, agreement {100 * statistics['agreement']:.1f}%, "
                f"value loss {statistics['value_loss']:.4f}",
                file=log,
                flush=True,
            )
    return statistics
