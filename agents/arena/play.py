"""Playing the arena's duplicate units: deal pairs and game pairs (what a worker process runs).

A *deal pair* plays one deal once per team with the same cards and dealer: in the partnership
game agent A holds seats 0 and 2 in the first play and seats 1 and 3 in the second, so the card
luck of a deal cancels out. Without partners every seat is a team: a two-handed deal is played
twice (A in seat 0, then seat 1), a cutthroat deal three times (A in each seat, B in the other
two). A *game pair* does the same for whole games: every play sees the same seeded sequence of
deals (hand k of game g always gets the same cards and dealer).

Everything random is derived from ``(seed, kind, unit id, ...)`` with ``numpy.random.SeedSequence``
(deal i of every pairing gets the same cards, and agents are built afresh with
``load_agent(spec, seed derived from the unit id, play and seat)``), so a unit's result never
depends on which worker played it, in what order, or how many workers there were.

Every agent lives for one play: it hears the end of each hand it played (:func:`tell_hand_over`)
and is closed when the play ends (:func:`close`). A :func:`reusable` agent (a bot program, whose
process costs more to start than a deal takes to play) lives for the job instead, one per play and
seat (:class:`_KeptAgents`): the one that plays seat s in play k of a unit plays seat s in play k of
every unit of the job, a new match each (``reset`` with the seed a fresh agent would get) that
ends with the play. So no process ever sees two plays of a unit, and a bot cannot carry a deal from
one side of a pair to the other; whether a bot that keeps state between its matches plays the
same however the units are split into jobs is up to the bot. A bot program keeps its standard
error under the job's ``logs`` folder (:func:`keep_logs`), each match's headed by its unit, play
and seat, and an agent's failure (:class:`AgentError`) names the unit and play it came from.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.games.kit import new_game
from pinochle_env.rules.switches import Rules

from ..base import Agent, AgentError, close, decide, keep_logs, reusable, search_counts, tell_hand_over
from ..registry import load_agent

#: Unit kinds as they appear in the results file, and the tag each mixes into its seeds.
KIND_TAGS = {"deal": 0, "game": 1}
#: The two sides of a pairing, as a results line's per-side fields (``timing``, ``searches``) key them.
SIDES = ("a", "b")


@dataclass(frozen=True)
class Job:
    """Units for one worker call: the ids of one kind for one pairing, with what they need."""

    kind: str
    a: str
    b: str
    ids: tuple[int, ...]
    rules: Rules
    seed: int
    hand_cap: int
    #: Where agents keep their logs (a bot program's standard error); "" for nowhere.
    logs: str = ""


def play_job(job: Job) -> list[dict[str, Any]]:
    """Play every unit of ``job``; one results-file line per unit, in the order of ``job.ids``."""
    play = play_deal_pair if job.kind == "deal" else play_game_pair
    with contextlib.closing(_KeptAgents()) as kept:
        return [play(job, unit, kept) for unit in job.ids]


def play_deal_pair(job: Job, deal_id: int, kept: _KeptAgents) -> dict[str, Any]:
    """Play deal ``deal_id`` once per team of A (seats 0/2, then 1/3 in the partnership game): one
    line with every play's hand record. ``kept``: the job's reusable agents (:func:`play_job`)."""
    clock = _Clock()
    plays = []
    for a_team in _teams(job):
        with _seat_agents(job, deal_id, a_team, kept, clock) as agents:
            game = new_game(job.rules, np.random.default_rng(_entropy(job, deal_id)))
            _play_hand(game, agents, a_team, clock)
        plays.append({"a_team": a_team, "hands": [game.record()]})
    return _line(job, deal_id, plays, clock)


def play_game_pair(job: Job, game_id: int, kept: _KeptAgents) -> dict[str, Any]:
    """Play game ``game_id`` once per team of A on the same deal sequence: one line, all hands.

    A game ends when a team reaches the target score or after ``job.hand_cap`` hands. ``kept``: as
    for :func:`play_deal_pair`.
    """
    clock = _Clock()
    plays = []
    for a_team in _teams(job):
        hands: list[dict[str, Any]] = []
        with _seat_agents(job, game_id, a_team, kept, clock) as agents:
            game = new_game(job.rules, np.random.default_rng(_entropy(job, game_id, 0)))
            while True:
                _play_hand(game, agents, a_team, clock)
                hands.append(game.record())
                if game.game_over or len(hands) == job.hand_cap:
                    break
                game = _next_game_hand(job, game_id, game, len(hands))
        plays.append({"a_team": a_team, "hands": hands})
    return _line(job, game_id, plays, clock)


def _next_game_hand(job: Job, game_id: int, previous: Any, hand_number: int) -> Any:
    """Hand ``hand_number`` of a game: its own seeded cards, the next dealer, the running totals."""
    rng = np.random.default_rng(_entropy(job, game_id, hand_number))
    dealer = (previous.dealer + 1) % job.rules.num_seats
    game = new_game(job.rules, rng, dealer=dealer, totals=tuple(previous.totals))
    game.hand_number = hand_number
    return game


def _entropy(job: Job, unit_id: int, *more: int) -> list[int]:
    """Seed material of a unit (plus play, seat or hand number): the same on every worker."""
    return [job.seed, KIND_TAGS[job.kind], unit_id, *more]


def _teams(job: Job) -> range:
    """The teams A plays in turn: two in the partnership and two-handed games, three in cutthroat."""
    return range(max(job.rules.teams) + 1)


class _KeptAgents:
    """A job's :func:`reusable` agents, one per play and seat, each for every unit of the job it
    plays in that play and seat; :meth:`close` ends them (at the end of the job, also when it fails)."""

    def __init__(self) -> None:
        self._agents: dict[tuple[int, int], Agent] = {}

    def seat_agent(self, spec: str, seed: int, a_team: int, seat: int) -> tuple[Agent, bool]:
        """The agent of ``seat`` in play ``a_team`` of a unit, seeded with ``seed``, and whether it is
        kept for the job: the one kept, starting a new match (``reset(seed)``), or else one built
        afresh, kept from now on where it is reusable."""
        agent = self._agents.get((a_team, seat))
        if agent is not None:
            agent.reset(seed)
            return agent, True
        agent = load_agent(spec, seed)
        if reusable(agent):
            self._agents[(a_team, seat)] = agent
        return agent, reusable(agent)

    def close(self) -> None:
        for agent in self._agents.values():
            close(agent)
        self._agents.clear()


@contextlib.contextmanager
def _seat_agents(job: Job, unit_id: int, a_team: int, kept: _KeptAgents, clock: _Clock) -> Iterator[list[Agent]]:
    """The agents for the seats of one play: A's spec on team ``a_team``, B's on the others, each
    seeded by the unit, play and seat. Those ``kept`` (see the module docstring) start a new match
    and end it with the play; the others are fresh, and closed when the play ends, also when it
    fails. An agent's failure is raised again with the unit and play in front of its message. What
    the agents searched in the play goes to ``clock``, by side."""
    agents: list[Agent] = []
    held: list[Agent] = []
    fresh: list[Agent] = []
    try:
        for seat, team in enumerate(job.rules.teams):
            spec = job.a if team == a_team else job.b
            seed = int(np.random.SeedSequence(_entropy(job, unit_id, a_team, seat)).generate_state(1)[0])
            agent, is_kept = kept.seat_agent(spec, seed, a_team, seat)
            agents.append(agent)
            (held if is_kept else fresh).append(agent)
            if job.logs:
                keep_logs(agent, Path(job.logs), f"{job.kind} {unit_id}, play {a_team}, seat {seat}: {spec}")
        before = [search_counts(agent) for agent in agents]  # a kept agent counts on from earlier units
        yield agents
        for seat, (agent, earlier) in enumerate(zip(agents, before, strict=True)):
            side = "a" if job.rules.teams[seat] == a_team else "b"
            clock.count_searches(side, earlier, search_counts(agent))
        for agent in held:
            agent.reset()  # the match ends with the play; the process waits for the job's next unit
    except AgentError as error:
        raise type(error)(f"{job.kind} {unit_id}, play {a_team}: {error}") from None
    finally:
        for agent in fresh:
            close(agent)


class _Clock:
    """Decisions asked of each side and the seconds they took (view and mask building included), and
    the card decisions its agents searched, how many of them their budget cut short and how many of
    those its time part cut (:func:`~agents.base.search_counts`)."""

    def __init__(self) -> None:
        self.decisions = {side: 0 for side in SIDES}
        self.seconds = {side: 0.0 for side in SIDES}
        self.search_counts = {side: [0, 0, 0] for side in SIDES}

    def timing(self) -> dict[str, list[float]]:
        return {side: [self.decisions[side], self.seconds[side]] for side in SIDES}

    def searches(self) -> dict[str, list[int]]:
        return {side: list(self.search_counts[side]) for side in SIDES}

    def count_searches(self, side: str, before: tuple[int, ...], now: tuple[int, ...]) -> None:
        """Add to ``side``'s counts what an agent searched between two of its ``search_counts``."""
        counts = zip(self.search_counts[side], now, before, strict=True)
        self.search_counts[side] = [total + after - earlier for total, after, earlier in counts]


def _play_hand(game: Any, agents: list[Agent], a_team: int, clock: _Clock) -> None:
    """Play the game's current hand to its end, asking the agent of the seat to act each time."""
    teams = game.rules.teams
    while not game.hand_over:
        seat = game.to_act
        side = "a" if teams[seat] == a_team else "b"
        start = time.perf_counter()
        action = decide(agents[seat], game)
        clock.seconds[side] += time.perf_counter() - start
        clock.decisions[side] += 1
        game.apply(action)
    tell_hand_over(dict(enumerate(agents)), game)


def _line(job: Job, unit_id: int, plays: list[dict[str, Any]], clock: _Clock) -> dict[str, Any]:
    """The results-file line of one unit: pairing, kind, id, both plays' hand records, timing, and
    each side's card decisions searched, cut short by their budget, and cut short by its time part."""
    return {
        "kind": job.kind,
        "a": job.a,
        "b": job.b,
        "id": unit_id,
        "plays": plays,
        "timing": clock.timing(),
        "searches": clock.searches(),
    }
