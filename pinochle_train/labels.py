"""The imitation labels folder (``RUN/labels``): its format and its I/O, apart from the code that
plays and fits the labels (:mod:`.imitation`).

The warm start writes its teacher's decisions chunk by chunk as they are played, so that a run
interrupted in its warm start continues from the chunks it has and a resumed run's cloning loss
reads them instead of playing the teacher's hands again. The folder holds:

- ``labels.json``: what the labels were made with (:func:`labels_identity`); a folder made
  otherwise is refused, not mixed in (:func:`open_labels`);
- ``chunk_NNNNN.npz`` (NumPy, compressed; :data:`~.config.CHUNK_HANDS` hands each, forced
  decisions left out): one row per decision of each array of :data:`LABEL_KEYS`;
- ``student_NN.pt``: with DAgger rounds, the policy export that played round ``NN``'s chunks
  (:func:`student_path`), so that a run interrupted in a later round continues with it.

:func:`load_labels` reads a folder for training elsewhere.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.files import write_atomically, write_text_atomically

from .config import CHUNK_HANDS, TrainConfig

#: The labels folder: its description file, the arrays of each chunk, and the format's version.
LABELS_INFO = "labels.json"
LABEL_KEYS = ("observation", "critic_input", "action_mask", "action", "returns", "card_values", "call_values")
LABELS_FORMAT = 4  # 4: observations and critic inputs stored as INPUT_DTYPE (3 turned their fractions into 0)
#: How the networks' inputs (observations, critic inputs) are stored for learning, in the labels and in
#: PPO's samples: float16 holds the 0/1 parts exactly and the fractions (tricks won / 12, trick points /
#: 250, scores / target, the target score) to within 2^-11 of their value. Before format 4 they were
#: stored as uint8, which made every fraction 0: the networks learned without those inputs, then met
#: them at play.
INPUT_DTYPE = np.float16


class LabelsError(ValueError):
    """A labels folder that cannot be used (made with other settings, or a file in it damaged):
    the message names the file and what to do, and ``train.py`` prints it as one line."""


def labels_folder(run_dir: Path) -> Path:
    """Where a run's warm start keeps its labels, chunk by chunk."""
    return run_dir / "labels"


def holds_chunks(folder: Path) -> bool:
    """Whether ``folder`` holds a chunk of labels (a warm start that has begun)."""
    return any(folder.glob("chunk_*.npz"))


def student_path(folder: Path, round_index: int) -> Path:
    """The student that plays the hands of round ``round_index`` (from 1), kept beside its labels."""
    return folder / f"student_{round_index:02d}.pt"


def labels_identity(config: TrainConfig) -> dict[str, Any]:
    """What the labels of ``config`` depend on, as ``labels.json`` records it: a folder made with
    anything else is refused rather than mixed in."""
    return {
        "format": LABELS_FORMAT,
        "encoder_version": ENCODER_VERSION,
        "teacher": config.imitate,
        "seed": config.seed,
        "rules": config.rule_set().to_dict(),
        "sample_rules": config.sample_rules,
        **({"sampled_rules_share": config.sampled_rules_share} if config.sampled_rules_share < 1 else {}),
        "auction_labels": config.auction_labels,
        "critic_input": config.critic_input,
        "reward_scale": config.reward_scale,
        "chunk_hands": CHUNK_HANDS,
        # The hands decide the chunks: how many there are, the last one's size (a short chunk read
        # for a full one would hold too few hands) and the round each belongs to.
        "teacher_hands": config.imitation_hands,
        # Recorded only for DAgger rounds, so that folders made before rounds existed still match.
        **({"rounds": config.imitation_rounds} if config.imitation_rounds > 1 else {}),
        # The auction-only chunks are numbered after the teacher's.
        **({"auction_hands": config.imitation_auction_hands} if config.imitation_auction_hands else {}),
    }


def open_labels(folder: Path, identity: dict[str, Any]) -> None:
    """Create the labels folder with its ``labels.json``, or check the one there was made alike (a
    ``labels.json`` written before ``teacher_hands`` was always recorded is checked without it)."""
    info = folder / LABELS_INFO
    if info.exists():
        found = read_identity(info)
        if "teacher_hands" not in found:  # written before it was always recorded: read as it was then
            identity = {key: value for key, value in identity.items() if key != "teacher_hands"}
        differ = sorted(key for key in identity.keys() | found.keys() if found.get(key) != identity.get(key))
        if differ:
            raise LabelsError(
                f"{folder} holds labels made with other settings (not this run's: {', '.join(differ)}): move it away "
                "to play the teacher's hands again"
            )
        return
    if holds_chunks(folder):
        raise LabelsError(f"{folder} holds chunks of labels but no {LABELS_INFO} saying what made them: move it away")
    write_text_atomically(info, json.dumps(identity, indent=2))


