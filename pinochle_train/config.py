"""The trainer's configuration: typed groups of fields by role, TOML presets in ``configs/``, overrides.

A run's 52 fields are declared in seven groups, each a dataclass that checks its own fields
(:data:`GROUPS`): where and how the run executes (:class:`RunConfig`), the PPO updates
(:class:`PPOConfig`), the networks (:class:`NetworkConfig`), how they start, from weights or by
imitation (:class:`WarmStartConfig`), the opponent pool (:class:`PoolConfig`), the evaluations
(:class:`EvaluationConfig`) and the rules played (:class:`RulesConfig`). A field with a fixed set of
values is a ``Literal``; its bounds, its help text (``python train.py --help``) and whether a resumed
run may change it sit in the field's declaration.

:class:`TrainConfig` is the seven groups in one dataclass (it inherits them all), so a run's config
is one flat table of field names wherever it is written: a preset (``configs/default.toml``, the rule
switches in a ``[rules]`` table), a run's ``config.toml`` and the ``config`` of every checkpoint,
those written before the groups existed included. Code that reads one role can be typed against its
group. The command line overrides fields (``--learning-rate 1e-4``) and switches (``--rule
head_rule=led_card``); :meth:`TrainConfig.check` refuses an unknown key or a bad value, naming it,
before anything runs.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tomli_w

from agents.arena.runtime import import_ray
from agents.heuristic.games import heuristic_rules
from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import PRESETS, Rules, random_rules, rules_from_command_line

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The training presets: ``configs/`` beside the packages in a source checkout, or the copy a
#: wheel installs as ``pinochle_train/configs`` (the build maps the top-level folder there).
_INSTALLED_CONFIGS = Path(__file__).resolve().parent / "configs"
CONFIG_DIR = _INSTALLED_CONFIGS if _INSTALLED_CONFIGS.is_dir() else Path(__file__).resolve().parent.parent / "configs"
#: Imitation hands one worker call plays (bounds the memory of one chunk's float arrays); a DAgger
#: round of the warm start is a run of whole chunks.
CHUNK_HANDS = 250

# The fields with a fixed set of values. A Literal is written out for the type checker; where the
# values are another layer's (the arena's backends, the environment's rule presets, the networks'
# heads), tests/train/test_trainer.py checks that the two agree.
Device = Literal["auto", "cpu", "cuda"]
#: Where rollout workers run: :data:`agents.arena.runtime.BACKENDS`.
Backend = Literal["local", "ray"]
CriticInput = Literal["state", "observation"]
#: Derived features of the policy's input (agents/neural/features.py): none, or the partnership game's.
Features = Literal["none", "partnership"]
#: The policy's output heads (:data:`agents.neural.network.POLICY_HEADS`): flat, or cards (a
#: card-centred score added to the card actions' logits; needs the partnership features).
PolicyHead = Literal["flat", "cards"]
#: Who labels the warm start's auction (``auction_labels``).
AuctionLabels = Literal["teacher", "simulated", "simulated_rest"]
#: A named rule set (:data:`pinochle_env.rules.switches.PRESETS`), or empty for the default rules.
RulesPreset = Literal["", "default", "pagat", "casual"]


def _meta(
    help: str,
    *,
    at_least: float | None = None,
    above: float | None = None,
    within: tuple[float, float] | None = None,
    resumable: bool = False,
) -> dict[str, Any]:
    """A field's metadata: its help text, its bounds (checked by :func:`check_fields`) and whether a
    resumed run may change it (it does not change what the run computes: :data:`RESUMABLE_CHANGES`)."""
    return {"help": help, "at_least": at_least, "above": above, "within": within, "resumable": resumable}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclasses.dataclass
class RunConfig:
    """Where and how the run executes: its folder, the seed, the learner's device, the rollout
    workers, checkpoints and progress lines."""

    run_name: str = dataclasses.field(
        default="", metadata=_meta("run directory name under out_dir (empty: <preset>-<date>-<time>)")
    )
    out_dir: str = dataclasses.field(default="runs", metadata=_meta("where run directories go"))
    seed: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "seed of everything: network initialisation, deals, sampling, minibatches", within=(0, 2**64 - 1)
        ),
    )
    device: Device = dataclasses.field(
        default="auto", metadata=_meta("where the learner runs: auto (cuda when available), cpu, cuda", resumable=True)
    )
    workers: int = dataclasses.field(
        default=2,
        metadata=_meta(
            "rollout worker processes (0: in this process, deterministic single-process mode); with backend=ray, "
            "Ray actors (0: one per CPU of the cluster)",
            at_least=0,
            resumable=True,
        ),
    )
    backend: Backend = dataclasses.field(
        default="local",
        metadata=_meta(
            "where rollout workers run: local (processes here) or ray (actors on a Ray cluster)", resumable=True
        ),
    )
    ray_address: str = dataclasses.field(
        default="",
        metadata=_meta(
            "Ray cluster to join with backend=ray: auto or HOST:PORT (empty: start a local one)", resumable=True
        ),
    )
    games_per_worker: int = dataclasses.field(
        default=64, metadata=_meta("games each worker steps in lockstep (batched inference)", at_least=1)
    )
    checkpoint_every: int = dataclasses.field(
        default=10, metadata=_meta("updates between checkpoints (one is always written at the end)", at_least=0)
    )
    keep_checkpoints: int = dataclasses.field(
        default=3,
        metadata=_meta(
            "training checkpoints kept (the latest ones, and the warm start's; 0: keep all)",
            at_least=0,
            resumable=True,
        ),
    )
    log_every: float = dataclasses.field(
        default=10.0, metadata=_meta("seconds between progress lines", above=0, resumable=True)
    )

    def check(self) -> None:
        """Refuse a bad run setting, naming it (Ray must be importable where it is asked for)."""
        check_fields(self, RunConfig)
        _require(
            bool(self.run_name.strip("./")) or self.run_name == "",
            f"config run_name={self.run_name!r} must name a folder",
        )
        if self.backend == "ray":
            try:
                import_ray()
            except ImportError as error:
                raise ValueError(f"config backend=ray: {error}") from None
        else:
            _require(not self.ray_address, f"config ray_address={self.ray_address!r} needs backend=ray")


@dataclasses.dataclass
class PPOConfig:
    """The self-play PPO updates: how many, of how many decisions, and their hyperparameters."""

    updates: int = dataclasses.field(
        default=100,
        metadata=_meta(
            "PPO updates to run (0: the imitation warm start alone, then the final evaluation)",
            at_least=0,
            resumable=True,
        ),
    )
    decisions_per_update: int = dataclasses.field(
        default=16384, metadata=_meta("trained decisions collected per update, over all workers", at_least=1)
    )
    learning_rate: float = dataclasses.field(default=3e-4, metadata=_meta("Adam learning rate", above=0))
    epochs: int = dataclasses.field(default=2, metadata=_meta("passes over each update's data", at_least=1))
    minibatch_size: int = dataclasses.field(default=1024, metadata=_meta("decisions per gradient step", at_least=1))
    clip_range: float = dataclasses.field(default=0.2, metadata=_meta("PPO ratio clipping", above=0))
    gae_lambda: float = dataclasses.field(
        default=0.95, metadata=_meta("GAE lambda over each seat's decisions in a hand (no discounting)", within=(0, 1))
    )
    entropy_coef: float = dataclasses.field(default=0.01, metadata=_meta("weight of the entropy bonus", at_least=0))
    value_coef: float = dataclasses.field(default=0.5, metadata=_meta("weight of the value loss", at_least=0))
    max_grad_norm: float = dataclasses.field(default=0.5, metadata=_meta("gradient clipping norm", above=0))
    reward_scale: float = dataclasses.field(
        default=1000.0, metadata=_meta("reward = own team's hand score minus the other's, divided by this", above=0)
    )
    critic_warmup: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "of the updates, the first ones that fit the value network alone, the policy frozen: the critic learns "
            "the returns of the policy self-play starts from (a warm start fitted it to the imitated agent's) before "
            "the policy follows its advantages",
            at_least=0,
        ),
    )
    anchor_kl_coef: float = dataclasses.field(
        default=0.0,
        metadata=_meta(
            "weight of the KL divergence of the policy from the policy self-play started from, on each update's own "
            "decisions (0: none; kickstarting, piKL): the policy leaves it only where the advantages pay for it",
            at_least=0,
        ),
    )

    def check(self) -> None:
        """Refuse a bad PPO setting, naming it."""
        check_fields(self, PPOConfig)
        _require(
            self.learning_rate <= 1,
            f"config learning_rate={self.learning_rate!r} must be at most 1 (Adam diverges far below that)",
        )
        _require(
            self.critic_warmup == 0 or self.critic_warmup < self.updates,
            f"config critic_warmup={self.critic_warmup!r} must be below updates={self.updates!r} (the policy would "
            "never learn)",
        )


@dataclasses.dataclass
class NetworkConfig:
    """The policy and value networks: their layers, what they see, the policy's output."""

    hidden: list[int] = dataclasses.field(
        default_factory=lambda: [256, 256], metadata=_meta("widths of the policy network's hidden layers")
    )
    critic_hidden: list[int] = dataclasses.field(
        default_factory=lambda: [256, 256], metadata=_meta("widths of the value network's hidden layers")
    )
    critic_input: CriticInput = dataclasses.field(
        default="state", metadata=_meta("what the value network sees: state (perfect information) or observation")
    )
    features: Features = dataclasses.field(
        default="none",
        metadata=_meta(
            "derived features the policy computes from its observation: none, or partnership (the partnership game)"
        ),
    )
    policy_head: PolicyHead = dataclasses.field(
        default="flat",
        metadata=_meta(
            "the policy's output: flat (one logit per action), or cards (plus a score per card from one small "
            "network shared by the 24 card types, over what each card means now; needs features = partnership)",
        ),
    )

    def check(self) -> None:
        """Refuse a bad network setting, naming it."""
        check_fields(self, NetworkConfig)
        for name in ("hidden", "critic_hidden"):
            widths = getattr(self, name)
            _require(
                bool(widths) and all(type(w) is int and w >= 1 for w in widths),
                f"config {name}={widths!r} must be a non-empty list of positive integers",
            )
        _require(
            self.policy_head != "cards" or self.features == "partnership",
            "config policy_head=cards needs features = partnership (its card scores read the derived features)",
        )


