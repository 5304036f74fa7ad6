"""The agent interface: what every bot, policy and human seat implements.

An agent sees only what its seat may know: the information-set view
(:class:`pinochle_env.PlayerView`, from ``Game.view(seat)``) and the legal-action mask, and
returns an action id. Agents are seeded through ``reset(seed)`` and hold no reference to the game,
so they can never reach hidden cards.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from pinochle_env import Game, PlayerView
from pinochle_env.actions import mask_from_bits
from pinochle_env.game import Phase

#: The decision phases an agent meets, as named in specs such as ``mix:auction=heuristic,play=random``
#: and in the trainer's per-phase statistics, by the engine phase's name (every variant has its own
#: phase enum): passing includes the cutthroat declarer's burying, meld is the two-handed game's
#: meld choice after a trick.
PHASE_GROUPS = {
    "AUCTION": "auction",
    "TRUMP": "trump",
    "PASS_TO_DECLARER": "passing",
    "PASS_BACK": "passing",
    "BURY": "passing",
    "THROW_IN": "throw_in",
    "PLAY": "play",
    "PLAY1": "play",
    "PLAY2": "play",
    "MELD": "meld",
}
#: The phases of the partnership game (what a ``mix`` spec must cover, or give a default for).
PARTNERSHIP_PHASES = ("auction", "trump", "passing", "throw_in", "play")
DECISION_PHASES = (*PARTNERSHIP_PHASES, "meld")


def phase_name(phase: Phase) -> str:
    """The decision phase (``DECISION_PHASES``) of an engine phase of any variant."""
    return PHASE_GROUPS[phase.name]


class IllegalAgentActionError(ValueError):
    """An agent returned an action that is not legal; the message names the agent."""


@runtime_checkable
class Agent(Protocol):
    """What the arena, the single-seat env and the play CLI drive."""

    name: str

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        """The action to take, given the acting seat's view and the (num_actions,) int8 legal mask."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new match), seeding any randomness the agent uses."""
        ...


class RandomAgent:
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, view: PlayerView, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self._rng.integers(len(legal))])


def legal_mask(game: Game) -> np.ndarray:
    """The (num_actions,) int8 legal mask of the seat to act in ``game``."""
    return mask_from_bits(game.legal_bits(), game.layout.size)


def decide(agent: Agent, game: Game) -> int:
    """Ask ``agent`` for the action of the seat to act in ``game`` (view and mask only) and check it."""
    view = game.view(game.to_act)
    mask = legal_mask(game)
    action = agent.act(view, mask)
    if not (isinstance(action, (int, np.integer)) and 0 <= action < len(mask) and mask[action]):
        legal = ", ".join(game.layout.to_string(int(a)) for a in np.flatnonzero(mask))
        raise IllegalAgentActionError(
            f"agent {agent.name!r} (player {game.to_act}, phase {phase_name(game.phase)}) returned illegal action "
            f"{action!r}; legal actions: {legal}"
        )
    return int(action)
