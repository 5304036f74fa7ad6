"""Neural policies: the network definition, the checkpoint file format and the agent that plays one.

- :mod:`.network`: the policy and value networks, and the card-location network (PyTorch);
- :mod:`.location` and :mod:`.location_fit`: the model of where the hidden cards are that
  ``guided:locate=`` weights its drawn deals by, and how one is made;
- :mod:`.checkpoints`: checkpoint files (atomic writes, safe loads, compatibility checks);
- :mod:`.agent`: ``checkpoint:PATH`` and ``checkpoint:bundled``, a trained policy as an agent.

They live with the agents, not the trainer, so that loading and playing a policy needs no trainer;
the trainer (``pinochle_train``) imports them. Nothing here is imported with ``agents``, so PyTorch
is loaded only when a neural agent is used.
"""

#: How to get PyTorch and TensorBoard, which only training and neural agents need.
TRAIN_EXTRA = (
    'install the train extra: pip install "pinochle-rl[train]" (in a clone: pip install -e ".[train]"); '
    "where there is no GPU, install PyTorch's CPU build first (pip install torch==2.13.0, or see pytorch.org)"
)


def require_torch(what: str) -> None:
    """Raise ``ImportError`` saying that ``what`` needs PyTorch and how to install it, if it is missing."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs PyTorch; {TRAIN_EXTRA}") from None
