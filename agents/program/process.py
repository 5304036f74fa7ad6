"""A bot program's process: started without a shell, spoken to in lines, each read and write bounded
by a deadline, so that a bot that hangs (or stops reading) can never hang its table.

The process runs in a session of its own (``start_new_session``), so that stopping it stops what it
started too, and Ctrl-C at the table reaches the table alone. Its standard error goes to an
unnamed temporary file, never a pipe: a bot that writes much there cannot block on a full pipe, and
what it wrote is there to quote in an error and to keep (:meth:`BotProcess.stderr_text`,
:meth:`BotProcess.new_stderr`). The file is read at given offsets (``os.pread``), never by moving
the file position it shares with the bot, so that reading it while the bot runs cannot make the
bot write over its own output.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence

#: Longest line a bot may send (bytes): a longer one is a protocol error, not a memory problem.
MAX_LINE = 1 << 20
#: Seconds a bot has to exit by itself once its input is closed, before it is killed.
EXIT_SECONDS = 2.0


class ChannelError(RuntimeError):
    """The bot's process did not answer in time, closed its output or stopped reading its input;
    the message says which."""


class BotProcess:
    """One running bot program: :meth:`send` a line, :meth:`receive` one, :meth:`finish` or
    :meth:`kill` it. ``transcript(direction, line)`` hears every line (``">"``: to the bot)."""

    def __init__(self, command: Sequence[str], transcript: Callable[[str, str], None] | None = None) -> None:
        self.command = list(command)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (kept open for the process's life: release())
        self._process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=True,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._input, self._output = self._process.stdin.fileno(), self._process.stdout.fileno()
        os.set_blocking(self._input, False)
        os.set_blocking(self._output, False)
        self._buffer = b""
        self._stderr_taken = 0
        self._transcript = transcript
        # Kept for the process's life: a selector made per message cost a tenth of a decision's time.
        self._writable, self._readable = selectors.DefaultSelector(), selectors.DefaultSelector()
        self._writable.register(self._input, selectors.EVENT_WRITE)
        self._readable.register(self._output, selectors.EVENT_READ)

    def send(self, line: bytes, seconds: float) -> None:
        """Write ``line`` to the bot's input within ``seconds`` (a bot that stops reading fills the pipe)."""
        if self._transcript is not None:
            self._transcript(">", line.decode().rstrip("\n"))
        deadline = time.monotonic() + seconds
        view = memoryview(line)
        while view:
            try:
                written = os.write(self._input, view)
            except BlockingIOError:
                written = 0
            except BrokenPipeError:
                raise ChannelError(f"closed its input ({self.exit_text()})") from None
            view = view[written:]
            if view and not self._writable.select(max(0.0, deadline - time.monotonic())):
                raise ChannelError(f"read none of its input for {seconds:g} s")

    def receive(self, seconds: float) -> bytes:
        """The bot's next line (without its newline) within ``seconds``."""
        deadline = time.monotonic() + seconds
        while (end := self._buffer.find(b"\n")) == -1:
            if len(self._buffer) > MAX_LINE:
                raise ChannelError(f"sent a line longer than {MAX_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not self._readable.select(left):
                raise ChannelError(f"sent no answer within {seconds:g} s")
            try:
                chunk = os.read(self._output, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise ChannelError(f"closed its output ({self.exit_text()})")
            self._buffer += chunk
        line, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
        if self._transcript is not None:
            self._transcript("<", line.decode(errors="replace"))
        return line

    def exit_text(self) -> str:
        """How the process stands, in words: running, or its exit status or signal."""
        try:
            code = self._process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit status {code}" if code >= 0 else f"killed by signal {-code}"

    def finish(self, seconds: float = EXIT_SECONDS) -> bool:
        """Close the bot's input and wait ``seconds`` for it to exit; kill it if it does not. Whether
        it exited by itself."""
        with contextlib.suppress(OSError):
            self._process.stdin.close()  # type: ignore[union-attr]
        try:
            self._process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            return False
        self._close_output()
        return True

    def kill(self) -> None:
        """Stop the bot and whatever it started, at once."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._process.stdin.close()  # type: ignore[union-attr]
        self._process.wait()
        self._close_output()

    def stderr_text(self) -> str:
        """Everything the bot wrote to its standard error so far."""
        return self._stderr_bytes(0).decode(errors="replace")

    def new_stderr(self) -> str:
        """What the bot wrote to its standard error since the last call (everything, the first time)."""
        written = self._stderr_bytes(self._stderr_taken)
        self._stderr_taken += len(written)
        return written.decode(errors="replace")

    def _stderr_bytes(self, start: int) -> bytes:
        descriptor = self._stderr.fileno()
        return os.pread(descriptor, max(0, os.fstat(descriptor).st_size - start), start)

    def release(self) -> None:
        """Let go of the standard error file, once the process is finished or killed."""
        self._stderr.close()

    def _close_output(self) -> None:
        self._writable.close()
        self._readable.close()
        with contextlib.suppress(OSError):
            self._process.stdout.close()  # type: ignore[union-attr]
