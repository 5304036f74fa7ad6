"""``checkpoint``: the hook that turns a saved neural policy into an agent (``checkpoint:PATH``).

The trainer defines the checkpoint format; until it does, loading checks that the file exists
and then says plainly that the format is not defined yet. PyTorch is imported only here, inside
the loader, so the rules engine and the other agents never depend on it.
"""

from __future__ import annotations

import os

from .base import Agent


def load_checkpoint_agent(path: str | os.PathLike, seed: int | None = None, sample: bool = False) -> Agent:
    """The policy saved at ``path`` as an agent: greedy by default, sampling its actions if ``sample``.

    Raises ``ValueError`` when the file does not exist, ``ImportError`` when PyTorch is missing,
    and ``NotImplementedError`` for an existing file while the checkpoint format is undefined.
    """
    if not str(path) or not os.path.isfile(path):
        raise ValueError(f"checkpoint file not found: {str(path)!r} (spec: checkpoint:PATH[,sample=true])")
    try:
        import torch  # noqa: F401  (lazy: only neural agents need PyTorch)
    except ImportError as error:
        raise ImportError(f"loading checkpoint {str(path)!r} needs PyTorch: pip install torch") from error
    mode = "sampling" if sample else "greedy"
    raise NotImplementedError(
        f"cannot load checkpoint {str(path)!r} ({mode} policy, seed {seed}): the checkpoint format is not yet "
        "defined; the trainer defines it"
    )