@dataclasses.dataclass
class WarmStartConfig:
    """How the networks start: from another run's policy weights, or fitted to an agent's decisions
    before self-play (imitation, in DAgger rounds); and the cloning loss that keeps the policy near
    them."""

    initial_policy: str = dataclasses.field(
        default="",
        metadata=_meta(
            "a policy checkpoint whose weights start the run's policy (a file, a run directory, or bundled; empty: "
            "random initialisation); its network must have this run's shape (features, policy_head, hidden)",
        ),
    )
    initial_logit_scale: float = dataclasses.field(
        default=1.0,
        metadata=_meta(
            "multiply the initial policy's logits by this (1: as saved): its greedy choices stay, and above 1 its "
            "sampled play comes nearer them, so that self-play learns from the hands the policy plays (a policy "
            "fitted to soft targets samples weaker play than it plays greedily)",
            above=0,
        ),
    )
    imitate: str = dataclasses.field(
        default="", metadata=_meta("agent spec whose decisions warm-start the networks before self-play (empty: none)")
    )
    imitation_hands: int = dataclasses.field(
        default=0, metadata=_meta("hands the imitated agent plays for the warm start", at_least=0)
    )
    imitation_epochs: int = dataclasses.field(
        default=3, metadata=_meta("passes over the imitation data (in each round)", at_least=0)
    )
    imitation_rounds: int = dataclasses.field(
        default=1,
        metadata=_meta(
            "rounds of the warm start (DAgger): the imitated agent plays the first round's hands; in each later "
            "one the policy fitted so far plays and the imitated agent labels its decisions; a fit after each round",
        ),
    )
    imitation_label_folders: list[str] = dataclasses.field(
        default_factory=list,
        metadata=_meta(
            "labels folders of earlier runs (RUN/labels) fitted together with this run's own warm-start labels, "
            "made under the same rules, encoder, critic input, reward scale and auction labels (expert iteration "
            "fits the last few iterations' labels); on the command line comma-separated",
        ),
    )
    imitation_auction_hands: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "more warm-start hands, played by the heuristic, of which the imitated agent labels the auction only: "
            "bidding labels are cheap where its bidding is (the heuristic's, say), and a network's bidding errors "
            "compound",
            at_least=0,
        ),
    )
    imitation_temperature: float = dataclasses.field(
        default=0.0,
        metadata=_meta(
            "soft targets (points, 0: none): where the imitated agent values the legal cards (pimc's card play), fit "
            "the policy to softmax(value / imitation_temperature) over them instead of its choice alone",
            at_least=0,
        ),
    )
    auction_labels: AuctionLabels = dataclasses.field(
        default="teacher",
        metadata=_meta(
            "who labels the warm start's auction decisions: teacher (the imitated agent's calls), simulated (each "
            "legal call valued by playing the true deal out on the search kernel, a pass as the high bidder declaring; "
            "the auction's logits are fitted to those values by regression: the learned bidding, partnership game) or "
            "simulated_rest (the same, a pass valued where the rest of the auction, called by the heuristic, ends)",
        ),
    )
    value_temperature: float = dataclasses.field(
        default=20.0,
        metadata=_meta(
            "points of simulated value per logit (auction_labels = simulated, simulated_rest): the softmax over calls",
            above=0,
        ),
    )
    imitation_coef: float = dataclasses.field(
        default=0.0,
        metadata=_meta(
            "weight of a behaviour-cloning loss toward the imitated agent during the PPO updates (0: none): "
            "self-play improves on the warm start without forgetting it",
            at_least=0,
        ),
    )

    def check(self) -> None:
        """Refuse a bad warm-start setting, naming it (what needs the rules is :meth:`TrainConfig.check`'s)."""
        check_fields(self, WarmStartConfig)
        _require(
            self.initial_logit_scale == 1 or bool(self.initial_policy),
            f"config initial_logit_scale={self.initial_logit_scale!r} scales an initial policy's logits: it needs "
            "initial_policy",
        )
        _require(
            not self.imitate or (self.imitation_hands >= 1 and self.imitation_epochs >= 1),
            f"config imitate={self.imitate!r} needs imitation_hands >= 1 and imitation_epochs >= 1",
        )
        chunks = imitation_chunks(self)
        _require(
            1 <= self.imitation_rounds <= max(chunks, 1),
            f"config imitation_rounds={self.imitation_rounds!r} must be from 1 to the number of chunks of "
            f"{CHUNK_HANDS} imitation hands ({chunks})",
        )
        _require(
            not self.imitation_label_folders or bool(self.imitate),
            f"config imitation_label_folders={self.imitation_label_folders!r} needs a warm start to fit them in "
            "(imitate = SPEC)",
        )
        _require(
            all(isinstance(folder, str) and folder for folder in self.imitation_label_folders),
            f"config imitation_label_folders={self.imitation_label_folders!r} must be a list of folders",
        )
        _require(
            self.imitation_coef == 0 or bool(self.imitate),
            f"config imitation_coef={self.imitation_coef!r} needs an agent to imitate (imitate = SPEC)",
        )


