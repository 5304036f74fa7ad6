"""The trainer's configuration: one dataclass, TOML presets in ``configs/``, command-line overrides.

Every field has a default, a type and a help text (shown by ``python train.py --help``). A preset
is a TOML file of fields (``configs/default.toml``) with the rule switches in a ``[rules]`` table;
the command line overrides fields (``--learning-rate 1e-4``) and switches (``--rule
head_rule=led_card``). :func:`validate` refuses an unknown key or a bad value, naming it, before
anything runs.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.runtime import BACKENDS, import_ray
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
DEVICES = ("auto", "cpu", "cuda")
CRITIC_INPUTS = ("state", "observation")
#: Imitation hands one worker call plays (bounds the memory of one chunk's float arrays); a DAgger
#: round of the warm start is a run of whole chunks.
CHUNK_HANDS = 250
#: Derived features of the policy's input (agents/neural/features.py): none, or the partnership game's.
FEATURES = ("none", "partnership")
#: The policy's output heads (agents/neural/network.py): flat, or cards (a card-centred score added
#: to the card actions' logits; needs the partnership features).
POLICY_HEADS = ("flat", "cards")
#: Who labels the warm start's auction (``auction_labels``).
AUCTION_LABELS = ("teacher", "simulated", "simulated_rest")


def _field(default: Any, help: str) -> Any:
    return dataclasses.field(default=default, metadata={"help": help})


@dataclasses.dataclass
class TrainConfig:
    """Everything a training run depends on; saved with the run and inside every checkpoint."""

    run_name: str = _field("", "run directory name under out_dir (empty: <preset>-<date>-<time>)")
    out_dir: str = _field("runs", "where run directories go")
    seed: int = _field(0, "seed of everything: network initialisation, deals, sampling, minibatches")
    device: str = _field("auto", "where the learner runs: auto (cuda when available), cpu, cuda")
    workers: int = _field(
        2,
        "rollout worker processes (0: in this process, deterministic single-process mode); with backend=ray, "
        "Ray actors (0: one per CPU of the cluster)",
    )
    backend: str = _field("local", "where rollout workers run: local (processes here) or ray (actors on a Ray cluster)")
    ray_address: str = _field("", "Ray cluster to join with backend=ray: auto or HOST:PORT (empty: start a local one)")
    games_per_worker: int = _field(64, "games each worker steps in lockstep (batched inference)")
    updates: int = _field(100, "PPO updates to run (0: the imitation warm start alone, then the final evaluation)")
    decisions_per_update: int = _field(16384, "trained decisions collected per update, over all workers")
    hidden: list = dataclasses.field(
        default_factory=lambda: [256, 256], metadata={"help": "widths of the policy network's hidden layers"}
    )
    critic_hidden: list = dataclasses.field(
        default_factory=lambda: [256, 256], metadata={"help": "widths of the value network's hidden layers"}
    )
    critic_input: str = _field("state", "what the value network sees: state (perfect information) or observation")
    sample_rules: bool = _field(
        False,
        "draw each rollout's rule set at random over the rule switches (per worker and update; the "
        "integer switches stay the config's), so that one policy learns every rule set",
    )
    sampled_rules_share: float = _field(
        1.0,
        "with sample_rules: the share of rollouts and warm-start chunks under a drawn rule set; the others "
        "play the config's own rules, so that the policy stays as strong there",
    )
    features: str = _field(
        "none", "derived features the policy computes from its observation: none, or partnership (the partnership game)"
    )
    policy_head: str = _field(
        "flat",
        "the policy's output: flat (one logit per action), or cards (plus a score per card from one small "
        "network shared by the 24 card types, over what each card means now; needs features = partnership)",
    )
    learning_rate: float = _field(3e-4, "Adam learning rate")
    epochs: int = _field(2, "passes over each update's data")
    minibatch_size: int = _field(1024, "decisions per gradient step")
    clip_range: float = _field(0.2, "PPO ratio clipping")
    gae_lambda: float = _field(0.95, "GAE lambda over each seat's decisions in a hand (no discounting)")
    entropy_coef: float = _field(0.01, "weight of the entropy bonus")
    value_coef: float = _field(0.5, "weight of the value loss")
    max_grad_norm: float = _field(0.5, "gradient clipping norm")
    reward_scale: float = _field(1000.0, "reward = own team's hand score minus the other's, divided by this")
    initial_policy: str = _field(
        "",
        "a policy checkpoint whose weights start the run's policy (a file, a run directory, or bundled; empty: "
        "random initialisation); its network must have this run's shape (features, policy_head, hidden)",
    )
    imitate: str = _field("", "agent spec whose decisions warm-start the networks before self-play (empty: none)")
    imitation_hands: int = _field(0, "hands the imitated agent plays for the warm start")
    imitation_epochs: int = _field(3, "passes over the imitation data (in each round)")
    imitation_rounds: int = _field(
        1,
        "rounds of the warm start (DAgger): the imitated agent plays the first round's hands; in each later "
        "one the policy fitted so far plays and the imitated agent labels its decisions; a fit after each round",
    )
    imitation_auction_hands: int = _field(
        0,
        "more warm-start hands, played by the heuristic, of which the imitated agent labels the auction only: "
        "bidding labels are cheap where its bidding is (the heuristic's, say), and a network's bidding errors compound",
    )
    imitation_temperature: float = _field(
        0.0,
        "soft targets (points, 0: none): where the imitated agent values the legal cards (pimc's card play), fit "
        "the policy to softmax(value / imitation_temperature) over them instead of its choice alone",
    )
    auction_labels: str = _field(
        "teacher",
        "who labels the warm start's auction decisions: teacher (the imitated agent's calls), simulated (each "
        "legal call valued by playing the true deal out on the search kernel, a pass as the high bidder declaring; "
        "the auction's logits are fitted to those values by regression: the learned bidding, partnership game) or "
        "simulated_rest (the same, a pass valued where the rest of the auction, called by the heuristic, ends)",
    )
    value_temperature: float = _field(
        20.0,
        "points of simulated value per logit (auction_labels = simulated, simulated_rest): the softmax over calls",
    )
    imitation_coef: float = _field(
        0.0,
        "weight of a behaviour-cloning loss toward the imitated agent during the PPO updates (0: none): "
        "self-play improves on the warm start without forgetting it",
    )
    pool_size: int = _field(4, "past policies kept as opponents")
    pool_every: int = _field(10, "updates between snapshots into the opponent pool (0: no pool)")
    pool_prob: float = _field(0.2, "share of hands in which one team is a past policy from the pool")
    checkpoint_every: int = _field(10, "updates between checkpoints (one is always written at the end)")
    keep_checkpoints: int = _field(3, "training checkpoints kept (the latest ones; 0: keep all)")
    eval_every: int = _field(0, "updates between arena evaluations during training (0: only the final one)")
    eval_deals: int = _field(50, "deal pairs per opponent in a periodic evaluation")
    eval_opponents: list = dataclasses.field(
        default_factory=lambda: ["random", "heuristic"],
        metadata={
            "help": "agent specs the evaluations play against; on the command line comma-separated, a comma "
            "starting a new spec only before a known agent name (pimc:samples=2,budget=0.1,heuristic is two specs)"
        },
    )
    final_eval_deals: int = _field(200, "deal pairs per opponent in the final evaluation (0: none)")
    log_every: float = _field(10.0, "seconds between progress lines")
    rules_preset: str = _field(
        "",
        f"named rule set the rules start from ({', '.join(PRESETS)}; empty: the default rules); the [rules] "
        "table and --rule change switches over it",
    )
    rules: dict = dataclasses.field(
        default_factory=dict,
        metadata={"help": "rule switches (a [rules] table; --rule NAME=VALUE on the command line)"},
    )

    def rule_set(self) -> Rules:
        """The rules played: the named rule preset (``rules_preset``), then the switches of ``rules``."""
        base = rules_from_command_line(self.rules_preset or None)
        return base.replace(**self.rules) if self.rules else base

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def drawn_rules(self, rng: np.random.Generator) -> Rules:
        """The rules of one rollout or warm-start chunk: the config's, or with ``sample_rules`` a rule
        set drawn from ``rng`` over the switches (in a share ``sampled_rules_share`` of the draws;
        the integer switches stay the config's)."""
        rules = self.rule_set()
        if not self.sample_rules or (self.sampled_rules_share < 1 and rng.random() >= self.sampled_rules_share):
            return rules
        return random_rules(rng, rules)


FIELDS = {field.name: field for field in dataclasses.fields(TrainConfig)}
#: The fields with a fixed set of values (the command line lists them).
FIELD_CHOICES: dict[str, tuple[str, ...]] = {
    "device": DEVICES,
    "backend": BACKENDS,
    "critic_input": CRITIC_INPUTS,
    "features": FEATURES,
    "policy_head": POLICY_HEADS,
    "auction_labels": AUCTION_LABELS,
    "rules_preset": tuple(PRESETS),
}
#: Fields that may differ when a run is resumed (they do not change what the run computes).
RESUMABLE_CHANGES = (
    "updates",
    "workers",
    "backend",
    "ray_address",
    "device",
    "log_every",
    "eval_every",
    "eval_deals",
    "eval_opponents",
    "final_eval_deals",
    "keep_checkpoints",
)


def resolve_preset(name: str) -> Path:
    """The TOML file of ``name``: a path (with or without ``.toml``) or a preset in ``configs/``."""
    path = Path(name)
    for candidate in (path, path.with_name(path.name + ".toml"), CONFIG_DIR / name, CONFIG_DIR / f"{name}.toml"):
        if candidate.is_file():
            return candidate
    presets = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
    raise ValueError(f"config {name!r} not found (as a file, or a preset in {CONFIG_DIR}: {presets})")


def load_preset(name: str) -> dict[str, Any]:
    """A preset's fields, ``rules`` always a table of switches (``ValueError`` naming a bad file)."""
    path = resolve_preset(name)
    try:
        with open(path, "rb") as stream:
            values = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"config {path}: {error}") from None
    if not isinstance(values.get("rules", {}), dict):
        raise ValueError(
            f"config {path}: rules = {values['rules']!r} must be a table of rule switches: a [rules] section "
            'with NAME = VALUE lines (or rules = { head_rule = "led_card" })'
        )
    return values


