"""A run's training checkpoints: what one holds, writing and pruning them, and resuming from one.

``checkpoints/update_NNNNNN.pt`` holds the full training state (:func:`training_state`): the
networks' metadata (what a checkpoint is checked against on load), both networks' weights, the
optimizer, the opponent pool, the run's config as one flat table of fields, the counters and
PyTorch's random state. ``policy.pt`` is the policy export of the latest one, what
``checkpoint:PATH`` loads. The file format is the agents' (:mod:`agents.neural.checkpoints`), so that
playing a trained policy needs no trainer. ``--resume`` continues a run from its latest checkpoint
(:func:`find_resume`, then :func:`restore`): every random draw derives from ``(seed, update)``, so
the resumed run continues exactly as the uninterrupted one would.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import torch
from torch import nn

from agents.neural.checkpoints import (
    FORMAT,
    FORMAT_VERSION,
    CheckpointError,
    check_compatible,
    export_policy,
    load_checkpoint,
    save_checkpoint,
)
from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.rules.switches import Rules

from .config import FIELDS, RESUMABLE_CHANGES, TrainConfig, load_preset, policy_shape
from .labels import holds_chunks, labels_folder


class TrainingRun(Protocol):
    """What of a training run its checkpoints hold and a resume restores (the trainer)."""

    @property
    def config(self) -> TrainConfig: ...

    @property
    def metadata(self) -> dict[str, Any]: ...

    @property
    def policy(self) -> nn.Module: ...

    @property
    def critic(self) -> nn.Module: ...

    @property
    def optimizer(self) -> torch.optim.Optimizer: ...

    #: The checkpoints' ``sample_rules``: this run's, or the initial policy's when it had.
    trained_on_every_rule_set: bool
    pool: list[dict[str, np.ndarray]]
    #: The frozen policy of the anchor KL (``anchor_kl_coef``), once self-play has started.
    anchor: nn.Module | None
    counters: dict[str, Any]
    #: The checkpoint the next periodic evaluation plays against (kept when older ones are pruned).
    previous_checkpoint: Path | None


def network_metadata(config: TrainConfig, rules: Rules, sizes: dict[str, int]) -> dict[str, Any]:
    """What identifies the networks' inputs and outputs, the head of every checkpoint and policy
    export (checked on load): the format, the encoder version, the sizes, the rules, the shapes."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "encoder_version": ENCODER_VERSION,
        "observation_size": sizes["observation_size"],
        "num_actions": sizes["num_actions"],
        "critic_input_size": sizes["critic_input_size"],
        "rules": rules.to_dict(),
        **policy_shape(config),
        "critic_hidden": list(config.critic_hidden),
    }


def training_state(run: TrainingRun) -> dict[str, Any]:
    """The full training state of ``run`` as a checkpoint payload (tensors and plain values only)."""
    return {
        **run.metadata,
        "sample_rules": run.trained_on_every_rule_set,
        "policy": {k: v.cpu() for k, v in run.policy.state_dict().items()},
        "critic": {k: v.cpu() for k, v in run.critic.state_dict().items()},
        "optimizer": run.optimizer.state_dict(),
        "pool": [{k: torch.from_numpy(v) for k, v in state.items()} for state in run.pool],
        **({"anchor": {k: v.cpu() for k, v in run.anchor.state_dict().items()}} if run.anchor is not None else {}),
        "config": run.config.to_dict(),
        "counters": dict(run.counters),
        "rng": {"seed": run.config.seed, "torch": torch.get_rng_state()},
        "previous_checkpoint": str(run.previous_checkpoint or ""),
    }