@dataclasses.dataclass
class PoolConfig:
    """The opponent pool: past policies that play one team in a share of the self-play hands."""

    pool_size: int = dataclasses.field(default=4, metadata=_meta("past policies kept as opponents", at_least=0))
    pool_every: int = dataclasses.field(
        default=10, metadata=_meta("updates between snapshots into the opponent pool (0: no pool)", at_least=0)
    )
    pool_prob: float = dataclasses.field(
        default=0.2, metadata=_meta("share of hands in which one team is a past policy from the pool", within=(0, 1))
    )

    def check(self) -> None:
        """Refuse a bad pool setting, naming it."""
        check_fields(self, PoolConfig)


@dataclasses.dataclass
class EvaluationConfig:
    """Arena evaluations of the policy: periodic ones during training, and a final one."""

    eval_every: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "updates between arena evaluations during training (0: only the final one)", at_least=0, resumable=True
        ),
    )
    eval_deals: int = dataclasses.field(
        default=50, metadata=_meta("deal pairs per opponent in a periodic evaluation", at_least=0, resumable=True)
    )
    eval_opponents: list[str] = dataclasses.field(
        default_factory=lambda: ["random", "heuristic"],
        metadata=_meta(
            "agent specs the evaluations play against; on the command line comma-separated, a comma "
            "starting a new spec only before a known agent name (pimc:samples=2,budget=0.1,heuristic is two specs)",
            resumable=True,
        ),
    )
    final_eval_deals: int = dataclasses.field(
        default=200,
        metadata=_meta("deal pairs per opponent in the final evaluation (0: none)", at_least=0, resumable=True),
    )
    final_eval_warm_start_deals: int = dataclasses.field(
        default=0,
        metadata=_meta(
            "deal pairs of the final policy against the run's own warm start (checkpoints/update_000000.pt) head to "
            "head, on reserved deals (0: none): what self-play added, with its interval",
            at_least=0,
            resumable=True,
        ),
    )

    def check(self) -> None:
        """Refuse a bad evaluation setting, naming it (whether each opponent plays the rules is
        :func:`check_agent_specs`'), and two opponents whose results would share a directory."""
        check_fields(self, EvaluationConfig)
        _require(
            self.eval_every == 0 or self.eval_deals >= 1,
            f"config eval_deals={self.eval_deals!r} must be >= 1 with eval_every={self.eval_every!r} (a periodic "
            "evaluation plays deal pairs; eval_every = 0: only the final one)",
        )
        _require(
            all(isinstance(spec, str) and spec for spec in self.eval_opponents),
            f"config eval_opponents={self.eval_opponents!r} must be a list of agent specs",
        )
        from .evaluate import spec_slug

        slugs = [spec_slug(spec) for spec in self.eval_opponents]
        repeated = sorted(
            {spec for spec, slug in zip(self.eval_opponents, slugs, strict=True) if slugs.count(slug) > 1}
        )
        _require(not repeated, f"config eval_opponents: repeated (or same directory name): {', '.join(repeated)}")