def read_identity(info: Path) -> dict[str, Any]:
    """What a ``labels.json`` says made its folder (``LabelsError`` naming a damaged file)."""
    try:
        identity = json.loads(info.read_text(encoding="utf-8"))
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise LabelsError(f"{info} cannot be read ({error}): move the labels folder away to play them again") from None
    if not isinstance(identity, dict):
        raise LabelsError(f"{info} is not a labels description (a JSON {type(identity).__name__})")
    return identity


def chunk_path(folder: Path, chunk: int) -> Path:
    """The file of chunk ``chunk`` (numbered from 0 in the warm start's order)."""
    return folder / f"chunk_{chunk:05d}.npz"


def save_chunk(path: Path, data: dict[str, np.ndarray]) -> None:
    """One chunk's arrays as a compressed ``.npz``, written whole or not at all."""
    savez: Any = np.savez_compressed  # numpy's stubs type ``**kwds`` against the ``allow_pickle`` flag
    write_atomically(path, lambda stream: savez(stream, **data))


def load_chunk(path: Path) -> dict[str, np.ndarray]:
    """One chunk's arrays (``ValueError`` naming a file that is not a labels chunk: unreadable, arrays
    of different lengths, which would pair labels with the wrong positions, or inputs not stored as
    :data:`INPUT_DTYPE`, as an older format's were)."""
    try:
        with np.load(path) as stored:
            chunk = {key: stored[key] for key in LABEL_KEYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:  # a truncated file: BadZipFile
        raise LabelsError(f"{path} is not a chunk of imitation labels ({error}): delete it to play it again") from None
    rows = {key: len(values) for key, values in chunk.items()}
    inputs = {chunk[key].dtype for key in ("observation", "critic_input")}
    if len(set(rows.values())) != 1 or inputs != {np.dtype(INPUT_DTYPE)}:
        found = ", ".join(f"{key} {rows[key]} rows of {chunk[key].dtype}" for key in LABEL_KEYS)
        raise LabelsError(f"{path} is not a chunk of imitation labels as this version writes them ({found}): "
                          "delete it to play it again")  # fmt: skip
    return chunk


def load_labels(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A labels folder for reuse outside the trainer: its ``labels.json`` and every chunk's arrays
    stacked in chunk order."""
    folder = Path(folder)
    if not (folder / LABELS_INFO).is_file():
        raise ValueError(f"{folder} is not a folder of imitation labels: it has no {LABELS_INFO}")
    identity = read_identity(folder / LABELS_INFO)
    if identity.get("format") != LABELS_FORMAT:
        raise ValueError(
            f"{folder} holds labels of format {identity.get('format')!r}; this version reads format {LABELS_FORMAT}"
        )
    parts = [load_chunk(path) for path in sorted(folder.glob("chunk_*.npz"))]
    if not parts:
        raise ValueError(f"{folder} holds no chunk_*.npz of labels")
    return identity, stack_chunks(parts)


#: What earlier labels must share with a run's own to be fitted with them: the arrays' layout and meaning
#: (the teacher, the seed and the hands may differ: that is the point of fitting them together).
SHARED_IDENTITY = ("format", "encoder_version", "rules", "critic_input", "reward_scale", "auction_labels")


def load_earlier_labels(folders: list[str], identity: dict[str, Any]) -> list[dict[str, np.ndarray]]:
    """The labels of earlier runs' folders (``imitation_label_folders``), each folder's chunks stacked;
    ``LabelsError`` naming a folder that cannot be read or was made under other settings of
    :data:`SHARED_IDENTITY` than ``identity`` (this run's :func:`labels_identity`)."""
    parts = []
    for folder in folders:
        try:
            found, arrays = load_labels(folder)
        except ValueError as error:  # LabelsError included
            raise LabelsError(f"imitation_label_folders: {error}") from None
        differ = [key for key in SHARED_IDENTITY if found.get(key) != identity.get(key)]
        if differ:
            raise LabelsError(
                f"imitation_label_folders: {folder} holds labels made with another {', '.join(differ)} than this run's"
            )
        parts.append(arrays)
    return parts


def stack_chunks(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Arrays of labels (chunks, or the rounds of a warm start) joined in order, key by key
    (:class:`LabelsError` for parts whose arrays are not as wide: another layout's labels)."""
    try:
        return {key: np.concatenate([part[key] for part in parts]) for key in LABEL_KEYS}
    except ValueError as error:
        raise LabelsError(f"labels of different layouts cannot be fitted together ({error})") from None