def restore(run: TrainingRun, payload: dict[str, Any]) -> None:
    """Continue ``run`` from a training checkpoint written from :func:`training_state`, refusing a
    policy export, another network or rule set, non-finite weights, and a payload whose parts do
    not fit this run (a crafted or damaged file that still loads): ``ValueError`` names what."""
    check_training_state(payload)
    check_compatible(payload, run.metadata, "this run")
    for name in ("policy", "critic"):
        if not all(bool(torch.isfinite(tensor).all()) for tensor in payload[name].values()):
            raise ValueError(f"checkpoint holds non-finite {name} weights: resume from an earlier one")
    parts = {"policy": (run.policy, payload["policy"]), "critic": (run.critic, payload["critic"])}
    parts.update({f"opponent pool entry {n}": (run.policy, state) for n, state in enumerate(payload["pool"])})
    anchored = run.config.anchor_kl_coef > 0 and payload["counters"]["update"] > 0
    if anchored and not _tensor_table(payload.get("anchor")):
        raise ValueError("checkpoint has no anchor policy for anchor_kl_coef: it was not written by this run")
    if anchored:
        parts["anchor policy"] = (run.policy, payload["anchor"])
    for name, (network, state) in parts.items():
        difference = _state_difference(network, state)
        if difference:
            raise ValueError(f"checkpoint's {name} does not fit this run's network: {difference}")
    try:
        run.policy.load_state_dict(payload["policy"])
        run.critic.load_state_dict(payload["critic"])
        run.optimizer.load_state_dict(payload["optimizer"])
        torch.set_rng_state(payload["rng"]["torch"])
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"checkpoint's training state does not fit this run: {first_line}") from None
    run.pool = [{k: v.numpy() for k, v in state.items()} for state in payload["pool"]]
    if anchored:
        run.anchor = copy.deepcopy(run.policy).requires_grad_(False)
        run.anchor.load_state_dict(payload["anchor"])
    run.counters = dict(payload["counters"])
    # The checkpoint's, not the initial policy's again: a resume does not load that policy.
    run.trained_on_every_rule_set = bool(payload.get("sample_rules", run.trained_on_every_rule_set))
    run.previous_checkpoint = Path(payload["previous_checkpoint"]) if payload.get("previous_checkpoint") else None


def _state_difference(network: nn.Module, state: dict[str, torch.Tensor]) -> str:
    """How the weights ``state`` differ from what ``network`` holds: the names it lacks or has
    beyond it, or the first weight of another shape (empty: they fit)."""
    shapes = {key: tuple(value.shape) for key, value in network.state_dict().items()}
    missing, extra = sorted(shapes.keys() - state.keys()), sorted(state.keys() - shapes.keys())
    if missing or extra:
        return "; ".join(
            f"{what} {', '.join(names)}" for what, names in (("lacks", missing), ("has extra", extra)) if names
        )
    for key, shape in shapes.items():
        if tuple(state[key].shape) != shape:
            return f"{key} has shape {list(state[key].shape)}, this run's {list(shape)}"
    return ""


#: The counters a training checkpoint holds, and their types.
COUNTER_TYPES: dict[str, type[int] | tuple[type[int], type[float]]] = {
    "update": int,
    "decisions": int,
    "samples": int,
    "hands": int,
    "seconds": (int, float),
}


def check_training_state(payload: dict[str, Any]) -> None:
    """Refuse a checkpoint whose training state is missing or of the wrong kind (a policy export, or
    a crafted or damaged file that still loads), naming what is wrong, before a resume uses it."""
    for key in ("critic", "optimizer", "pool", "counters", "config", "rng"):
        if key not in payload:
            raise ValueError(f"checkpoint has no {key!r}: a policy export cannot be resumed")
    counters, rng = payload["counters"], payload["rng"]
    if not isinstance(counters, dict):
        raise ValueError(f"checkpoint's counters are a {type(counters).__name__}, not a table")
    for name, kinds in COUNTER_TYPES.items():
        value = counters.get(name)
        if not isinstance(value, kinds) or isinstance(value, bool) or value < 0:
            raise ValueError(f"checkpoint's counters hold {name}={value!r}, not a count")
    checks = {
        "config": isinstance(payload["config"], dict),
        "policy": _tensor_table(payload["policy"]),
        "critic": _tensor_table(payload["critic"]),
        "optimizer": isinstance(payload["optimizer"], dict),
        "pool": isinstance(payload["pool"], list) and all(_tensor_table(state) for state in payload["pool"]),
        "rng": isinstance(rng, dict) and isinstance(rng.get("torch"), torch.Tensor),
        "previous_checkpoint": isinstance(payload.get("previous_checkpoint", ""), str),
    }
    wrong = [name for name, good in checks.items() if not good]
    if wrong:
        raise ValueError(f"checkpoint's {', '.join(wrong)} are not what a training checkpoint holds")


def _tensor_table(value: Any) -> bool:
    """Whether ``value`` is a state dict: names to tensors."""
    return isinstance(value, dict) and all(isinstance(item, torch.Tensor) for item in value.values())


