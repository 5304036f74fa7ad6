"""A bot program as a seat: the ``program:cmd=COMMAND[,timeout=SECONDS]`` agent.

:class:`ProgramAgent` holds one match's conversation with a bot program (``docs/bot_protocol.md``):
the program starts at the seat's first decision (the handshake), hears ``match_start`` at the first
decision of each match, ``hand_start`` before its first decision of each hand, answers every
``decide`` with an ``action``, hears ``hand_end`` when its driver says the hand is over
(:func:`agents.base.tell_hand_over`) and ``match_end`` when its match ends: at :meth:`reset`,
after which the next decision starts a new match in the same process, or at
:func:`agents.base.close`, which ends the process too. The agent is :func:`~agents.base.reusable`:
the arena keeps it for every deal of a job in the same play and seat, so a process never sees the
other play of a deal it played (duplicate fairness, ``docs/bot_protocol.md``).

A bot that misbehaves (an answer that is not JSON, not an ``action``, not legal; no answer within
the time limit; a crash) is stopped, and a :class:`BotError` names the bot, the decision and what
it sent, with the end of its standard error.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ..base import AgentError
from . import messages
from .process import BotProcess, ChannelError

#: Seconds a bot has for each decision, unless its spec says ``timeout=``: generous, as a bot shares
#: the machine with the table and the other seats (the tests run on two busy cores).
DEFAULT_TIMEOUT = 10.0
#: The longest time limit per decision a spec may give (a day): the operating system's waits take no
#: more than about 24 days, and no bot should need it.
MAX_TIMEOUT = 86_400.0
#: Seconds a bot has to start and answer the handshake (at least its decision time limit).
START_SECONDS = 30.0
#: How much of a bad answer, and how many lines of its standard error, an error message quotes.
QUOTED_CHARS, QUOTED_LINES = 200, 5


class BotError(AgentError):
    """A bot program broke the protocol, answered too late, or crashed; the message says which bot,
    at which decision, and what it sent."""


def parse_command(text: str) -> list[str]:
    """A command as its argument list, split as a POSIX shell would split it (``shlex``) but never
    run by a shell; ``ValueError`` for an empty or unbalanced one."""
    try:
        command = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"cannot split the command {text!r}: {error}") from None
    if not command:
        raise ValueError("the program spec has no command: write program:cmd=COMMAND")
    return command


class ProgramAgent:
    """A seat played by a bot program (see the module docstring); ``transcript(direction, line)``
    hears every line of the conversation (``">"`` to the bot, ``"<"`` from it)."""

    #: A new match is a ``reset``, not a new agent: the process start costs more than a deal's play.
    reusable = True

    def __init__(
        self,
        seed: int | None = None,
        cmd: str = "",
        timeout: float = DEFAULT_TIMEOUT,
        transcript: Callable[[str, str], None] | None = None,
    ) -> None:
        if not 0 < timeout <= MAX_TIMEOUT:
            raise ValueError(f"timeout={timeout} must be a number of seconds above 0 and at most {MAX_TIMEOUT:,.0f}")
        self.name = f"program:cmd={cmd}"
        self.command = parse_command(cmd)
        self.timeout = timeout
        #: The name the bot gave in its handshake ("" before it).
        self.bot_name = ""
        self._transcript = transcript
        self._seed = seed or 0
        self._process: BotProcess | None = None
        self._stop: weakref.finalize | None = None
        self._layout: Any = None
        #: Where the standard error goes, and under which heading: the next match's, and the match's under way.
        self._logs: tuple[Path, str] | None = None
        self._match_logs: tuple[Path, str] | None = None
        self._matches = self._decisions = self._hands = 0
        self._in_match = self._in_hand = False
        self._where = "the handshake"

    # ------------------------------------------------------------------ the agent's hooks

    def reset(self, seed: int | None = None) -> None:
        """End the match under way (``match_end``), if any, keeping the process: the next decision
        starts a new match in it, with this seed."""
        if self._in_match:
            self._where = f"the end of match {self._matches}"
            self._send(messages.match_end())
            self._in_match = False
        self._seed = seed or 0

    def check_rules(self, rules: Rules) -> None:
        """Start the program and shake hands with it, then let it go: a command that does not run, or
        a program that does not speak this protocol, is refused before any play (``BotError``)."""
        if self._process is not None:
            return  # it has shaken hands already
        self._launch()
        assert self._process is not None
        self._process.finish()
        self._forget_process()

    def act(self, view: View, mask: np.ndarray) -> int:
        """Ask the bot for its action (starting its process, its match and the hand, where they have
        not started)."""
        if self._process is None:
            self._launch()
        if not self._in_match:
            self._start_match(view.rules, view.seat)
        self._begin_hand()
        decision, legal = self._decisions, [int(action) for action in np.flatnonzero(mask)]
        self._decisions += 1
        self._where = f"decision {decision} (hand {self._hands}, seat {view.seat}, {view.phase.name.lower()} phase)"
        self._send(messages.decide(decision, view, legal, self._layout))
        line = self._receive(self.timeout)
        try:
            return messages.read_action(line, decision, legal)
        except messages.ProtocolError as error:
            self._fail(str(error), line)

    def hand_over(self, view: View, score: list[int]) -> None:
        """Tell the bot the hand is over (its final view and the score), if its match has begun."""
        if not self._in_match:
            return
        self._begin_hand()
        self._where = f"the end of hand {self._hands}"
        self._send(messages.hand_end(self._hands, view, score))
        self._hands += 1
        self._in_hand = False

    def close(self) -> None:
        """End the match under way (``match_end``) and the process: its input is closed, and it is
        killed if it has not exited within :data:`~agents.program.process.EXIT_SECONDS`."""
        self.finish()

    def finish(self) -> str | None:
        """:meth:`close`, saying what went wrong where something did: the bot did not take
        ``match_end`` or did not exit by itself (what the checker reports); None otherwise."""
        if self._process is None:
            return None
        problem = None
        if self._in_match:
            try:
                self._process.send(messages.encode(messages.match_end()), self.timeout)
            except ChannelError as error:
                problem = f"did not take match_end: it {error}"
        if not self._process.finish() and problem is None:
            problem = "did not exit after match_end and the end of its input"
        self._forget_process()
        return problem

    def keep_logs(self, directory: Path, label: str) -> None:
        """Append the bot's standard error, when it wrote any, to a file in ``directory`` named after
        the spec, under the heading ``label``: that of the matches that start from now on. What a
        process writes goes under the heading of the match under way when the table reads it: at
        the start of the next match, and when the process ends (so a line written after the bot's
        last answer of a match, as it takes ``hand_end`` or ``match_end``, may come under the next
        match's heading)."""
        self._logs = (directory, label)

    # ------------------------------------------------------------------ the conversation

    def _launch(self) -> None:
        """Start the program and take its handshake."""
        self._where = "the handshake"
        try:
            self._process = BotProcess(self.command, self._transcript)
        except OSError as error:
            raise BotError(f"bot {self.name!r} cannot start: {error.strerror or error}: {self.command[0]}") from None
        self._stop = weakref.finalize(self, self._process.kill)  # no orphan, whatever the driver does
        self._send(messages.hello())
        line = self._receive(max(self.timeout, START_SECONDS))
        try:
            self.bot_name = messages.read_hello(line)
        except messages.ProtocolError as error:
            self._fail(str(error), line)

    def _start_match(self, rules: Rules, seat: int) -> None:
        self._keep_stderr()  # what the process wrote so far belongs to the match before (or the handshake)
        self._match_logs = self._logs
        self._layout = variant_kit(rules).layout
        self._decisions = self._hands = 0
        self._in_hand = False
        self._matches += 1
        self._where = f"the start of match {self._matches}"
        self._send(messages.match_start(rules, self._layout, seat, self._seed))
        self._in_match = True

    def _begin_hand(self) -> None:
        if not self._in_hand:
            self._send(messages.hand_start(self._hands))
            self._in_hand = True

    def _send(self, message: dict[str, Any]) -> None:
        assert self._process is not None
        try:
            self._process.send(messages.encode(message), self.timeout)
        except ChannelError as error:
            self._fail(f"it {error}")

    def _receive(self, seconds: float) -> bytes:
        assert self._process is not None
        try:
            return self._process.receive(seconds)
        except ChannelError as error:
            self._fail(f"it {error}")

    def _fail(self, problem: str, line: bytes | None = None) -> NoReturn:
        """Stop the bot and raise the :class:`BotError` that says what happened."""
        assert self._process is not None
        self._process.kill()
        stderr = self._forget_process()
        named = f" (named {self.bot_name!r})" if self.bot_name else ""
        text = f"bot {self.name!r}{named} at {self._where}: {problem}"
        if line is not None:
            shown = line.decode(errors="replace")
            text += f"; its answer: {shown[:QUOTED_CHARS]!r}" + ("..." if len(shown) > QUOTED_CHARS else "")
        tail = stderr.strip().splitlines()[-QUOTED_LINES:]
        if tail:
            text += "; the end of its standard error: " + " | ".join(tail)
        raise BotError(text)

    def _forget_process(self) -> str:
        """Let go of the finished (or killed) process, keeping its standard error; returns all of it."""
        assert self._process is not None and self._stop is not None
        self._stop.detach()
        self._keep_stderr()
        stderr = self._process.stderr_text()
        self._process.release()
        self._process = self._stop = None
        self._matches = 0
        self._in_match = False
        self._match_logs = None
        return stderr

    def _keep_stderr(self) -> None:
        """Append what the process wrote to its standard error since the last time to the log, under
        the heading of the match under way (see :meth:`keep_logs`)."""
        logs = self._match_logs or self._logs
        if logs is None or self._process is None:
            return
        stderr = self._process.new_stderr()
        if stderr:
            directory, label = logs
            directory.mkdir(parents=True, exist_ok=True)
            with open(directory / log_name(self.name), "a", encoding="utf-8") as stream:
                stream.write(f"== {label} ==\n{stderr}" + ("" if stderr.endswith("\n") else "\n"))


def log_name(spec: str) -> str:
    """The file a spec's standard error goes to: the spec in safe characters, and a short hash of it
    so that two specs never share a file."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_")[:60]
    return f"{safe}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}.stderr.txt"
