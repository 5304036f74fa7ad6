"""The training loop: warm start, rollouts, PPO updates, opponent pool, TensorBoard, evaluations.

A run lives in ``<out_dir>/<run_name>/``: ``config.toml`` (the resolved config), TensorBoard
event files, ``checkpoints/update_NNNNNN.pt`` (full training state) and ``policy.pt`` (the latest
policy export, what ``checkpoint:PATH`` loads), written, pruned and resumed by
:mod:`.checkpointing`, ``labels/`` (the warm start's, :mod:`.labels`), ``eval/`` (arena runs) and
``evaluation.txt`` / ``evaluation.json`` (the final evaluation). Every random draw derives from
``(seed, update)``, so a resumed run continues exactly as the uninterrupted one would (in the
single-process mode, and with the same worker count otherwise).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import torch

from agents.arena.runtime import format_duration, usable_cpus
from agents.neural.checkpoints import export_policy
from agents.neural.network import build_critic, policy_for, scale_logits
from pinochle_env import BatchedGames
from pinochle_env.files import WriteFailed, folder_held, write_text_atomically, writing
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import DECISIONS

from .backends import make_backend
from .checkpointing import WARM_START, RunCheckpoints, load_initial_policy, network_metadata, training_state
from .cloning import CLONED_KEYS
from .config import TrainConfig, to_toml
from .evaluate import RESERVED_SEED, evaluate, format_evaluation, spec_slug
from .labels import holds_chunks, labels_folder, labels_identity, load_earlier_labels, stack_chunks, student_path
from .ppo import Guides, ppo_update
from .rollout import HAND_STATS, Samples, network_sizes, to_numpy


def pick_device(name: str) -> torch.device:
    """``auto``: CUDA when available, else CPU; ``cuda`` without a GPU is an error."""
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device=cuda but PyTorch sees no CUDA GPU (use device=auto or cpu)")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


class TrainingDiverged(RuntimeError):
    """The losses or the weights became non-finite: the run stops without saving them."""


def minibatch_rng(seed: int, update: int) -> np.random.Generator:
    """The generator of an update's minibatch order (distinct from every worker's rollout streams)."""
    return np.random.default_rng(np.random.SeedSequence([seed, update, 2**31]))


class Trainer:
    """One training run; :meth:`run` trains to ``config.updates`` and evaluates. ``from_checkpoint``:
    the run is about to be restored from a training checkpoint (:func:`.checkpointing.restore`),
    whose weights replace the initial policy's, so that policy is not loaded (its file may be gone)."""

    def __init__(
        self, config: TrainConfig, run_dir: Path, log: TextIO | None = None, from_checkpoint: bool = False
    ) -> None:
        self.config = config
        self.run_dir = run_dir
        self.log = log
        self.device = pick_device(config.device)
        torch.manual_seed(config.seed)
        self.rules = config.rule_set()
        sizes = network_sizes(BatchedGames(1, self.rules))
        self.sizes = {**sizes, "critic_input_size": sizes["critic_input_size"][config.critic_input]}
        #: What identifies the networks' inputs and outputs: the head of every checkpoint.
        self.metadata = network_metadata(config, self.rules, self.sizes)
        try:
            self.policy = policy_for(self.metadata)
            self.critic = build_critic(self.sizes["critic_input_size"], config.critic_hidden)
        except RuntimeError as error:  # PyTorch's allocator refusing: "can't allocate memory"
            if "allocate" not in str(error):
                raise
            raise ValueError(
                f"config hidden={config.hidden}, critic_hidden={config.critic_hidden}: the networks do not fit in "
                f"memory ({str(error).strip().splitlines()[0][:160]})"
            ) from None
        #: Whether the policy has trained on every rule set (``sample_rules`` here or in the stage it
        #: started from) or on ``rules`` only: the checkpoints' ``sample_rules``.
        self.trained_on_every_rule_set = config.sample_rules
        if config.initial_policy and not from_checkpoint:
            inherited = load_initial_policy(self.policy, config.initial_policy, self.rules.variant, self.metadata)
            self.trained_on_every_rule_set = config.sample_rules or inherited
            scale_logits(self.policy, config.initial_logit_scale)
        self.policy.to(self.device)
        self.critic.to(self.device)
        self.optimizer = torch.optim.Adam(
            [*self.policy.parameters(), *self.critic.parameters()], lr=config.learning_rate, eps=1e-5
        )
        self.pool: list[dict[str, np.ndarray]] = []
        #: The frozen policy self-play started from, of the anchor KL (``anchor_kl_coef``); made at
        #: the first update, restored on a resume.
        self.anchor: torch.nn.Module | None = None
        self.teacher: dict[str, torch.Tensor] | None = None  # the imitation data of the cloning loss
        #: The warm start's last fit (losses, agreement with the labels) in this process, for a caller to record.
        self.imitation_statistics: dict[str, float] = {}
        self.counters: dict[str, Any] = {
            "update": 0,
            "decisions": 0,
            "samples": 0,
            "hands": 0,
            "seconds": 0.0,
            "imitated": False,
        }
        #: The checkpoint the next periodic evaluation plays against.
        self.previous_checkpoint: Path | None = None
        self.checkpoints = RunCheckpoints(run_dir, config.keep_checkpoints)
        #: Where the warm start's labels go, chunk by chunk.
        self.labels_dir = labels_folder(run_dir)
        #: Per update of this process: decisions, trained samples and seconds (rollout + update).
        self.history: list[dict[str, float]] = []
        #: Evaluations of this process: update, decisions so far, and the result rows.
        self.evaluations: list[dict[str, Any]] = []
        #: Worker processes of the arena evaluations, which run here: with Ray, at most this machine's CPUs.
        ray_workers = min(config.workers, usable_cpus()) if config.workers else usable_cpus()
        self.eval_workers = config.workers if config.backend == "local" else ray_workers

    # ---------------------------------------------------------------- training

    def save(self) -> Path:
        """Write the training checkpoint of the current update and refresh ``policy.pt``."""
        return self.checkpoints.save(training_state(self), protected=self.previous_checkpoint)

    def weights(self) -> dict[str, Any]:
        return {
            "policy": to_numpy(self.policy.state_dict()),
            "critic": to_numpy(self.critic.state_dict()),
            "pool": self.pool,
        }

    def run(self) -> list[dict[str, Any]]:
        """Train until ``config.updates``, then run the final evaluation (returned, and printed).
        ``FolderBusy`` where another process holds the run's folder (the run resumed twice at once).
        A write the system refuses (a full disk) stops the run with a
        :class:`~pinochle_env.files.WriteFailed` naming the file; what was written before is whole
        (checkpoints and labels are written whole or not at all), so ``--resume`` continues from it."""
        with folder_held(self.run_dir), _events_thread_quiet():
            return self._run()

    def _run(self) -> list[dict[str, Any]]:
        config = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_text_atomically(self.run_dir / "config.toml", to_toml(config))  # a resume may read it
        start = self.counters["update"]
        writer = _Events(self.run_dir, purge_step=start + 1 if start else None)
        if start == 0:
            writer.add_text("config", "```toml\n" + to_toml(config) + "```", 0)
        warm_start = bool(config.imitate) and not self.counters.get("imitated")
        if start >= config.updates and not warm_start:
            try:
                return self._finished(writer)
            except WriteFailed:
                writer.abandon()
                raise
            finally:
                writer.close()
        self_play = start < config.updates
        backend = make_backend(config, self.log) if self_play else None
        plan = (
            f"updates {start + 1}..{config.updates}, {config.decisions_per_update} trained decisions per update"
            if self_play
            else "the warm start alone (updates = 0)"
        )
        self.say(
            f"train: run {self.run_dir}, {plan}, {config.workers} {config.backend} worker(s), learner on {self.device}"
        )
        progress = _Progress(self)
        checkpoint: Path | None = None
        try:
            if warm_start:
                self._warm_start(writer)
            if self_play:
                self._make_anchor()
            if self_play and self._evaluates_at(start):
                # Its checkpoint is written before its evaluation, so an interruption may have cut the
                # evaluation short: it is played (or, where it finished, read) again before going on.
                self._periodic_evaluation(writer, self.checkpoints.folder / f"update_{start:06d}.pt")
            for update in range(start, config.updates):
                began = time.perf_counter()
                assert backend is not None  # made whenever updates remain
                samples = Samples.concatenate(backend.collect(update, self.weights(), config.decisions_per_update))
                collected = time.perf_counter()
                statistics = ppo_update(
                    self.policy,
                    self.critic,
                    self.optimizer,
                    samples,
                    config,
                    minibatch_rng(config.seed, update),
                    self.device,
                    Guides(self._teacher_data(), self.anchor),
                    fit_policy=update >= config.critic_warmup,
                )
                finished = time.perf_counter()
                self._check_finite(statistics, f"update {update + 1}")
                self._count(update, samples, finished - began)
                self._log_update(writer, samples, statistics, collected - began, finished - collected)
                self._grow_pool(update)
                step = update + 1
                if (config.checkpoint_every and step % config.checkpoint_every == 0) or step == config.updates:
                    checkpoint = self.save()
                if self._evaluates_at(step):
                    checkpoint = checkpoint if checkpoint and checkpoint.stem.endswith(f"{step:06d}") else self.save()
                    self._periodic_evaluation(writer, checkpoint)
                progress.maybe_print(samples, statistics, last=step == config.updates)
        except KeyboardInterrupt:
            self._say_interrupted(f"at update {self.counters['update']}")
            raise
        except WriteFailed:
            writer.abandon()  # the run stops on the first write refused: the events' flush would only fail again
            raise
        finally:
            if backend is not None:
                backend.close()
            writer.flush()
        try:
            rows = self._final_evaluation(writer)
        except KeyboardInterrupt:
            self._say_interrupted("in the final evaluation")
            raise
        except WriteFailed:
            writer.abandon()
            raise
        finally:
            writer.close()
        return rows

    def _finished(self, writer: Any) -> list[dict[str, Any]]:
        """A resumed run that has all its updates: its final evaluation, if it lacks the one asked for."""
        config = self.config
        self.say(
            f"train: run {self.run_dir} has finished its {config.updates} updates: nothing to train "
            "(a larger --updates trains further)"
        )
        stored = self.run_dir / "evaluation.json"
        wanted = [(spec, config.final_eval_deals) for spec in config.eval_opponents] if config.final_eval_deals else []
        warm_start = self.checkpoints.warm_start()
        if config.final_eval_warm_start_deals and warm_start is not None:
            wanted.append((f"checkpoint:{warm_start}", config.final_eval_warm_start_deals))
        if stored.exists():
            rows: list[dict[str, Any]] = json.loads(stored.read_text(encoding="utf-8"))
            if [(row["opponent"], row["deal_pairs"]) for row in rows] == wanted:
                self.say(f"train: its final evaluation is in {self.run_dir / 'evaluation.txt'}")
                return rows
        if not wanted:
            return []
        try:
            return self._final_evaluation(writer)
        except KeyboardInterrupt:
            self._say_interrupted("in the final evaluation")
            raise

    def _say_interrupted(self, where: str) -> None:
        """The line an interruption (Ctrl-C, SIGTERM) leaves: how to continue."""
        self.say(f"train: interrupted {where}; {self.how_to_continue()}")

    def how_to_continue(self) -> str:
        """What continues the run after a stop: ``--resume`` from its last checkpoint (or its warm
        start's labels), or a new run where nothing was saved yet."""
        latest = self.checkpoints.latest()
        resume = f"python train.py --resume {self.run_dir}"
        if latest is not None:
            return f"{resume} continues from the last checkpoint, {latest.name}"
        if holds_chunks(self.labels_dir):
            return f"{resume} continues from the warm start's labels kept in {self.labels_dir}"
        return "no checkpoint was saved yet: start a new run"

    def _teacher_data(self) -> dict[str, torch.Tensor] | None:
        """The imitated agent's decisions for the behaviour-cloning loss (``imitation_coef > 0``): those
        of the warm start, or, in a resumed run, the same ones read from ``RUN/labels`` (or played
        again where chunks are missing: they depend only on the seed)."""
        if self.config.imitation_coef <= 0:
            return None
        if self.teacher is None:
            from .imitation import collect_imitation_data

            self.say(f"imitation: the warm start's labels for the behaviour-cloning loss ({self.labels_dir})")
            own = collect_imitation_data(self.config, self.log, self.labels_dir)
            self.teacher = _teacher(stack_chunks([own, *self._earlier_labels()]))
        return self.teacher

    def _earlier_labels(self) -> list[dict[str, np.ndarray]]:
        """The labels of ``imitation_label_folders``, fitted with the warm start's own (said in the log)."""
        folders = self.config.imitation_label_folders
        if not folders:
            return []
        earlier = load_earlier_labels(folders, labels_identity(self.config))
        decisions = sum(len(part["action"]) for part in earlier)
        self.say(f"imitation: and {decisions:,} decisions of labels from {len(folders)} earlier folder(s)")
        return earlier

    def _make_anchor(self) -> None:
        """The anchor of ``anchor_kl_coef``: a frozen copy of the policy as self-play starts (a
        resumed run past its first update has it from its checkpoint)."""
        if self.config.anchor_kl_coef > 0 and self.anchor is None:
            self.anchor = copy.deepcopy(self.policy).requires_grad_(False)

    def _warm_start(self, writer: Any) -> None:
        """Imitation of ``config.imitate`` before the first update, round by round (DAgger, see
        :mod:`.imitation`); saved as ``update_000000.pt``."""
        from .imitation import collect_imitation_data, fit_imitation

        config = self.config
        began = time.perf_counter()
        rounds = f", {config.imitation_rounds} rounds" if config.imitation_rounds > 1 else ""
        if config.imitation_auction_hands:
            rounds += f", and the auctions of {config.imitation_auction_hands} hands of the heuristic"
        self.say(
            f"imitation: {config.imitation_hands} hands of {config.imitate!r}, {config.imitation_epochs} epochs{rounds}"
        )
        earlier = self._earlier_labels()
        parts: list[dict[str, np.ndarray]] = []
        for round_index in range(config.imitation_rounds):
            if round_index:
                student = student_path(self.labels_dir, round_index)
                if not student.is_file():  # a resumed warm start plays with the student it saved
                    export_policy(training_state(self), student)
                self.say(f"imitation: round {round_index + 1}, the policy fitted so far plays ({student.name})")
            parts.append(collect_imitation_data(config, self.log, self.labels_dir, [round_index]))
            data = stack_chunks(parts + earlier)
            statistics = fit_imitation(self.policy, self.critic, self.optimizer, data, config, self.device, self.log)
            self._check_finite({name: {"all": value} for name, value in statistics.items()}, "the imitation warm start")
            for name, value in statistics.items():
                writer.add_scalar(f"imitation/{name}", value, round_index)
            self.imitation_statistics = statistics
        self.teacher = _teacher(data) if config.imitation_coef > 0 else None
        self.counters["imitated"] = True
        self.save()
        self.say(
            f"imitation: done in {format_duration(time.perf_counter() - began)}; saved {self.checkpoints.latest()}"
        )

    def _count(self, update: int, samples: Samples, seconds: float) -> None:
        self.counters["update"] = update + 1
        self.counters["decisions"] += samples.decisions
        self.counters["samples"] += len(samples)
        self.counters["hands"] += len(samples.hand_stats)
        self.counters["seconds"] += seconds
        self.history.append(
            {"update": update + 1, "decisions": samples.decisions, "samples": len(samples), "seconds": seconds}
        )

    def _check_finite(self, statistics: dict[str, dict[str, float]], where: str) -> None:
        """Stop the run (:class:`TrainingDiverged`) when a loss or a weight is not finite.

        Checked before anything of the update is saved, so the checkpoints and ``policy.pt`` keep the
        last good networks.
        """
        losses = [
            f"{name}={by_phase['all']}" for name, by_phase in statistics.items() if not math.isfinite(by_phase["all"])
        ]
        networks = [
            name
            for name, network in (("policy", self.policy), ("critic", self.critic))
            if not all(bool(torch.isfinite(p).all()) for p in network.parameters())
        ]
        if not losses and not networks:
            return
        what = ", ".join([*losses, *(f"{name} weights" for name in networks)])
        latest = self.checkpoints.latest()
        kept = (
            f"the last good checkpoint is {latest} ({self.run_dir / 'policy.pt'} holds its policy)"
            if latest
            else "no checkpoint had been written yet"
        )
        raise TrainingDiverged(
            f"train: stopped at {where}: not finite: {what}. Nothing of it was saved; {kept}. Resuming would "
            "diverge at the same point: start a new run with a smaller --learning-rate (or --max-grad-norm)."
        )

    def _grow_pool(self, update: int) -> None:
        config = self.config
        if config.pool_size and config.pool_every and (update + 1) % config.pool_every == 0:
            self.pool = [*self.pool, to_numpy(self.policy.state_dict())][-config.pool_size :]

    # ---------------------------------------------------------------- logging

    def _log_update(
        self, writer: Any, samples: Samples, statistics: dict[str, dict[str, float]], rollout_s: float, update_s: float
    ) -> None:
        step = self.counters["update"]
        for name, by_phase in statistics.items():
            for phase, value in by_phase.items():
                writer.add_scalar(f"losses/{name}/{phase}", value, step)
        hands = samples.hand_stats
        column = {name: hands[:, k] for k, name in enumerate(HAND_STATS)}
        if len(hands):
            declared = column["thrown_in"] == 0
            writer.add_scalar("hands/declarer_meld", column["declarer_meld"].mean(), step)
            if declared.any():
                writer.add_scalar("hands/declarer_trick_points", column["declarer_tricks"][declared].mean(), step)
            if not np.isnan(column["contract"]).all():  # the two-handed game has no auction
                writer.add_scalar("hands/contract", column["contract"].mean(), step)
                writer.add_scalar("hands/made_pct", 100 * column["made"].mean(), step)
                writer.add_scalar("hands/set_pct", 100 * column["set"].mean(), step)
                writer.add_scalar("hands/thrown_in_pct", 100 * column["thrown_in"].mean(), step)
                writer.add_scalar("hands/help_calls_per_hand", column["help_calls"].mean(), step)
                writer.add_scalar("hands/bids_per_hand", column["bids"].mean(), step)
                writer.add_scalar("hands/raised_pct", 100 * column["raised"].mean(), step)
                writer.add_scalar("hands/dealer_stuck_pct", 100 * column["dealer_stuck"].mean(), step)
            pool_hands = column["pool_hand"] == 1
            if pool_hands.any():
                writer.add_scalar("selfplay/margin_vs_pool", column["learner_margin"][pool_hands].mean(), step)
                writer.add_scalar("selfplay/pool_hands_pct", 100 * pool_hands.mean(), step)
        phases = np.bincount(samples.phase, minlength=len(DECISIONS)) / max(len(samples), 1)
        for k, phase in enumerate(DECISIONS):
            writer.add_scalar(f"samples/share/{phase}", phases[k], step)
        writer.add_scalar("throughput/decisions_per_s", samples.decisions / (rollout_s + update_s), step)
        writer.add_scalar("throughput/trained_decisions_per_s", len(samples) / (rollout_s + update_s), step)
        writer.add_scalar("throughput/rollout_s", rollout_s, step)
        writer.add_scalar("throughput/update_s", update_s, step)
        writer.add_scalar("throughput/total_decisions", self.counters["decisions"], step)

    def _evaluates_at(self, step: int) -> bool:
        """Whether a periodic evaluation follows update ``step`` (the last one has the final evaluation)."""
        every = self.config.eval_every
        return bool(step and every and step % every == 0 and step < self.config.updates)

    def _periodic_evaluation(self, writer: Any, checkpoint: Path) -> None:
        config = self.config
        opponents = list(config.eval_opponents)
        warm_start = self.checkpoints.warm_start()
        if warm_start is not None:
            opponents.append(f"checkpoint:{warm_start}")
        if self.previous_checkpoint and self.previous_checkpoint.is_file() and self.previous_checkpoint != warm_start:
            opponents.append(f"checkpoint:{self.previous_checkpoint}")
        step = self.counters["update"]
        began = time.perf_counter()
        rows = self._evaluate(
            checkpoint,
            opponents,
            self.rules,
            config.eval_deals,
            config.seed,
            self.run_dir / "eval" / f"update_{step:06d}",
            self.eval_workers,
            rules_preset=config.rules_preset,
        )
        for row in rows:
            name = opponent_tag(row["opponent"])
            writer.add_scalar(f"eval/margin/{name}", row["margin"]["estimate"], step)
            writer.add_scalar(f"eval/win_rate/{name}", row["win_rate"]["estimate"], step)
        seconds = time.perf_counter() - began  # timed for the progress line's ETA
        pairs = config.eval_deals * len(opponents)
        entry = {"update": step, "decisions": self.counters["decisions"], "rows": rows}
        self.evaluations.append({**entry, "seconds": seconds, "pairs": pairs})
        self.say(format_evaluation(rows, f"evaluation at update {step} ({config.eval_deals} deal pairs each):"))
        self.previous_checkpoint = checkpoint

    def _evaluate(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        """:func:`.evaluate.evaluate`, leaving PyTorch's random state as it found it.

        An evaluation with one worker plays in this process, and every checkpoint agent it loads
        draws its network's initial weights from PyTorch's global generator, which the checkpoints
        save: an evaluation cut off and resumed plays (and loads) fewer times, so the run's later
        checkpoints would save another state than an uninterrupted run's. (It draws from no global
        generator of numpy or Python's ``random``: its agents have their own.)"""
        cuda = [self.device.index or 0] if self.device.type == "cuda" else []
        with torch.random.fork_rng(devices=cuda):
            return evaluate(*args, **kwargs)

    def _final_evaluation(self, writer: Any) -> list[dict[str, Any]]:
        config = self.config
        hparams = {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in config.to_dict().items()}
        seconds = self.counters["seconds"]  # 0 without updates: a warm start alone has no self-play rate
        metrics: dict[str, float] = {"final/decisions_per_s": self.counters["decisions"] / seconds} if seconds else {}
        rows: list[dict[str, Any]] = []
        if config.final_eval_deals and config.eval_opponents:
            self.say(f"train: final evaluation, {config.final_eval_deals} deal pairs per opponent")
            rows = self._evaluate(
                self.run_dir / "policy.pt",
                list(config.eval_opponents),
                self.rules,
                config.final_eval_deals,
                config.seed + 1,  # deals the periodic evaluations did not use
                self.run_dir / "eval" / "final",
                self.eval_workers,
                self.log,
                rules_preset=config.rules_preset,
            )
        rows += self._warm_start_comparison()
        if rows:
            for row in rows:
                name = opponent_tag(row["opponent"])
                metrics[f"final/margin/{name}"] = row["margin"]["estimate"]
                writer.add_scalar(f"eval/margin/{name}", row["margin"]["estimate"], self.counters["update"])
                writer.add_scalar(f"eval/win_rate/{name}", row["win_rate"]["estimate"], self.counters["update"])
            self.evaluations.append(
                {"update": self.counters["update"], "decisions": self.counters["decisions"], "rows": rows}
            )
            table = format_evaluation(rows, f"final evaluation of {self.run_dir / 'policy.pt'} (duplicate deals):")
            write_text_atomically(self.run_dir / "evaluation.txt", table + "\n")
            write_text_atomically(self.run_dir / "evaluation.json", json.dumps(rows, indent=2) + "\n")
            if self.log is not None:
                print(table, file=self.log, flush=True)
        writer.add_hparams(hparams, {k: v for k, v in metrics.items() if math.isfinite(v)}, run_name=".")
        return rows

    def _warm_start_comparison(self) -> list[dict[str, Any]]:
        """The final policy against the run's warm start (``final_eval_warm_start_deals`` deal pairs
        on reserved deals): one result row, or none when not asked for."""
        config = self.config
        warm_start = self.checkpoints.warm_start()
        if not config.final_eval_warm_start_deals or warm_start is None:
            return []
        self.say(f"train: the final policy against its warm start, {config.final_eval_warm_start_deals} deal pairs")
        return self._evaluate(
            self.run_dir / "policy.pt",
            [f"checkpoint:{warm_start}"],
            self.rules,
            config.final_eval_warm_start_deals,
            RESERVED_SEED + config.seed,
            self.run_dir / "eval" / "final_vs_warm_start",
            self.eval_workers,
            self.log,
            rules_preset=config.rules_preset,
        )

    @property
    def has_auction(self) -> bool:
        """Whether the game trained has an auction (its hand statistics are about contracts)."""
        return "auction" in variant_kit(self.config.rule_set()).decisions_taken

    def say(self, message: str) -> None:
        """Print a line of the run's log (nothing without a log stream)."""
        if self.log is not None:
            print(message, file=self.log, flush=True)


class _Events:
    """The run's TensorBoard writer (``SummaryWriter``, its calls passed on), where a write the
    system refuses (a full disk) is a :class:`~pinochle_env.files.WriteFailed` naming the events
    file; after :meth:`abandon` (the run stops on a refused write) flushing and closing let go of
    what is left unwritten instead of failing again."""

    def __init__(self, run_dir: Path, purge_step: int | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        #: The events files' pattern (TensorBoard names the file it writes only in its private members).
        self.path = run_dir / "events.out.tfevents.*"
        with writing(self.path):
            self.writer = SummaryWriter(str(run_dir), purge_step=purge_step)
        self.abandoned = False

    def __getattr__(self, name: str) -> Any:
        if name in ("writer", "path", "abandoned"):  # not set yet: no writer to pass the call on to
            raise AttributeError(name)
        method = getattr(self.writer, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with writing(self.path):
                return method(*args, **kwargs)

        return call

    def abandon(self) -> None:
        self.abandoned = True

    def flush(self) -> None:
        if not self.abandoned:
            with writing(self.path):
                self.writer.flush()

    def close(self) -> None:
        """Flush (which reports a write the writer's thread could not do) and close."""
        if self.abandoned:
            with contextlib.suppress(OSError):
                self.writer.close()
            return
        with writing(self.path):
            self.writer.flush()
            self.writer.close()


@contextlib.contextmanager
def _events_thread_quiet() -> Iterator[None]:
    """Inside the block, the traceback that TensorBoard's writer thread prints of a write the system
    refused (a full disk) is left out: the thread keeps the error, and the run's next call of the
    writer raises it (:class:`_Events`, a one-line :class:`~pinochle_env.files.WriteFailed`)."""
    previous = threading.excepthook

    def hook(args: Any) -> None:
        if not (isinstance(args.exc_value, OSError) and type(args.thread).__module__.startswith("tensorboard.")):
            previous(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


def opponent_tag(spec: str) -> str:
    """The TensorBoard name of an evaluation's opponent: ``warm_start`` (the run's update 0),
    ``previous_checkpoint`` (another of the run's checkpoints) or the spec's slug."""
    if spec.startswith("checkpoint:"):
        return "warm_start" if Path(spec.removeprefix("checkpoint:")).name == WARM_START else "previous_checkpoint"
    return spec_slug(spec)


def _teacher(data: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """The imitation data a behaviour-cloning loss reads (observations, masks, actions, card values), as tensors."""
    return {name: torch.from_numpy(data[name]) for name in CLONED_KEYS}


class _Progress:
    """A progress line every ``log_every`` seconds: decisions, rate, ETA, a few learning signs.

    The rate and the ETA come from the last :attr:`RECENT` updates, not the run's average, so a
    slow start (or a machine that got busier) does not bend them; the ETA adds the evaluations
    still to come, timed from the last periodic one (``+ evaluations`` when none has run yet).
    """

    #: Updates the rate is measured over.
    RECENT = 10

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer
        self.last = time.perf_counter()

    def eta(self) -> tuple[float, bool]:
        """Seconds left, and whether they include every evaluation still to come."""
        trainer = self.trainer
        config, update = trainer.config, trainer.counters["update"]
        recent = trainer.history[-self.RECENT :]
        per_update = sum(h["seconds"] for h in recent) / len(recent) if recent else float("inf")
        seconds = per_update * (config.updates - update) if update < config.updates else 0.0
        periodic = [e for e in trainer.evaluations if "seconds" in e]
        every = config.eval_every
        coming = sum(1 for step in range(update + 1, config.updates) if step % every == 0) if every else 0
        final = config.final_eval_deals * len(config.eval_opponents) + config.final_eval_warm_start_deals
        if not coming and not final:
            return seconds, True
        if not periodic:
            return seconds, False
        last = periodic[-1]
        per_pair = last["seconds"] / max(last["pairs"], 1)  # one deal pair against one opponent
        return seconds + coming * last["seconds"] + final * per_pair, True

    def maybe_print(self, samples: Samples, statistics: dict[str, dict[str, float]], last: bool) -> None:
        now = time.perf_counter()
        trainer = self.trainer
        if now - self.last < trainer.config.log_every and not last:
            return
        self.last = now
        counters, config = trainer.counters, trainer.config
        recent = trainer.history[-self.RECENT :]
        rate = sum(h["decisions"] for h in recent) / max(sum(h["seconds"] for h in recent), 1e-9)
        eta, complete = self.eta()
        hands = samples.hand_stats
        means = hands.mean(axis=0) if len(hands) else [float("nan")] * len(HAND_STATS)
        column = dict(zip(HAND_STATS, means, strict=True))
        if not trainer.has_auction:  # the two-handed game: meld and tricks per player
            hand = f"meld {column['declarer_meld']:.0f}  tricks {column['declarer_tricks']:.0f}"
        else:
            hand = f"contract {column['contract']:.0f}  made {100 * column['made']:.0f}%"
        trainer.say(
            f"update {counters['update']}/{config.updates}  {counters['decisions']:,} decisions  "
            f"{rate:,.0f} dec/s  ETA {format_duration(eta)}{'' if complete else ' + evaluations'}  |  {hand}  "
            f"entropy {statistics['entropy']['all']:.3f}  kl {statistics['approx_kl']['all']:.4f}  "
            f"value loss {statistics['value_loss']['all']:.4f}"
        )