def build_config(values: Mapping[str, Any]) -> TrainConfig:
    """A validated config from a mapping of fields (unknown keys and bad values raise ``ValueError``)."""
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown config key {', '.join(unknown)}; known keys: {', '.join(FIELDS)}")
    converted = {name: _convert(name, value) for name, value in values.items()}
    config = TrainConfig(**converted)
    validate(config)
    return config


def _convert(name: str, value: Any) -> Any:
    """Check a value's type against the field's default (ints are accepted for floats)."""
    default = TrainConfig().to_dict()[name]
    kind = type(default)
    if kind is float and type(value) is int:
        return float(value)
    if type(value) is not kind and not (kind is list and isinstance(value, tuple)):
        raise ValueError(f"config {name}={value!r} must be {KIND_WORDS[kind]}")
    return list(value) if kind is list else value


#: How messages name the type a field takes.
KIND_WORDS = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    list: "a list",
    dict: "a table of rule switches ([rules] in a TOML file)",
}


def parse_value(name: str, text: str) -> Any:
    """A field's value from command-line text: numbers, true/false, comma-separated lists."""
    kind = type(TrainConfig().to_dict()[name])
    try:
        if kind is bool:
            return {"true": True, "false": False}[text.lower()]
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
        if kind is list:
            element = type(TrainConfig().to_dict()[name][0])
            if element is str:  # agent specs, whose parameters have commas of their own
                from agents.registry import split_specs

                return split_specs(text)
            return [element(item.strip()) for item in text.split(",") if item.strip()]
    except (KeyError, ValueError):
        raise ValueError(f"--{name.replace('_', '-')} {text!r} is not {KIND_WORDS[kind]}") from None
    return text


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def policy_shape(config: TrainConfig) -> dict[str, Any]:
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