@dataclasses.dataclass
class RulesConfig:
    """The rules played: a named rule set then switches, or rule sets drawn per rollout."""

    rules_preset: RulesPreset = dataclasses.field(
        default="",
        metadata=_meta(
            f"named rule set the rules start from ({', '.join(PRESETS)}; empty: the default rules); the [rules] "
            "table and --rule change switches over it",
        ),
    )
    sample_rules: bool = dataclasses.field(
        default=False,
        metadata=_meta(
            "draw each rollout's rule set at random over the rule switches (per worker and update; the "
            "integer switches stay the config's), so that one policy learns every rule set",
        ),
    )
    sampled_rules_share: float = dataclasses.field(
        default=1.0,
        metadata=_meta(
            "with sample_rules: the share of rollouts and warm-start chunks under a drawn rule set; the others "
            "play the config's own rules, so that the policy stays as strong there",
            within=(0, 1),
        ),
    )
    rules: dict[str, bool | int | str] = dataclasses.field(
        default_factory=dict, metadata=_meta("rule switches (a [rules] table; --rule NAME=VALUE on the command line)")
    )

    def check(self) -> None:
        """Refuse a bad rule setting, naming it (the switches are checked by building the rule set)."""
        check_fields(self, RulesConfig)
        try:
            self.rule_set()
        except ValueError as error:
            raise ValueError(f"config rules: {error}") from None

    def rule_set(self) -> Rules:
        """The rules played: the named rule preset (``rules_preset``), then the switches of ``rules``."""
        base = rules_from_command_line(self.rules_preset or None)
        return base.replace(**self.rules) if self.rules else base

    def drawn_rules(self, rng: np.random.Generator) -> Rules:
        """The rules of one rollout or warm-start chunk: the config's, or with ``sample_rules`` a rule
        set drawn from ``rng`` over the switches (in a share ``sampled_rules_share`` of the draws;
        the integer switches stay the config's)."""
        rules = self.rule_set()
        if not self.sample_rules or (self.sampled_rules_share < 1 and rng.random() >= self.sampled_rules_share):
            return rules
        return random_rules(rng, rules)


