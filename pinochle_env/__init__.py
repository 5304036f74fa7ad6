"""pinochle_env: the rules engine, batched API and PettingZoo environment of pinochle-rl."""

from .actions import ActionLayout
from .batch import BatchedGames, BatchStep
from .game import Game, IllegalActionError, Phase, PlayerView
from .options import PRESETS, Rules

__all__ = ["PRESETS", "ActionLayout", "BatchStep", "BatchedGames", "Game", "IllegalActionError", "Phase", "PlayerView", "Rules"]