def imitation_chunks(config: TrainConfig) -> int:
    """How many chunks of ``CHUNK_HANDS`` hands the warm start plays (the last one may be short),
    before its auction-only chunks (:func:`auction_chunks`)."""
    return len(chunk_hands(config.imitation_hands))


def auction_chunks(config: TrainConfig) -> int:
    """How many chunks of ``CHUNK_HANDS`` auction-only hands (``imitation_auction_hands``) follow."""
    return len(chunk_hands(config.imitation_auction_hands))


def validate(config: TrainConfig) -> None:
    """Refuse values that cannot run, naming the key and what is allowed."""
    _require(config.seed >= 0, f"config seed={config.seed!r} must be >= 0")
    positive = ("games_per_worker", "decisions_per_update", "epochs", "minibatch_size")
    for name in positive:
        _require(getattr(config, name) >= 1, f"config {name}={getattr(config, name)!r} must be >= 1")
    non_negative = (
        "updates",
        "workers",
        "imitation_hands",
        "imitation_epochs",
        "imitation_auction_hands",
        "pool_size",
        "pool_every",
        "checkpoint_every",
        "eval_every",
        "eval_deals",
    )
    for name in (*non_negative, "final_eval_deals"):
        _require(getattr(config, name) >= 0, f"config {name}={getattr(config, name)!r} must be >= 0")
    _require(config.backend in BACKENDS, f"config backend={config.backend!r}; allowed: {', '.join(BACKENDS)}")
    if config.backend == "ray":
        try:
            import_ray()
        except ImportError as error:
            raise ValueError(f"config backend=ray: {error}") from None
    else:
        _require(not config.ray_address, f"config ray_address={config.ray_address!r} needs backend=ray")
    _require(config.device in DEVICES, f"config device={config.device!r}; allowed: {', '.join(DEVICES)}")
    _require(
        config.critic_input in CRITIC_INPUTS,
        f"config critic_input={config.critic_input!r}; allowed: {', '.join(CRITIC_INPUTS)}",
    )
    _require(config.features in FEATURES, f"config features={config.features!r}; allowed: {', '.join(FEATURES)}")
    _require(
        config.policy_head in POLICY_HEADS,
        f"config policy_head={config.policy_head!r}; allowed: {', '.join(POLICY_HEADS)}",
    )
    _require(
        config.policy_head != "cards" or config.features == "partnership",
        "config policy_head=cards needs features = partnership (its card scores read the derived features)",
    )
    for name in ("hidden", "critic_hidden"):
        widths = getattr(config, name)
        _require(
            bool(widths) and all(type(w) is int and w >= 1 for w in widths),
            f"config {name}={widths!r} must be a non-empty list of positive integers",
        )
    for name, value in config.to_dict().items():
        if type(value) is float:  # inf and nan pass the range checks below, and training turns them into NaN
            _require(math.isfinite(value), f"config {name}={value!r} must be a finite number")
    for name in ("learning_rate", "clip_range", "reward_scale", "max_grad_norm", "log_every", "value_temperature"):
        _require(getattr(config, name) > 0, f"config {name}={getattr(config, name)!r} must be > 0")
    _require(
        config.learning_rate <= 1,
        f"config learning_rate={config.learning_rate!r} must be at most 1 (Adam diverges far below that)",
    )
    for name in ("entropy_coef", "value_coef", "imitation_coef", "imitation_temperature"):
        _require(getattr(config, name) >= 0, f"config {name}={getattr(config, name)!r} must be >= 0")
    _require(0 <= config.gae_lambda <= 1, f"config gae_lambda={config.gae_lambda!r} must be in [0, 1]")
    _require(0 <= config.pool_prob <= 1, f"config pool_prob={config.pool_prob!r} must be in [0, 1]")
    _require(
        0 <= config.sampled_rules_share <= 1,
        f"config sampled_rules_share={config.sampled_rules_share!r} must be in [0, 1]",
    )
    _require(
        all(isinstance(spec, str) and spec for spec in config.eval_opponents),
        f"config eval_opponents={config.eval_opponents!r} must be a list of agent specs",
    )
    _require(bool(config.run_name.strip("./")) or config.run_name == "", f"config run_name={config.run_name!r}")
    _require(
        not config.imitate or (config.imitation_hands >= 1 and config.imitation_epochs >= 1),
        f"config imitate={config.imitate!r} needs imitation_hands >= 1 and imitation_epochs >= 1",
    )
    chunks = imitation_chunks(config)
    _require(
        1 <= config.imitation_rounds <= max(chunks, 1),
        f"config imitation_rounds={config.imitation_rounds!r} must be from 1 to the number of chunks of "
        f"{CHUNK_HANDS} imitation hands ({chunks})",
    )
    _require(
        config.imitation_coef == 0 or bool(config.imitate),
        f"config imitation_coef={config.imitation_coef!r} needs an agent to imitate (imitate = SPEC)",
    )
    _require(
        config.rules_preset in ("", *PRESETS),
        f"config rules_preset={config.rules_preset!r}; allowed: {', '.join(PRESETS)} (or empty)",
    )
    try:
        rules = config.rule_set()
    except ValueError as error:
        raise ValueError(f"config rules: {error}") from None
    _require(
        config.imitation_auction_hands == 0
        or (bool(config.imitate) and "auction" in variant_kit(rules).decisions_taken),
        f"config imitation_auction_hands={config.imitation_auction_hands!r} needs an agent to imitate (imitate = SPEC) "
        f"in a game with an auction (variant={rules.variant!r})",
    )
    _require(
        config.auction_labels in AUCTION_LABELS,
        f"config auction_labels={config.auction_labels!r}; allowed: {', '.join(AUCTION_LABELS)}",
    )
    _require(
        config.auction_labels == "teacher" or (bool(config.imitate) and rules.variant == "partnership"),
        f"config auction_labels={config.auction_labels!r} needs an agent to imitate (imitate = SPEC) in the "
        f"partnership game (variant={rules.variant!r}): the simulation plays partnership hands",
    )
    _require(
        config.features != "partnership" or rules.variant == "partnership",
        f"config features=partnership needs the partnership game, not variant={rules.variant!r}",
    )
    check_agent_specs(config, rules)