@dataclasses.dataclass
class TrainConfig(RulesConfig, EvaluationConfig, PoolConfig, WarmStartConfig, NetworkConfig, PPOConfig, RunConfig):
    """Everything a training run depends on: every group's fields, in the order of :data:`GROUPS`
    (a dataclass takes its bases' fields from the last base to the first). Saved with the run and
    inside every checkpoint as one flat table (:meth:`to_dict`)."""

    def check(self, from_checkpoint: bool = False) -> None:
        """Every group's checks, then those across groups: the rules played must have what the
        network's features and the warm start's labels need, and every agent spec must play them
        (with ``from_checkpoint``, a resume's, the initial policy's file is not looked for: the checkpoint
        replaces its weights)."""
        for group in GROUPS.values():
            group.check(self)
        rules = self.rule_set()
        _require(
            self.imitation_auction_hands == 0
            or (bool(self.imitate) and "auction" in variant_kit(rules).decisions_taken),
            f"config imitation_auction_hands={self.imitation_auction_hands!r} needs an agent to imitate "
            f"(imitate = SPEC) in a game with an auction (variant={rules.variant!r})",
        )
        _require(
            self.auction_labels == "teacher" or (bool(self.imitate) and heuristic_rules(rules).COMPILED_BIDDING),
            f"config auction_labels={self.auction_labels!r} needs an agent to imitate (imitate = SPEC) in the "
            f"partnership game (variant={rules.variant!r}): the simulation plays partnership hands",
        )
        _require(
            self.features == "none" or rules.variant == self.features,  # features are named by their game
            f"config features={self.features} needs the {self.features} game, not variant={rules.variant!r}",
        )
        _require(
            self.final_eval_warm_start_deals == 0 or (bool(self.imitate) and self.updates > 0),
            f"config final_eval_warm_start_deals={self.final_eval_warm_start_deals!r} needs a warm start to compare "
            "with (imitate = SPEC) and self-play after it (updates > 0)",
        )
        _require(
            self.updates > 0 or bool(self.imitate) or from_checkpoint,
            "config updates=0 needs a warm start (imitate = SPEC): without one the run trains nothing and has no "
            "policy to evaluate or save",
        )
        check_agent_specs(self, rules, initial_policy=not from_checkpoint)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: The groups by their title (the sections of ``--help`` and of a run's ``config.toml``), in field order.
GROUPS: dict[str, type[Any]] = {
    "run": RunConfig,
    "PPO": PPOConfig,
    "network": NetworkConfig,
    "warm start": WarmStartConfig,
    "opponent pool": PoolConfig,
    "evaluation": EvaluationConfig,
    "rules": RulesConfig,
}
FIELDS = {field.name: field for field in dataclasses.fields(TrainConfig)}
#: Fields that may differ when a run is resumed (they do not change what the run computes).
RESUMABLE_CHANGES = tuple(name for name, field in FIELDS.items() if field.metadata["resumable"])


@dataclasses.dataclass(frozen=True)
class FieldType:
    """What a field's annotation allows: its ``kind`` (bool, int, float, str, list or dict), a
    list's ``element`` type, and a ``Literal``'s ``choices`` (empty: any value of the kind)."""

    kind: type
    element: type | None = None
    choices: tuple[str, ...] = ()

    @classmethod
    def of(cls, hint: Any) -> FieldType:
        origin, arguments = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            return cls(str, choices=arguments)
        if origin is list:
            return cls(list, element=arguments[0])
        return cls(origin or hint)


TYPES = {name: FieldType.of(hint) for name, hint in typing.get_type_hints(TrainConfig).items()}
#: How messages name the type a field takes.
KIND_WORDS = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    list: "a list",
    dict: "a table of rule switches ([rules] in a TOML file)",
}


