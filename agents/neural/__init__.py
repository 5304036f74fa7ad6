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