#: What of a checkpoint's metadata an initial policy may differ in: the rules (its weights fit any
#: rule set) and the critic's input and layers (the run's critic is its own).
INITIAL_POLICY_MAY_DIFFER = ("rules", "critic_input_size", "critic_hidden")


def load_initial_policy(policy: nn.Module, spec: str, variant: str, metadata: dict[str, Any]) -> bool:
    """Start ``policy`` (of the network ``metadata`` describes) from another run's weights
    (``initial_policy``: a file, a run directory or a bundled name, of the game ``variant``),
    refusing a policy network of another shape: a later stage of a pipeline refines an earlier
    stage's network, under any rule set, and with a critic of its own (only the policy is loaded, so
    the file's critic may differ). Whether those weights had trained on every rule set (their
    ``sample_rules``), which the later stage's checkpoints keep saying."""
    from agents.neural.agent import resolve_checkpoint

    payload = load_checkpoint(resolve_checkpoint(spec, variant))
    shape = {key: value for key, value in metadata.items() if key not in INITIAL_POLICY_MAY_DIFFER}
    check_compatible(payload, shape, f"this run (initial_policy = {spec!r})")
    # A crafted file that passes the metadata's checks: refused in one line, not load_state_dict's traceback.
    if not _tensor_table(payload["policy"]):
        raise CheckpointError(f"initial_policy = {spec!r}: its policy is not a table of weights")
    difference = _state_difference(policy, payload["policy"])
    if difference:
        raise CheckpointError(f"initial_policy = {spec!r}: its policy does not fit this run's network: {difference}")
    policy.load_state_dict(payload["policy"])
    return bool(payload.get("sample_rules"))


#: The warm start's checkpoint (update 0), never pruned.
WARM_START = "update_000000.pt"


class RunCheckpoints:
    """The training checkpoints of one run folder and its policy export, the latest ``keep`` of them
    kept (0: all) and always the warm start's (:data:`WARM_START`), so that a run can be asked what
    its self-play added."""

    def __init__(self, run_dir: Path, keep: int) -> None:
        self.folder = run_dir / "checkpoints"
        self.policy_export = run_dir / "policy.pt"
        self.keep = keep

    def save(self, payload: dict[str, Any], protected: Path | None = None) -> Path:
        """Write the checkpoint of the payload's update, refresh the policy export, and prune the older
        checkpoints but ``protected`` (the one the next periodic evaluation plays against)."""
        path = save_checkpoint(payload, self.folder / f"update_{payload['counters']['update']:06d}.pt")
        export_policy(payload, self.policy_export)
        if self.keep:
            for old in self.found()[: -self.keep]:
                if old.name != WARM_START and (protected is None or old.resolve() != protected.resolve()):
                    old.unlink()
        return path

    def warm_start(self) -> Path | None:
        """The warm start's checkpoint (None in a run without one)."""
        path = self.folder / WARM_START
        return path if path.is_file() else None

    def latest(self) -> Path | None:
        """The latest training checkpoint (None before the first)."""
        found = self.found()
        return found[-1] if found else None

    def found(self) -> list[Path]:
        """The run's training checkpoints, oldest first."""
        return sorted(self.folder.glob("update_*.pt"))


class Resume(NamedTuple):
    """What ``--resume`` continues: the run's stored ``config`` (a flat table of fields), its folder,
    the checkpoint's payload (None for a run stopped in its warm start, before its first checkpoint),
    and the updates it holds."""

    config: dict[str, Any]
    run_dir: Path
    payload: dict[str, Any] | None
    updates_done: int
    #: Fields a warm start's ``config.toml`` lacks, which the trainer's defaults fill (see ``_stored_config``).
    filled: tuple[str, ...] = ()

    def filled_note(self) -> str:
        """The line a resume says where the trainer's defaults filled fields (empty where none)."""
        if not self.filled:
            return ""
        return (
            f"train: {self.run_dir / 'config.toml'} lacks {', '.join(self.filled)} (written before they existed, "
            "or trimmed): the trainer's defaults stand in for them"
        )