def allowed(choices: tuple[str, ...]) -> str:
    """The values of a ``Literal`` field as messages list them (an empty string is "or empty")."""
    return ", ".join(choice for choice in choices if choice) + (" (or empty)" if "" in choices else "")


def check_fields(config: object, group: type[Any]) -> None:
    """Check the fields ``group`` declares, as ``config`` holds them, against their declarations:
    the type, a ``Literal``'s choices, a finite number (inf and nan pass any bound and turn training
    into NaN), the bounds; ``ValueError`` names the field and what it allows."""
    for field in dataclasses.fields(group):
        name, value, kind = field.name, getattr(config, field.name), TYPES[field.name]
        _require(type(value) is kind.kind, f"config {name}={value!r} must be {KIND_WORDS[kind.kind]}")
        _require(
            not kind.choices or value in kind.choices, f"config {name}={value!r}; allowed: {allowed(kind.choices)}"
        )
        if kind.kind is float:
            _require(math.isfinite(value), f"config {name}={value!r} must be a finite number")
        at_least, above, within = (field.metadata[key] for key in ("at_least", "above", "within"))
        if at_least is not None:
            _require(value >= at_least, f"config {name}={value!r} must be >= {at_least}")
        if above is not None:
            _require(value > above, f"config {name}={value!r} must be > {above}")
        if within is not None:
            _require(within[0] <= value <= within[1], f"config {name}={value!r} must be in [{within[0]}, {within[1]}]")


