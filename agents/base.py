"""The agent interface: what every bot, policy and human seat implements.

An agent sees only what its seat may know: the information-set view (``game.view(seat)``, a
:class:`pinochle_env.protocol.View` of the game: :class:`pinochle_env.PlayerView` in the
partnership game) and the legal-action mask, and
returns an action id. Agents are seeded through ``reset(seed)`` and hold no reference to the game,
so they can never reach hidden cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pinochle_env.actions import mask_from_bits
from pinochle_env.engine import is_engine
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import Engine, View
from pinochle_env.rules.switches import Rules


def check_plays(agent: Agent, rules: Rules) -> None:
    """Refuse, with a ``ValueError`` saying why, an agent that cannot play a game under ``rules``.

    An agent may declare what it cannot play with an optional ``check_rules(rules)`` method that
    raises; the arena and the other drivers call this before the first deal, so a mismatch is a
    usage error at start-up rather than a failure in the middle of a run.
    """
    check = getattr(agent, "check_rules", None)
    if check is not None:
        check(rules)


def prepare(agent: Agent, rules: Rules) -> None:
    """Let an agent do its one-time set-up for ``rules`` before play: an optional ``prepare(rules)``
    method (the search bot compiles its kernel there).

    The arena calls it once in its own process before starting worker processes, so that costly
    set-up that leaves something behind (numba's compiled-code cache) happens once, not per worker.
    """
    method = getattr(agent, "prepare", None)
    if method is not None:
        method(rules)


def tell_hand_over(agents: Mapping[int, Agent | None], game: Engine) -> None:
    """Tell every seat's agent that the hand of ``game`` is over, with that seat's final view and the
    hand's score per team: its optional ``hand_over(view, score)`` method (a bot program passes it on
    as its ``hand_end`` message). Drivers call it once per finished hand; ``agents`` maps seats to
    agents (``None`` for a person's seat)."""
    receivers = [(seat, agent) for seat, agent in agents.items() if getattr(agent, "hand_over", None) is not None]
    if not receivers:
        return
    score = [int(points) for points in game.record()["score"]]
    for seat, agent in receivers:
        agent.hand_over(game.view(seat), score)  # type: ignore[union-attr]


def close(agent: Agent | None) -> None:
    """End an agent's match: its optional ``close()`` method (a bot program is told the match is over
    and its process ends). Drivers call it when they are done with an agent; safe to call twice."""
    method = getattr(agent, "close", None)
    if method is not None:
        method()


def reusable(agent: Agent) -> bool:
    """Whether a driver may play several matches with ``agent``, calling ``reset(seed)`` between
    them, where it would otherwise build an agent afresh for each: an agent says so with a true
    ``reusable`` attribute. A bot program does (its process costs more to start than a deal takes
    to play; a new match is a new one for the bot), and the arena keeps it for the deals of a job
    in the same play and seat. Every other agent the arena builds afresh for each play, so that no
    result depends on how the units are split into jobs."""
    return bool(getattr(agent, "reusable", False))


def keep_logs(agent: Agent, directory: Path, label: str) -> None:
    """Ask an agent to keep what it logs under ``directory``, under the heading ``label`` (which play
    of which unit): its optional ``keep_logs`` method (a bot program appends its standard error to a
    file there). The arena passes its out directory."""
    method = getattr(agent, "keep_logs", None)
    if method is not None:
        method(directory, label)


def search_counts(agent: Agent) -> tuple[int, int, int]:
    """The card decisions an agent has searched, how many of them its node or time budget cut short
    (deals drawn but not all evaluated), and how many of those its time budget cut (the rest ran out
    of nodes): its optional ``search_counts()`` method; ``(0, 0, 0)`` for an agent that does not
    search. The arena reports them beside each agent's speed, since a search whose budget binds plays
    differently with a larger budget, and one whose time budget binds also on a slower machine."""
    method = getattr(agent, "search_counts", None)
    return method() if method is not None else (0, 0, 0)


def total_search_counts(agents: Iterable[Agent]) -> tuple[int, int, int]:
    """The :func:`search_counts` of several agents added up (a ``mix:`` spec's parts, a run's seats)."""
    searched = cut_short = cut_on_time = 0
    for agent in agents:
        counts = search_counts(agent)
        searched += counts[0]
        cut_short += counts[1]
        cut_on_time += counts[2]
    return searched, cut_short, cut_on_time


class AgentError(ValueError):
    """An agent failed through its own fault (an illegal answer, a bot program that crashed or hung):
    the message says all there is to say (which agent, what it did, at which decision), so drivers
    report it without a traceback."""


class IllegalAgentActionError(AgentError):
    """An agent returned an action that is not legal; the message names the agent."""


@runtime_checkable
class Agent(Protocol):
    """What the arena, the single-seat env and the play CLI drive."""

    name: str

    def act(self, view: View, mask: np.ndarray) -> int:
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

    def act(self, view: View, mask: np.ndarray) -> int:
        legal = legal_actions(view, mask)
        return int(legal[self._rng.integers(len(legal))])


def legal_actions(view: View, mask: Any) -> np.ndarray:
    """The legal action ids of ``mask``, the legal mask of ``view``'s game (one entry per action id);
    ``ValueError`` for a mask of another size, or one that allows nothing (a seat not to act), which
    an agent would otherwise answer with an action outside it."""
    size = variant_kit(view.rules).layout.size
    if np.shape(mask) != (size,):
        raise ValueError(f"the legal mask must have one entry per action id ({size}), got shape {np.shape(mask)}")
    legal = np.flatnonzero(mask)
    if not len(legal):
        raise ValueError("the legal mask allows no action: the seat is not to act")
    return legal


def legal_mask(game: Engine) -> np.ndarray:
    """The (num_actions,) int8 legal mask of the seat to act in ``game``."""
    return mask_from_bits(game.legal_bits(), game.layout.size)


def decide(agent: Agent, game: Engine) -> int:
    """Ask ``agent`` for the action of the seat to act in ``game`` (view and mask only) and check it."""
    return decide_with_values(agent, game, values=False)[0]


#: What an agent that can value its choice returns: the action and, where it valued the legal
#: actions, each one's value (action id -> points of the seat's hand-score margin), else None.
ValuedAction = tuple[int, dict[int, float] | None]


def act_with_values(agent: Agent, view: View, mask: np.ndarray) -> ValuedAction:
    """The agent's action and its values of the legal actions, through its ``act_with_values``
    where it has one (else the action alone, values None)."""
    valued = getattr(agent, "act_with_values", None)
    return valued(view, mask) if valued is not None else (agent.act(view, mask), None)


def decide_with_values(agent: Agent, game: Engine, values: bool = True) -> ValuedAction:
    """:func:`decide`, with the values of the legal actions where the agent gives them.

    An agent may have ``act_with_values(view, mask)`` returning ``(action, values)`` (the search
    bot does for the card it searches; a ``mix`` spec for the decisions of such a part); its
    action must be the one ``act`` would choose. Imitation labels keep the values as soft targets.
    """
    if not is_engine(game):
        raise TypeError(
            f"decide takes a game (an engine), not a {type(game).__name__}: with a view, call agent.act(view, mask)"
        )
    view = game.view(game.to_act)
    mask = legal_mask(game)
    action, action_values = act_with_values(agent, view, mask) if values else (agent.act(view, mask), None)
    if not (isinstance(action, (int, np.integer)) and 0 <= action < len(mask) and mask[action]):
        legal = ", ".join(game.layout.to_string(int(a)) for a in np.flatnonzero(mask))
        raise IllegalAgentActionError(
            f"agent {agent.name!r} (player {game.to_act}, phase {game.phase.decision}) returned illegal action "
            f"{action!r}; legal actions: {legal}"
        )
    return int(action), action_values
