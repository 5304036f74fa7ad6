"""Checkpoint files: atomic writes, safe loads, and compatibility checks.

A checkpoint is a ``torch.save`` dict of tensors and plain values only, so it loads with
``torch.load(weights_only=True)`` (a downloaded file cannot run code). Keys:

- ``format`` (``"pinochle-rl-checkpoint"``), ``format_version``, ``encoder_version``;
- ``observation_size``, ``num_actions``, ``critic_input_size``, ``rules`` (every switch),
  ``hidden`` and ``critic_hidden`` (layer widths): what a loader checks before using the weights;
- ``policy``: the policy network's state dict (all an agent needs);
- training checkpoints add ``critic``, ``optimizer``, ``pool`` (past policies), ``config`` (the
  whole resolved config), ``counters`` (update, decisions, samples, hands, seconds) and ``rng``
  (the seed every random draw derives from, and torch's generator state). A *policy export*
  (``export_policy``) keeps only the first two groups: small enough to ship.

Writes go to a temporary file in the same directory, are flushed to disk and then renamed over
the target, so a run killed mid-write never leaves a corrupt checkpoint.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import torch

from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.files import write_atomically

FORMAT = "pinochle-rl-checkpoint"
FORMAT_VERSION = 1
POLICY_KEYS = (
    "format",
    "format_version",
    "encoder_version",
    "observation_size",
    "num_actions",
    "critic_input_size",
    "rules",
    "hidden",
    "critic_hidden",
    "policy",
)
#: Keys a policy export may hold besides (absent in older files): ``features``, the derived-feature
#: layer of the policy (:func:`agents.neural.network.build_policy`; absent or None: none),
#: ``policy_head``, its output head (absent: flat), and ``sample_rules``, whether it trained on
#: sampled rule sets (absent or false: on ``rules`` only).
OPTIONAL_POLICY_KEYS = ("features", "policy_head", "sample_rules")
#: What an absent optional key means.
ABSENT_MEANS = {"features": None, "policy_head": "flat", "sample_rules": False}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, not ours, or incompatible (the message says which)."""


def save_checkpoint(payload: dict[str, Any], path: str | os.PathLike) -> Path:
    """Write ``payload`` to ``path`` atomically (temporary file, fsync, rename)."""
    return write_atomically(path, lambda stream: torch.save(payload, stream))


def load_torch_dict(path: str | os.PathLike, kind: str = "checkpoint") -> dict[str, Any]:
    """The dict a pinochle-rl file of ``kind`` (a checkpoint, a location model) holds, loaded safely
    (``weights_only=True``); ``CheckpointError`` says what is wrong with a file that is missing,
    empty, not written by ``torch.save``, holding Python objects, or not a dict."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{kind} file not found: {str(path)!r}")
    with open(path, "rb") as stream:
        start = stream.read(4)
    if not start:
        raise CheckpointError(f"{path} is not a readable {kind} (corrupt or truncated?): the file is empty")
    if not start.startswith((b"PK\x03\x04", b"\x80")):  # torch.save's zip archive, or its older pickle format
        raise CheckpointError(f"{path} is not a {kind}: not a file torch.save wrote (it starts with {start!r})")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds (KeyError, RuntimeError, UnpicklingError, ...)
        # PyTorch's advice after a weights-only refusal is to load the file unsafely: never repeated here.
        if isinstance(error, pickle.UnpicklingError) and "weights only load failed" in str(error).lower():
            raise CheckpointError(
                f"{path} is not a pinochle-rl {kind}: it holds Python objects besides tensors and plain values, "
                "which are refused (loading them could run code from the file)"
            ) from None
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"{path} is not a readable {kind} (corrupt or truncated?): {first_line}") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path} is not a pinochle-rl {kind} (it holds a {type(payload).__name__}, not a dict)")
    return payload


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Load and sanity-check a checkpoint (``weights_only=True``); ``CheckpointError`` says what is wrong."""
    payload = load_torch_dict(path)
    if payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a pinochle-rl checkpoint (no format={FORMAT!r} key)")
    if payload.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint format version {payload.get('format_version')!r}; this version reads "
            f"{FORMAT_VERSION}"
        )
    missing = [key for key in POLICY_KEYS if key not in payload]
    if missing:
        raise CheckpointError(f"{path} lacks {', '.join(missing)}")
    if payload["encoder_version"] != ENCODER_VERSION:
        raise CheckpointError(
            f"{path} was trained on observation encoder version {payload['encoder_version']}; this version "
            f"encodes with {ENCODER_VERSION}"
        )
    return payload


def checkpoint_value(payload: dict[str, Any], key: str) -> Any:
    """``payload[key]``, an absent (or None) optional key read as what it means (:data:`ABSENT_MEANS`)."""
    value = payload.get(key)
    return ABSENT_MEANS.get(key) if value is None else value


def check_compatible(payload: dict[str, Any], expected: dict[str, Any], what: str) -> None:
    """Refuse a checkpoint whose values differ from ``expected`` (same keys), naming every difference
    (an optional key a file from before it lacks counts as its :data:`ABSENT_MEANS` value)."""
    differences = [
        f"{key}: checkpoint {checkpoint_value(payload, key)!r}, {what} {value!r}"
        for key, value in expected.items()
        if checkpoint_value(payload, key) != value
    ]
    if differences:
        raise CheckpointError("checkpoint does not match " + what + ": " + "; ".join(differences))


def export_policy(payload: dict[str, Any], path: str | os.PathLike) -> Path:
    """Write the policy-only part of a checkpoint (what agents load) to ``path``."""
    keys = [*POLICY_KEYS, *(key for key in OPTIONAL_POLICY_KEYS if key in payload)]
    return save_checkpoint({key: payload[key] for key in keys}, path)