def resolve_preset(name: str) -> Path:
    """The TOML file of ``name``: a path (with or without ``.toml``) or a preset in ``configs/``.
    ``ValueError`` for none, saying so of a folder (``--config /tmp``), which "not found" would not."""
    path = Path(name)
    for candidate in (path, path.with_name(path.name + ".toml"), CONFIG_DIR / name, CONFIG_DIR / f"{name}.toml"):
        if candidate.is_file():
            return candidate
    presets = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
    if name.strip() and path.is_dir():
        raise ValueError(
            f"config {name!r} is a folder, not a TOML file: give a file, or a preset in {CONFIG_DIR}: {presets}"
        )
    raise ValueError(f"config {name!r} not found (as a file, or a preset in {CONFIG_DIR}: {presets})")


def load_preset(name: str) -> dict[str, Any]:
    """A preset's fields, ``rules`` always a table of switches (``ValueError`` naming a bad file)."""
    path = resolve_preset(name)
    try:
        with open(path, "rb") as stream:
            values = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"config {path}: {error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"config {path}: not a TOML file (not UTF-8 text)") from None
    if not isinstance(values.get("rules", {}), dict):
        raise ValueError(
            f"config {path}: rules = {values['rules']!r} must be a table of rule switches: a [rules] section "
            'with NAME = VALUE lines (or rules = { head_rule = "led_card" })'
        )
    return values


def build_config(values: Mapping[str, Any], from_checkpoint: bool = False) -> TrainConfig:
    """A checked config from a flat mapping of fields, as a preset, a run's ``config.toml`` or a
    checkpoint holds them (unknown keys and bad values raise ``ValueError``). An integer is taken
    for a number, a tuple for a list. ``from_checkpoint``: the config of a run resumed from a
    training checkpoint, whose weights replace the initial policy's, so that its ``initial_policy``
    file need not be there any more."""
    unknown = sorted(set(values) - set(FIELDS))
    if "iteration" in unknown:
        raise ValueError(
            "this config is an expert-iteration recipe (an [iteration] table): run it with pinochle-iterate"
        )
    if unknown:
        raise ValueError(f"unknown config key {', '.join(unknown)}; known keys: {', '.join(FIELDS)}")
    converted = {name: _coerce(TYPES[name].kind, value) for name, value in values.items()}
    config = TrainConfig(**converted)
    config.check(from_checkpoint)
    return config


