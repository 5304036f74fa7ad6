"""Bot programs as seats: any program, in any language, that speaks the bot protocol.

The protocol (``docs/bot_protocol.md``) is newline-delimited JSON over the program's standard input
and output: :mod:`.messages` builds and checks the messages, :mod:`.process` runs the program with
a deadline on every read and write, :mod:`.agent` is the ``program:cmd=...`` agent spec, and
:mod:`.check` is ``pinochle-bot-check``, which plays a few hands against a bot and reports every
protocol error. ``examples/random_bot.py`` and ``examples/random_bot.js`` are reference bots.
"""

from .agent import DEFAULT_TIMEOUT, BotError, ProgramAgent
from .messages import PROTOCOL_VERSION

__all__ = ["DEFAULT_TIMEOUT", "PROTOCOL_VERSION", "BotError", "ProgramAgent"]
