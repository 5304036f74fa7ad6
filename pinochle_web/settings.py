"""How a server runs (:class:`Settings`): kept apart from the application so that the command
line can read its arguments, and refuse bad ones, before the application and its agents load."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pinochle_env.rules.switches import Rules

from .hosts import LOOPBACK_NAMES
from .limits import MAX_TABLES, TABLE_IDLE_SECONDS


@dataclass(frozen=True)
class Settings:
    """How a server runs: the default rules of new tables, where records go, what was named with
    ``--open``, the pause between agents' moves, the agents' thread pool, the ``Host`` names it
    answers (:func:`pinochle_web.hosts.allowed_hosts`), how many tables it keeps and for how
    long one may stay unused (:mod:`pinochle_web.limits`), and whether tables may run bot programs."""

    rules: Rules = field(default_factory=Rules)
    records: Path = Path("runs/web")
    open: tuple[Path, ...] = ()
    pace: float = 0.5
    workers: int = 4
    allowed_hosts: tuple[str, ...] = LOOPBACK_NAMES
    max_tables: int = MAX_TABLES
    table_idle_seconds: float = TABLE_IDLE_SECONDS
    #: Whether a table may seat a bot program (``program:cmd=...``): it runs a command on this
    #: machine, so only with ``--allow-programs``.
    allow_programs: bool = False
