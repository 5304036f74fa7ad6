"""What an episode is and what it pays: shared by the PettingZoo env and the batched API.

An episode is one hand (``episode="hand"``) or hands until a team (a player, in the variants
without partners) wins (``episode="game"``, cut short after ``max_hands`` hands). Rewards are
team-shared and zero-sum (:func:`~pinochle_env.games.kit.margins`):

- ``reward="margin"``: at every hand end, own team's hand score minus the other team's (in
  cutthroat: own score minus the mean of the other two), divided by ``reward_scale``;
- ``reward="win"``: at the end of a won game, 1 for the winner minus the mean of the others'
  (+1 / -1; in cutthroat +1 / -0.5); 0 for a game cut short. ``episode="game"`` only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .games.kit import margins

EPISODES = ("hand", "game")
REWARDS = ("margin", "win")
#: The keys of ``reset(options=...)`` in both environments (the PettingZoo env and the single-seat
#: Gymnasium env): a preset first hand, its dealer and its deal.
RESET_OPTIONS = ("dealer", "deal")


def reset_options(options: Any) -> dict[str, Any]:
    """The ``options`` of an environment's ``reset`` as a dict, the same in both environments.

    None is no option. A key other than :data:`RESET_OPTIONS` is ignored with a ``UserWarning``
    naming it, not refused: PettingZoo's ``api_test`` resets with an arbitrary option
    (``{"options": 1}``), and a wrapper may pass its own on. Anything but a mapping raises a
    ``TypeError`` saying what ``options`` takes.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        text = repr(options)
        raise TypeError(
            "reset(options=...) takes a dict such as {'dealer': 2, 'deal': [[12 cards] x 4]} (keys: "
            f"{', '.join(RESET_OPTIONS)}) or None, got {type(options).__name__}: {text[:60]}"
        )
    unknown = sorted(map(str, set(options) - set(RESET_OPTIONS)))
    if unknown:
        warnings.warn(
            f"ignoring unknown reset option {', '.join(unknown)}; known: {', '.join(RESET_OPTIONS)}", stacklevel=3
        )
    return dict(options)


def check_reward_scale(scale: Any) -> None:
    """Refuse a ``reward_scale`` (the points a reward of 1 stands for) that is not a finite number
    above 0: 0 divides by zero, a negative one flips every reward, inf makes them all 0."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < math.inf:
        raise ValueError(f"reward_scale={scale!r} must be a finite number > 0")


@dataclass(frozen=True)
class EpisodeConfig:
    """Episode length and reward scheme (validated on construction)."""

    episode: str = "hand"
    max_hands: int | None = None
    reward: str = "margin"
    reward_scale: float = 1000.0

    def __post_init__(self) -> None:
        if self.episode not in EPISODES:
            raise ValueError(f"episode={self.episode!r} is not allowed; allowed values: {', '.join(EPISODES)}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward={self.reward!r} is not allowed; allowed values: {', '.join(REWARDS)}")
        if self.reward == "win" and self.episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single hand has no winner)")
        if self.max_hands is not None and (type(self.max_hands) is not int or self.max_hands < 1):
            raise ValueError(f"max_hands={self.max_hands!r} must be a positive integer or None")
        if self.max_hands is not None and self.episode != "game":
            raise ValueError("max_hands only applies to episode='game'")
        check_reward_scale(self.reward_scale)

    @property
    def most_hands(self) -> int | None:
        """The most hands an episode can take (None: a whole game, however many hands it needs)."""
        return 1 if self.episode == "hand" else self.max_hands

    def hand_end(self, game: Any, teams: Sequence[int]) -> tuple[list[float], bool, bool]:
        """At a finished hand: each seat's reward, and whether the episode terminated / was truncated.

        ``teams[seat]`` is the seat's team; ``game.score`` and ``game.winner`` are indexed by team.
        """
        return self.outcome(game.score, game.winner, game.hand_number, teams)

    def outcome(
        self, score: Sequence[int], winner: int | None, hand_number: int, teams: Sequence[int]
    ) -> tuple[list[float], bool, bool]:
        """:meth:`hand_end` from the hand's score per team, the game's winner after it (None: none
        yet) and the hand's number in the game (0 for the first)."""
        terminated = self.episode == "hand" or winner is not None
        truncated = not terminated and self.max_hands is not None and hand_number + 1 >= self.max_hands
        if self.reward == "margin":
            return [m / self.reward_scale for m in margins(score, teams)], terminated, truncated
        if winner is None:
            return [0.0] * len(teams), terminated, truncated
        won = [1.0 if team == winner else 0.0 for team in range(len(score))]
        return margins(won, teams), terminated, truncated