def check_agent_specs(config: TrainConfig, rules: Rules) -> None:
    """Load every agent spec of the config and check that it plays ``rules``, so that a bad spec
    stops the run before its first update rather than at an evaluation."""
    from agents.base import check_plays
    from agents.neural.agent import resolve_checkpoint
    from agents.registry import load_agent

    if config.initial_policy:
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
    from .evaluate import spec_slug

    slugs = [spec_slug(spec) for spec in config.eval_opponents]
    repeated = sorted({spec for spec, slug in zip(config.eval_opponents, slugs, strict=True) if slugs.count(slug) > 1})
    _require(not repeated, f"config eval_opponents: repeated (or same directory name): {', '.join(repeated)}")


def to_toml(config: TrainConfig) -> str:
    """The config as a TOML preset (what ``runs/<run>/config.toml`` holds; loadable with ``--config``)."""
    lines = []
    values = config.to_dict()
    rules = values.pop("rules")
    for name, value in values.items():
        lines.append(f"{name} = {_toml_value(value)}")
    lines.append("")
    played = ", ".join(f"{name} = {_toml_value(value)}" for name, value in config.rule_set().to_dict().items())
    lines.append(f"# the rules played: {played}")
    lines.append("[rules]")
    lines += [f"{name} = {_toml_value(value)}" for name, value in rules.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return repr(value)
