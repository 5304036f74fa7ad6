"""Live tables: a person in one seat, agents in the others, one game each.

A :class:`Table` holds one game (hands dealt until a side reaches the target score). The person's
moves come through :meth:`Table.act`, which refuses anything but a legal action of the person's
seat on its turn (:class:`TableError`, the game unchanged). Agents' moves are made off the
server's event loop, in a thread pool: :meth:`Table.act` and :meth:`Table.next_hand` hand the
table to the pool, which asks each agent in turn until the person is to act again or the hand is
over. The agent decides on a copy of the game (``decide`` on ``game.clone()``) without holding the
table's lock, so :meth:`Table.state` answers at once while an agent thinks, and says who is
thinking.

When the person's card to play is forced (one legal card), the pool plays it for them, as the
terminal game does, and the log marks it. :class:`Tables` keeps at most ``capacity`` tables and
closes one nobody asked about for ``idle_seconds`` (:mod:`.limits`); a closed table answers 410.

Every finished hand is appended to the table's records file at once (one JSON line, the file
closed after each: a server stopped later loses no finished hand; the hand in progress is lost),
with ``agents`` (each seat's agent spec, ``"human"`` for the person) and ``table`` (the table's
id) as extra keys of the hand record.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, AgentError, check_plays, decide, tell_hand_over
from agents.registry import load_agent
from pinochle_env.games.kit import new_game
from pinochle_env.records import write_jsonl
from pinochle_env.rules.switches import Rules

from .catalogue import entry_id
from .limits import CLOSED_TABLES_REMEMBERED, MAX_TABLES, TABLE_IDLE_SECONDS
from .present import table_state

HUMAN = "human"


class TableError(ValueError):
    """A request the table refuses (not the person's turn, an illegal action, ...); nothing changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class TableSetup:
    """What a table is asked for: the rules, the person's seat, every seat's agent spec
    (:data:`HUMAN` in the person's) and the seed of the deals and the agents (None: fresh)."""

    rules: Rules
    seat: int
    agents: tuple[str, ...]
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "seat": self.seat, "agents": list(self.agents), "seed": self.seed}


def seat_agents(setup: TableSetup) -> tuple[list[Agent | None], np.random.Generator]:
    """The agents of every seat but the person's (``None`` there), seeded from the setup's seed,
    each refused up front if it cannot play these rules; and the generator of the deals."""
    rng = np.random.default_rng(setup.seed)
    agents: list[Agent | None] = []
    for seat, spec in enumerate(setup.agents):
        if seat == setup.seat:
            agents.append(None)
            continue
        try:
            agent = load_agent(spec, seed=int(rng.integers(2**63)))
            check_plays(agent, setup.rules)
        except (ValueError, OSError, ImportError) as error:
            raise TableError(f"seat {seat}: agent {spec!r} cannot play here: {error}") from None
        agents.append(agent)
    return agents, rng