def find_resume(path: Path) -> Resume:
    """What ``--resume PATH`` continues: a run folder's latest checkpoint (its ``checkpoints/``
    folder names it too), or a checkpoint file in a run's ``checkpoints/`` folder, or a run folder
    stopped in its warm start, started again from its ``config.toml`` with the labels it played kept
    (the trainer reads them instead of playing them; :func:`_stored_config`). A checkpoint elsewhere
    is refused: the run it continues writes beside it, so a copy kept in any folder would overwrite
    that folder's files.
    ``ValueError`` (a ``CheckpointError`` for a bad file) says why there is nothing to continue."""
    if path.is_dir() and path.name == "checkpoints" and RunCheckpoints(path.parent, 0).latest() is not None:
        path = path.parent
    if path.is_dir():
        latest = RunCheckpoints(path, 0).latest()
        if latest is None:
            if not holds_chunks(labels_folder(path)):
                raise ValueError(f"--resume {path}: no checkpoints/update_*.pt in that directory")
            if not (path / "config.toml").is_file():
                raise ValueError(f"--resume {path}: its warm start's labels are there but not its config.toml")
            return _stored_config(path)
        return _resume_from(latest, path)
    if path.is_file() and path.parent.name != "checkpoints":
        raise ValueError(
            f"--resume {path}: a checkpoint outside a run's checkpoints/ folder; the resumed run writes its files "
            "beside that folder, so copy the file into <run>/checkpoints/ and resume that run folder"
        )
    return _resume_from(path, path.parent.parent)


def _stored_config(run_dir: Path) -> Resume:
    """The resume of ``run_dir``, a run stopped in its warm start, from its ``config.toml``. The run
    wrote every field there; one that lacks some was written before they existed, or trimmed by hand,
    and the preset it began from is not recorded: the trainer's defaults stand in for them, and the
    resume names them (``filled``), so that nothing is taken unsaid."""
    stored = load_preset(str(run_dir / "config.toml"))
    return Resume(stored, run_dir, None, 0, tuple(name for name in FIELDS if name not in stored))


def _resume_from(path: Path, run_dir: Path) -> Resume:
    """The resume of the checkpoint ``path`` of the run ``run_dir``; the latest checkpoint of a run
    that cannot be read names the one before it, which can."""
    try:
        payload = load_checkpoint(path)
    except CheckpointError as error:
        earlier = [other for other in RunCheckpoints(run_dir, 0).found() if other.name < path.name]
        if not earlier:
            raise
        raise CheckpointError(f"{error}; the checkpoint before it can be resumed: --resume {earlier[-1]}") from None
    if "config" not in payload:
        raise CheckpointError(f"--resume {path}: a policy export holds no training state")
    try:
        check_training_state(payload)
    except ValueError as error:
        raise CheckpointError(f"--resume {path}: {error}") from None
    _check_belongs(path, payload, run_dir)
    return Resume(payload["config"], run_dir, payload, payload["counters"]["update"])


def _check_belongs(path: Path, payload: dict[str, Any], run_dir: Path) -> None:
    """Refuse a checkpoint that is not this run's own: a file named for another update than it holds
    (a copy from elsewhere), or whose config differs from the run's ``config.toml`` in what a resume
    may not change (another game, network or run). Such a file would take the run over: it continues
    under the file's config, overwrites the run's checkpoints and prunes the rest. A ``config.toml``
    that lacks such fields (trimmed by hand) cannot tell, and is refused, naming them."""
    update = payload["counters"]["update"]
    if path.name != f"update_{update:06d}.pt":
        raise CheckpointError(
            f"--resume {path}: it holds update {update}, not the one its name says: not this run's checkpoint"
        )
    recorded = run_dir / "config.toml"
    if not recorded.is_file():
        return
    stored = load_preset(str(recorded))
    checked = {name: value for name, value in payload["config"].items() if name not in RESUMABLE_CHANGES}
    differ = sorted(name for name in checked.keys() & stored.keys() if stored[name] != checked[name])
    if differ:
        raise CheckpointError(
            f"--resume {path}: its {', '.join(differ)} differ from the run's config.toml: not this run's checkpoint "
            f"(or config.toml was edited: a resume changes only {', '.join(RESUMABLE_CHANGES)}, on its command line)"
        )
    missing = sorted(checked.keys() - stored.keys())
    if missing:
        raise CheckpointError(
            f"--resume {path}: the run's config.toml lacks {', '.join(missing)}, so the checkpoint cannot be checked "
            "as this run's own: put them back as the run began (the run's TensorBoard text 'config' lists every field)"
        )
