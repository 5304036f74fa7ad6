"""pinochle_train: self-play PPO for Pinochle (the trainer behind ``train.py``).

:mod:`~pinochle_train.config` (fields and presets), :mod:`~pinochle_train.rollout` (batched
self-play rollouts and their backends), :mod:`~pinochle_train.ppo` (the update),
:mod:`~agents.neural.checkpoints` (file format), :mod:`~pinochle_train.trainer` (the loop) and
:mod:`~pinochle_train.evaluate` (arena evaluations).
"""
