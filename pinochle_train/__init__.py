"""pinochle_train: self-play PPO for Pinochle (the trainer behind ``train.py``).

- :mod:`~pinochle_train.cli`: the command line (``train.py``, ``pinochle-train``);
- :mod:`~pinochle_train.config`: the fields of a run, in typed groups by role, and the TOML
  presets in ``configs/``;
- :mod:`~pinochle_train.trainer`: the training loop and its logging;
- :mod:`~pinochle_train.checkpointing`: the run's checkpoints: writing, pruning, resuming;
- :mod:`~pinochle_train.rollout`: batched self-play rollouts of one worker;
- :mod:`~pinochle_train.backends` and :mod:`~pinochle_train.ray_backend`: where rollout workers
  run (this process, worker processes, Ray actors);
- :mod:`~pinochle_train.ppo`: the PPO update;
- :mod:`~pinochle_train.imitation`: the optional warm start by imitation of a bot, and
  :mod:`~pinochle_train.labels`: the folder of its labels (format and I/O);
- :mod:`~pinochle_train.evaluate`: arena evaluations during and after training.

The networks and the checkpoint format are on the agents' side (:mod:`agents.neural`), so that
playing a trained policy needs no trainer.
"""
