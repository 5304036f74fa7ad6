"""The bot protocol's messages: what the table sends (built here from a seat's view) and what a bot
may answer (checked here), one JSON object per line. No processes here: :mod:`.process` moves the
lines, :mod:`.agent` holds the conversation. ``docs/bot_protocol.md`` is the protocol's reference.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from pinochle_env.cards import NUM_TYPES, SUITS, card_to_str
from pinochle_env.protocol import GamePhase
from pinochle_env.rules.switches import Rules

#: The protocol's version: the table's ``hello`` names it and the bot's answer must name the same.
PROTOCOL_VERSION = 1
#: Seeds a ``match_start`` passes are below this, so that every language holds them exactly.
SEED_RANGE = 2**31
#: View fields a ``decide`` message leaves out: the rules (sent once, in ``match_start``) and the
#: legal actions (sent beside the view, with their names).
LEFT_OUT = ("rules", "legal_actions")


class ProtocolError(ValueError):
    """A bot's line that breaks the protocol; the message says what is wrong with it."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as the line that carries it (compact JSON, newline-terminated)."""
    return (json.dumps(message, separators=(",", ":"), default=_plain) + "\n").encode()


def hello() -> dict[str, Any]:
    """The table's first message: the protocol version it speaks."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION}


def match_start(rules: Rules, layout: Any, seat: int, seed: int) -> dict[str, Any]:
    """The start of a match: the game and its rules, the bot's seat and the teams, a seed for the
    bot's own randomness, and the names of the cards, suits and every action id."""
    return {
        "type": "match_start",
        "game": rules.variant,
        "rules": rules.to_dict(),
        "seat": seat,
        "teams": list(rules.teams),
        "seed": seed % SEED_RANGE,
        "cards": [card_to_str(card) for card in range(NUM_TYPES)],
        "suits": list(SUITS),
        "actions": [[action, name] for action, name in layout.table()],
    }


def hand_start(hand: int) -> dict[str, Any]:
    """The start of hand ``hand`` (counted from 0 in the match)."""
    return {"type": "hand_start", "hand": hand}


def decide(decision: int, view: Any, legal: list[int], layout: Any) -> dict[str, Any]:
    """A decision request: its number in the match, what the seat may know and the legal actions."""
    return {
        "type": "decide",
        "decision": decision,
        "view": view_fields(view),
        "legal": [[action, layout.to_string(action)] for action in legal],
    }


def hand_end(hand: int, view: Any, score: list[int]) -> dict[str, Any]:
    """The end of hand ``hand``: the seat's final view and the hand's score per team."""
    return {"type": "hand_end", "hand": hand, "view": view_fields(view), "score": score}


def match_end() -> dict[str, Any]:
    """The end of the match; the table then closes the bot's input and the bot exits."""
    return {"type": "match_end"}


def view_fields(view: Any) -> dict[str, Any]:
    """A seat's view (a game's view dataclass) as JSON-ready values, every field but :data:`LEFT_OUT`:
    card types and suits as their indices (``match_start`` names them), a phase by its name, a meld
    as ``{"points", "melds", "shown"}``; tuples become JSON arrays as they are encoded."""
    fields = view.__dataclass_fields__
    return {name: _json_value(getattr(view, name)) for name in fields if name not in LEFT_OUT}


def _json_value(value: Any) -> Any:
    """A view field's value as JSON can take it: only a phase and a list of melds need a change (this
    runs at every decision, so lists of numbers pass untouched)."""
    if isinstance(value, GamePhase):
        return value.name.lower()
    if isinstance(value, list) and value and not isinstance(value[0], int):
        return [item._asdict() if hasattr(item, "_asdict") else item for item in value]
    return value


def _plain(value: Any) -> Any:
    """What ``json`` cannot encode by itself: numpy integers."""
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"a {type(value).__name__} in a bot protocol message")


def read_message(line: bytes) -> dict[str, Any]:
    """A bot's line as a JSON object with a ``type``; :class:`ProtocolError` if it is not one."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"not JSON ({error})") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError('not a JSON object with a "type"')
    return message


def read_hello(line: bytes) -> str:
    """The bot's name from its answer to ``hello``; :class:`ProtocolError` unless it is a ``hello``
    naming this protocol version and a name."""
    message = read_message(line)
    if message["type"] != "hello":
        raise ProtocolError(f'expected a "hello" answer, got a {message["type"]!r} message')
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(f"speaks protocol {message.get('protocol')!r}; this table speaks {PROTOCOL_VERSION}")
    name = message.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError('the "hello" answer names no bot (a non-empty "name" string)')
    return name


def read_action(line: bytes, decision: int, legal: list[int]) -> int:
    """The action id of the bot's answer to decision ``decision``; :class:`ProtocolError` unless it is
    an ``action`` message for this decision (its ``decision``, where given, must match) with one of
    the ``legal`` ids."""
    message = read_message(line)
    if message["type"] != "action":
        raise ProtocolError(f'expected an "action" answer, got a {message["type"]!r} message')
    if "decision" in message and message["decision"] != decision:
        raise ProtocolError(f"answers decision {message['decision']!r}, not {decision}")
    action = message.get("action")
    if type(action) is not int:
        raise ProtocolError(f'"action" must be an integer id, not {action!r}')
    if action not in legal:
        raise ProtocolError(f"action {action} is not legal; legal ids: {', '.join(map(str, legal))}")
    return action