class Table:
    """One game at one table (see the module docstring)."""

    def __init__(
        self,
        setup: TableSetup,
        records: Path,
        executor: Executor,
        pace: float = 0.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.id = secrets.token_hex(6)
        self.setup = setup
        self.seat = setup.seat
        self.agents, rng = seat_agents(setup)
        self.game = new_game(setup.rules, rng)
        self.records = records / f"{time.strftime('%Y%m%d-%H%M%S')}-{self.id}.jsonl"
        self.hands_saved = 0
        #: Finished hands not written yet (the records file could not be written): kept, and written
        #: with the next hand's, with the reason shown at the table meanwhile.
        self.unsaved: list[dict[str, Any]] = []
        self.save_error: str | None = None
        self.executor = executor
        self.pace = pace
        self.stop = stop if stop is not None else threading.Event()  # set: the server is closing
        self.closed = threading.Event()  # set: this table is closed (its agents stop)
        self.lock = threading.Lock()
        self.thinking: int | None = None  # the agent seat deciding now (or pausing before its move)
        self.error: str | None = None  # an agent's failure, shown at the table
        self.log: list[dict[str, Any]] = []  # this hand's moves, as the person may see them
        self._schedule()

    # ------------------------------------------------------------------ the person's requests

    def state(self) -> dict[str, Any]:
        """The table as the person's seat sees it, with who is thinking and what was saved."""
        with self.lock:
            return {
                **table_state(self.game, self.seat),
                "table": self.id,
                "setup": self.setup.to_dict(),
                "thinking": self.thinking,
                "error": self.error,
                "log": list(self.log),
                "records": {
                    "path": str(self.records),
                    "source": entry_id(self.records),
                    "hands": self.hands_saved,
                    "unsaved": len(self.unsaved),
                    "save_error": self.save_error,
                },
            }

    def act(self, action: Any) -> None:
        """Apply the person's ``action`` (an action id); :class:`TableError` if it is not legal now."""
        with self.lock:
            game = self.game
            if type(action) is not int:
                raise TableError(f"an action is an integer id, not {action!r}")
            if game.hand_over:
                raise TableError("the hand is over: start the next hand", status=409)
            if game.to_act != self.seat:
                raise TableError(f"it is player {game.to_act}'s turn, not yours", status=409)
            if action not in game.legal_actions():
                raise TableError(game.illegal_message(action))
            self._apply(action)
        self._schedule()

    def next_hand(self) -> None:
        """Deal the next hand of the game once this one is over (:class:`TableError` otherwise)."""
        with self.lock:
            if not self.game.hand_over:
                raise TableError("the hand is not over yet", status=409)
            if self.game.game_over:
                raise TableError("the game is over: start a new table", status=409)
            self.game.next_hand()
            self.log = []
        self._schedule()

    # ------------------------------------------------------------------ the agents' moves

    def _schedule(self) -> None:
        """Hand the table to the pool if it has a move to make (and is not on it already)."""
        with self.lock:
            seat = self._pool_move()
            if seat is None or self.thinking is not None or self.error is not None:
                return
            self.thinking = seat
        self.executor.submit(self._play_agents)

    def _pool_move(self) -> int | None:
        """The seat whose move the pool makes now (the lock held): an agent's, or the person's
        forced card; None while the person chooses, once the hand is over, or when closing."""
        seat = self.game.to_act
        if seat < 0 or self.stop.is_set() or self.closed.is_set():
            return None
        if seat == self.seat and not self._forced():
            return None
        return seat

    def _forced(self) -> bool:
        """Whether the person's move is a forced card: one legal card to play (the lock held)."""
        return self.game.phase.decision == "play" and len(self.game.legal_actions()) == 1

    def _play_agents(self) -> None:
        """In the pool: ask the agents in turn, and play the person's forced cards, until the
        person is to choose or the hand is over."""
        seat = -1
        try:
            while True:
                with self.lock:
                    mover = self._pool_move()
                    if mover == self.seat:  # the person's only legal card, played at once
                        self._apply(self.game.legal_actions()[0], forced=True)
                        continue
                    if mover is None:
                        self.thinking = None
                        return
                    self.thinking = seat = mover
                    game = self.game.clone()
                agent = self.agents[seat]
                assert agent is not None  # every seat but the person's has one
                start = time.monotonic()
                action = decide(agent, game)
                time.sleep(max(0.0, self.pace - (time.monotonic() - start)))
                with self.lock:
                    self._apply(action)
        except Exception as error:  # any failure of an agent must show at the table, not die in the pool
            with self.lock:
                self.error = f"player {seat} ({self.setup.agents[seat]}) failed: {error}"
                self.thinking = None

    def _apply(self, action: int, forced: bool = False) -> None:
        """Apply a legal action of the seat to act (the lock held), log it (``forced``: the
        person's only legal card, played for them), save a finished hand."""
        game = self.game
        seat, decision = game.to_act, game.phase.decision
        shown = decision_visible(game.rules, decision, seat, self.seat)
        name = game.layout.to_string(action) if shown else "a card"
        game.apply(action)
        self.log.append({"seat": seat, "decision": decision, "name": name, "forced": forced})
        if game.hand_over:
            self._save(game.record())
            try:
                tell_hand_over(dict(enumerate(self.agents)), game)
            except AgentError as error:  # a bot program that failed on hearing the end: shown at the table
                self.error = f"an agent failed at the end of the hand: {error}"

    def _save(self, record: dict[str, Any]) -> None:
        """Append a finished hand, and any kept from an earlier failed write, to the records file (its
        folder made on first use). A write the system refuses loses nothing and stops no play: the
        hands are kept for the next try, and the table says why (``save_error``)."""
        self.unsaved.append({**record, "agents": list(self.setup.agents), "table": self.id})
        self.write_unsaved()

    def write_unsaved(self) -> None:
        """Write the kept hands (:attr:`unsaved`) to the records file, or say why not (the lock held)."""
        if not self.unsaved:
            return
        size = self.records.stat().st_size if self.records.is_file() else None
        try:
            self.records.parent.mkdir(parents=True, exist_ok=True)
            write_jsonl(self.records, self.unsaved, append=True)
        except OSError as error:
            _roll_back(self.records, size)  # written again whole at the next try, not twice
            kept = len(self.unsaved)
            self.save_error = (
                f"could not save to {self.records} ({error.strerror or error}); {kept} finished "
                f"hand{'s are' if kept > 1 else ' is'} kept and will be written with the next hand"
            )
            return
        self.hands_saved += len(self.unsaved)
        self.unsaved, self.save_error = [], None


def _roll_back(path: Path, size: int | None) -> None:
    """Cut ``path`` back to ``size`` bytes (None: it did not exist, so remove it) after a write that
    failed part way; where even that fails, the next append's check of the last line (see
    :func:`~pinochle_env.records.write_jsonl`) still drops a line cut short."""
    with contextlib.suppress(OSError):
        if size is None:
            path.unlink(missing_ok=True)
        else:
            os.truncate(path, size)


class Tables:
    """The open tables of a server, by id; tables of several tabs are independent. At most
    ``capacity`` are kept: opening one more closes the least recently used; a table nobody asked
    about for ``idle_seconds`` is closed. A closed table answers 410 (:class:`TableError`)."""

    def __init__(
        self,
        records: Path,
        executor: Executor,
        pace: float = 0.0,
        capacity: int = MAX_TABLES,
        idle_seconds: float = TABLE_IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.records = records
        self.executor = executor
        self.pace = pace
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.stop = threading.Event()
        self._tables: OrderedDict[str, tuple[Table, float]] = OrderedDict()  # least recently used first
        self._closed: OrderedDict[str, str] = OrderedDict()  # closed table id -> why
        self._lock = threading.Lock()

    def open(self, setup: TableSetup) -> Table:
        table = Table(setup, self.records, self.executor, self.pace, self.stop)
        with self._lock:
            now = self.clock()
            closing = self._close_idle(now)
            while len(self._tables) >= self.capacity:
                oldest = next(iter(self._tables))
                closing.append(self._close(oldest, f"to make room: the server keeps at most {self.capacity} tables"))
            self._tables[table.id] = (table, now)
        self._last_saves(closing)
        return table

    def close(self) -> None:
        """Stop the agents of every table after their current decision (the server is closing), and
        make a last try to write the finished hands a table kept (see :meth:`Table.write_unsaved`);
        any still unwritten are named on standard error."""
        self.stop.set()
        with self._lock:
            tables = [table for table, _ in self._tables.values()]
        for table in tables:
            with table.lock:
                table.write_unsaved()
                if table.unsaved:
                    print(f"pinochle-web: {len(table.unsaved)} finished hand(s) of table {table.id} are lost: "
                          f"{table.save_error}", file=sys.stderr)  # fmt: skip

    def get(self, table_id: str) -> Table:
        """The table of an id, marked as used now; :class:`TableError` 410 for a closed one, 404
        for an id never opened (or closed long ago)."""
        with self._lock:
            now = self.clock()
            closing = self._close_idle(now)
            found = self._tables.pop(table_id, None)
            if found is not None:
                self._tables[table_id] = (found[0], now)
            why = self._closed.get(table_id)
        self._last_saves(closing)
        if found is not None:
            return found[0]
        if why is not None:
            raise TableError(f"table {table_id!r} was closed {why}; open a new table", status=410)
        raise TableError(f"no table {table_id!r} (tables last as long as the server)", status=404)

    def _close_idle(self, now: float) -> list[tuple[str, str, Table]]:
        """Close the tables not asked about for ``idle_seconds`` (the lock held); see :meth:`_close`."""
        closing = []
        while self._tables:
            table_id, (_, used) = next(iter(self._tables.items()))
            if now - used < self.idle_seconds:
                break
            closing.append(self._close(table_id, f"after {self.idle_seconds:g} s unused"))
        return closing

    def _close(self, table_id: str, why: str) -> tuple[str, str, Table]:
        """Close a table (the lock held): its agents stop, its id is remembered as closed. Returns
        what :meth:`_last_saves` needs, to be called once the lock is released."""
        table, _ = self._tables.pop(table_id)
        table.closed.set()
        self._remember(table_id, why)
        return table_id, why, table

    def _last_saves(self, closing: list[tuple[str, str, Table]]) -> None:
        """For tables just closed, outside the lock (a slow disk holds up no other request): a last
        try to write the hands each kept, and what became of its hands in the reason it closed."""
        for table_id, why, table in closing:
            with table.lock:
                table.write_unsaved()
                saved = (
                    f"; its {table.hands_saved} finished hand(s) are in {table.records}" if table.hands_saved else ""
                )
                if table.unsaved:
                    saved += f"; {len(table.unsaved)} finished hand(s) could not be saved there and are lost"
            with self._lock:
                self._remember(table_id, why + saved)

    def _remember(self, table_id: str, why: str) -> None:
        """Remember why a table closed (the lock held), forgetting the oldest past the limit."""
        self._closed[table_id] = why
        while len(self._closed) > CLOSED_TABLES_REMEMBERED:
            self._closed.popitem(last=False)


def decision_visible(rules: Rules, decision: str | None, seat: int, viewer: int | None) -> bool:
    """Whether a decision of ``seat`` is shown to ``viewer`` (``None``: everything is shown):
    every decision but the cards another seat passes or buries out of ``viewer``'s sight."""
    return viewer is None or decision != "passing" or rules.sees_passed_card(seat, viewer)
