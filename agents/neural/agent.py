"""``checkpoint``: a trained policy as an agent (``checkpoint:PATH[,sample=true]``, ``checkpoint:bundled``).

The agent rebuilds the environment's observation from its information-set view
(:func:`pinochle_env.encoding.observation_from_view`), applies the policy network with the legal
mask and plays the most probable action (or samples, with ``sample=true``). It loads training
checkpoints and policy exports alike (:mod:`.checkpoints`), with
``torch.load(weights_only=True)``, and refuses a file from another encoder version or one whose
variant, observation or action sizes differ from the game's, naming what differs: at start-up,
through :meth:`NeuralAgent.check_rules` (see :func:`agents.base.check_plays`). ``bundled`` is the
agent shipped inside the package: one policy per variant, and it plays the one of the game it is
asked to play (``bundled-any-rules``, once a second partnership agent, is another name for its
partnership policy, which trained on every rule set). PyTorch is imported only here, so
the engine and the other agents never need it; loaded networks are cached per file, as the arena
builds agents for every deal.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.games.kit import VariantKit, variant_kit
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ..base import legal_actions
from ..extras import require_extra

BUNDLED_DIR = Path(__file__).resolve().parents[1] / "bundled"


def _bundled_files() -> tuple[dict[str, dict[str, Path]], frozenset[str]]:
    """The agents shipped with the package, by spec name and game, as each one's record in
    ``agents/bundled/<name>.json`` says (its ``spec``, other names in ``aliases``, ``variant`` and
    ``file``), and the names that are aliases. Two records naming one game's agent alike are a
    packaging error, refused rather than one silently winning."""
    files: dict[str, dict[str, Path]] = {}
    aliases: set[str] = set()
    for record in sorted(BUNDLED_DIR.glob("*.json")):
        info = json.loads(record.read_text(encoding="utf-8"))
        if not all(key in info for key in ("spec", "variant", "file")):
            raise RuntimeError(f"{record} is not a bundled agent's record (spec, variant, file): remove it")
        other_names = info.get("aliases", [])
        aliases.update(other_names)
        for name in [info["spec"], *other_names]:
            games = files.setdefault(name, {})
            if info["variant"] in games:
                raise RuntimeError(f"{record}: another bundled record already names {name} for {info['variant']}")
            games[info["variant"]] = BUNDLED_DIR / info["file"]
    return files, frozenset(aliases)


#: The agents shipped with the package, by name and variant: ``checkpoint:bundled`` (the partnership
#: game on sampled rule sets, the other games on their default rules) and its partnership policy's
#: other name ``checkpoint:bundled-any-rules`` (in ``BUNDLED_ALIASES``, the names that are not a
#: record's own).
BUNDLED_FILES, BUNDLED_ALIASES = _bundled_files()
#: The variant a bundled name means before the agent learns the game's rules.
DEFAULT_VARIANT = Rules().variant
BUNDLED = BUNDLED_FILES["bundled"][DEFAULT_VARIANT]
_CACHE: dict[tuple[str, int, int], tuple[dict[str, Any], Any]] = {}


def resolve_checkpoint(path: str | os.PathLike, variant: str = DEFAULT_VARIANT) -> Path:
    """The file a ``checkpoint:`` spec names: ``bundled`` and ``bundled-any-rules`` are the shipped
    agents, the file of the game ``variant``; a run directory
    (``runs/<run>``, as ``--resume`` takes it) means its ``policy.pt``, or else its latest
    ``checkpoints/update_*.pt``; anything else is a file path, which must exist (``variant`` aside:
    the file's own game is checked against the rules when the agent plays)."""
    if str(path) in BUNDLED_FILES:
        files = BUNDLED_FILES[str(path)]
        if variant not in files:
            raise ValueError(
                f"checkpoint:{path} plays the {' and '.join(files)} game only, this game is variant={variant!r} "
                f"(checkpoint:bundled has an agent for each of {', '.join(BUNDLED_FILES['bundled'])})"
            )
        if not files[variant].is_file():
            raise ValueError(
                f"this installation has no bundled agent {path} for {variant} ({files[variant]} is missing)"
            )
        return files[variant]
    if str(path) and os.path.isdir(path):
        directory = Path(path)
        if (directory / "policy.pt").is_file():
            return directory / "policy.pt"
        found = sorted([*directory.glob("update_*.pt"), *directory.glob("checkpoints/update_*.pt")])
        if not found:
            raise ValueError(f"checkpoint directory {str(path)!r} holds no policy.pt and no checkpoints/update_*.pt")
        return found[-1]
    if not str(path) or not os.path.isfile(path):
        raise ValueError(f"checkpoint file not found: {str(path)!r} (spec: checkpoint:PATH[,sample=true])")
    return Path(path)


def file_identity(path: Path) -> tuple[str, int, int]:
    """What a loaded network is cached by: the file's resolved path, modification time and size
    (a file rewritten in place is loaded afresh)."""
    stat = path.stat()
    return str(path.resolve()), stat.st_mtime_ns, stat.st_size


def _load_policy(path: Path) -> tuple[dict[str, Any], Any]:
    """The checkpoint's metadata and its policy network, cached by :func:`file_identity`."""
    key = file_identity(path)
    if key not in _CACHE:
        from .checkpoints import CheckpointError, load_checkpoint
        from .network import policy_for

        payload = load_checkpoint(path)
        policy = policy_for(payload)
        try:
            policy.load_state_dict(payload["policy"])
        except RuntimeError as error:
            raise CheckpointError(
                f"{path}: the policy weights do not fit the sizes the checkpoint records ({error})"
            ) from None
        policy.eval()
        meta = {name: value for name, value in payload.items() if name not in ("policy", "critic", "optimizer", "pool")}
        _CACHE[key] = (meta, policy)
    return _CACHE[key]


class UntrainedRulesWarning(UserWarning):
    """A policy is asked to play rule switches it was not trained under."""


#: Switches that end a game rather than change a hand's play: a policy needs no training for them.
GAME_LEVEL_SWITCHES = ("target_score",)


def untrained_switches(meta: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The switches of ``rules`` that a checkpoint's policy never played: none when it trained on
    sampled rule sets (``sample_rules`` in its metadata); otherwise those that differ from the rules it
    trained under (game-level switches such as the target score aside)."""
    if meta.get("sample_rules"):
        return {}
    trained = meta.get("rules", {})
    return {
        name: value
        for name, value in rules.to_dict().items()
        if name in trained and trained[name] != value and name not in GAME_LEVEL_SWITCHES
    }


class NeuralAgent:
    """Plays a trained policy from its view: greedy, or sampling when ``sample`` is true."""

    def __init__(self, path: str | os.PathLike, seed: int | None = None, sample: bool = False) -> None:
        self.name = f"checkpoint:{path}"
        self.sample = sample
        self._source = path
        self._policies: dict[str, tuple[Path, dict[str, Any], Any]] = {}
        self._kits: dict[tuple[str, int], VariantKit] = {}
        self._use_variant(DEFAULT_VARIANT)
        self.reset(seed)

    def _use_variant(self, variant: str) -> None:
        """Point ``path``, ``meta`` and ``policy`` at the policy that plays ``variant``: a bundled
        name's file of that game, or the one file of any other spec (whose game ``_kit`` checks)."""
        if variant not in self._policies:
            path = resolve_checkpoint(self._source, variant)
            self._policies[variant] = (path, *_load_policy(path))
        self.path, self.meta, self.policy = self._policies[variant]

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def check_rules(self, rules: Rules) -> None:
        """Refuse (``CheckpointError``, a ``ValueError``) rules whose game the policy was not trained
        for: another variant, or an observation or action layout of other sizes (another
        ``max_bid``). Drivers call it up front through :func:`agents.base.check_plays`.

        Rule switches the policy never played under (a policy trained on one rule set, without
        ``sample_rules``) are not refused, since trying that is a fair experiment, but warned about
        (:class:`UntrainedRulesWarning`): such a policy may play them badly (docs/benchmarks.md's
        "Under other rules" gives what a policy trained on the default rules lost)."""
        self._kit(rules, variant_kit(rules).layout.size)
        changed = untrained_switches(self.meta, rules)
        if changed:
            sampled = BUNDLED_FILES.get("bundled-any-rules", {})  # the bundled policies trained on every rule set
            hint = " (checkpoint:bundled was trained on sampled rule sets)" if rules.variant in sampled else ""
            warnings.warn(
                f"{self.name} was trained under other rules: it never played "
                f"{', '.join(f'{name}={value!r}' for name, value in changed.items())}, and may play badly there{hint}",
                UntrainedRulesWarning,
                stacklevel=2,
            )

    def _kit(self, rules: Rules, num_actions: int) -> VariantKit:
        """The kit of ``rules``, checked against the checkpoint once per rule set."""
        from .checkpoints import CheckpointError, check_compatible

        self._use_variant(rules.variant)
        key = (rules.variant, rules.max_bid)
        if key not in self._kits:
            trained = self.meta.get("rules", {}).get("variant", DEFAULT_VARIANT)
            if trained != rules.variant:
                raise CheckpointError(
                    f"{self.path}: the policy plays the {trained} game, this game is variant={rules.variant!r}"
                )
            kit = variant_kit(rules)
            check_compatible(
                self.meta,
                {"observation_size": kit.spec.size, "num_actions": num_actions},
                f"this game ({rules.variant} rules with max_bid={rules.max_bid})",
            )
            self._kits[key] = kit
        return self._kits[key]

    def _masked_logits(self, view: View, mask: np.ndarray) -> Any:
        """The policy's logits for the view's observation, illegal actions masked out (a tensor)."""
        import torch

        from .network import masked_logits

        legal_actions(view, mask)  # a mask of another size or with nothing legal, refused by name
        mask = np.asarray(mask, dtype=np.int8)
        observation = self._kit(view.rules, len(mask)).observation_from_view(view)
        with torch.inference_mode():
            return masked_logits(self.policy(torch.from_numpy(observation)[None]), torch.from_numpy(mask)[None])[0]

    def probabilities(self, view: View, mask: np.ndarray) -> np.ndarray:
        """The policy's probability of each action (float64, shape of ``mask``): what the network
        thinks of each legal action, 0 for the illegal ones, summing to 1. A viewer shows these;
        ``act`` with ``sample=true`` draws from them."""
        import torch

        probabilities = torch.softmax(self._masked_logits(view, mask), dim=0).double().numpy()
        return probabilities / probabilities.sum()

    def act(self, view: View, mask: np.ndarray) -> int:
        if not self.sample:
            return int(self._masked_logits(view, mask).argmax())
        probabilities = self.probabilities(view, mask)
        return int(self._rng.choice(len(probabilities), p=probabilities))


def load_checkpoint_agent(path: str | os.PathLike, seed: int | None = None, sample: bool = False) -> NeuralAgent:
    """The policy saved at ``path`` (or a bundled name: ``bundled``, ``bundled-any-rules``) as an agent.

    Raises ``ValueError`` (a ``CheckpointError`` for a bad file) when the file is missing, corrupt,
    not a checkpoint or incompatible, and ``ImportError`` when PyTorch is missing.
    """
    resolve_checkpoint(path)  # a missing file is named before PyTorch is asked for
    require_extra("train", f"the agent checkpoint:{path}", ["torch"])
    return NeuralAgent(path, seed=seed, sample=sample)