def _coerce(kind: type, value: Any) -> Any:
    if kind is float and type(value) is int:
        return float(value)
    if kind is list and isinstance(value, tuple):
        return list(value)
    return value


def parse_value(name: str, text: str) -> Any:
    """A field's value from command-line text: numbers, true/false, comma-separated lists."""
    kind = TYPES[name]
    try:
        if kind.kind is bool:
            return {"true": True, "false": False}[text.lower()]
        if kind.kind is int:
            return int(text)
        if kind.kind is float:
            return float(text)
        if kind.kind is list:
            if kind.element is str and name != "imitation_label_folders":  # agent specs: commas of their own
                from agents.registry import split_specs

                return split_specs(text)
            assert kind.element is not None
            return [kind.element(item.strip()) for item in text.split(",") if item.strip()]
    except (KeyError, ValueError):
        raise ValueError(f"--{name.replace('_', '-')} {text!r} is not {KIND_WORDS[kind.kind]}") from None
    return text


def policy_shape(config: NetworkConfig) -> dict[str, Any]:
    """The config's share of what shapes the policy network, as a checkpoint's metadata holds it
    (:func:`agents.neural.network.policy_for` reads it): hidden layers, derived features, head."""
    return {
        "hidden": list(config.hidden),
        "features": None if config.features == "none" else config.features,
        "policy_head": config.policy_head,
    }


def chunk_hands(hands: int) -> list[int]:
    """``hands`` split into chunks of ``CHUNK_HANDS``: the hands of each chunk, the last one maybe short."""
    return [min(CHUNK_HANDS, hands - start) for start in range(0, hands, CHUNK_HANDS)]


def imitation_chunks(config: WarmStartConfig) -> int:
    """How many chunks of ``CHUNK_HANDS`` hands the warm start plays (the last one may be short),
    before its auction-only chunks (:func:`auction_chunks`)."""
    return len(chunk_hands(config.imitation_hands))


def auction_chunks(config: WarmStartConfig) -> int:
    """How many chunks of ``CHUNK_HANDS`` auction-only hands (``imitation_auction_hands``) follow."""
    return len(chunk_hands(config.imitation_auction_hands))


def check_agent_specs(config: TrainConfig, rules: Rules, initial_policy: bool = True) -> None:
    """Load every agent spec of the config and check that it plays ``rules``, so that a bad spec
    stops the run before its first update rather than at an evaluation; and find the
    ``initial_policy`` file, unless told not to (a resume from a checkpoint, which replaces its
    weights)."""
    from agents.base import check_plays
    from agents.neural.agent import resolve_checkpoint
    from agents.registry import load_agent

    if config.initial_policy and initial_policy:
        try:
            resolve_checkpoint(config.initial_policy, rules.variant)
        except ValueError as error:
            raise ValueError(
                f"config initial_policy={config.initial_policy!r}: {error} (a pipeline's later stage starts "
                "from an earlier stage's run: train that one first, as the preset's comment says)"
            ) from None
    specs = [("imitate", config.imitate)] if config.imitate else []
    specs += [("eval_opponents", spec) for spec in config.eval_opponents]
    for name, spec in specs:
        try:
            check_plays(load_agent(spec, 0), rules)
        except (ValueError, ImportError, OSError) as error:
            raise ValueError(f"config {name}: bad agent spec {spec!r}: {error}") from None


def to_toml(config: TrainConfig) -> str:
    """The config as a TOML preset (what ``runs/<run>/config.toml`` holds; loadable with ``--config``):
    one flat table of fields, a comment heading each group, the rules played as a comment before
    the ``[rules]`` table of switches."""
    values = config.to_dict()
    sections = []
    for title, group in GROUPS.items():
        fields = {field.name: values[field.name] for field in dataclasses.fields(group) if field.name != "rules"}
        sections.append(f"# {title}\n{tomli_w.dumps(fields)}")
    played = ", ".join(tomli_w.dumps({name: value}).strip() for name, value in config.rule_set().to_dict().items())
    sections.append(f"# the rules played: {played}\n{tomli_w.dumps({'rules': values['rules']})}")
    return "\n".join(sections)
