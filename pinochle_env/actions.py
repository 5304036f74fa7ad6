"""The flat action space: one id table, computed from the rules in this one place.

Layout (``B`` = number of bid values, ``(max_bid - 250) / 10 + 1``; 76 with the default cap):

=====================  =========================  =========================================
ids                    action                     phase
=====================  =========================  =========================================
``0 .. B-1``           bid 250, 260, ... max_bid  auction
``B``                  pass                       auction
``B+1``                pass with help             auction
``B+2 .. B+5``         trump S, H, D, C           trump
``B+6 .. B+29``        card type (9S ... AC)      passing (one card per decision) and play
``B+30``               throw in                   throw-in decision
``B+31``               play on                    throw-in decision
=====================  =========================  =========================================

Card ids follow ``pinochle_env.cards``: suit-major (S H D C), ranks weakest to strongest.
Rule switches only change which ids are legal (the mask), never the layout, except ``max_bid``,
which sets ``B``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .cards import NUM_SUITS, NUM_TYPES, SUIT_NAMES, card_from_str, card_to_str, suit_from_str
from .rules.switches import BID_STEP, MIN_BID, Rules


def mask_from_bits(legal_bits: int, num_actions: int) -> np.ndarray:
    """The int8 action mask of one legal-action bit mask (bit ``a`` = action ``a``): a third of the
    time of a one-row :func:`masks_from_bits`, read at every decision of the PettingZoo env."""
    packed = np.frombuffer(legal_bits.to_bytes((num_actions + 7) // 8, "little"), np.uint8)
    return np.unpackbits(packed, count=num_actions, bitorder="little").view(np.int8)


def masks_from_bits(legal_bits: list[int], num_actions: int) -> np.ndarray:
    """(N, num_actions) int8 action masks from N legal-action bit masks (bit ``a`` = action ``a``)."""
    nbytes = (num_actions + 7) // 8
    packed = b"".join([bits.to_bytes(nbytes, "little") for bits in legal_bits])  # a list joins faster
    rows = np.frombuffer(packed, np.uint8).reshape(len(legal_bits), nbytes)
    return np.unpackbits(rows, axis=1, count=num_actions, bitorder="little").view(np.int8)


def integer_action(action: Any) -> int | None:
    """``action`` as a Python int where it is one an action may be: a Python or numpy integer, or a
    0-d integer array (as Stable-Baselines3's ``predict`` returns); None otherwise. A bool is not one
    (``True`` is a bug, not the action id 1), nor a float."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, int | np.integer) and not isinstance(action, bool):
        return int(action)
    return None


def checked_action_id(action: Any, size: int) -> int:
    """``action`` as an id of a flat action space of ``size`` ids (:func:`integer_action` in range);
    ``ValueError`` naming it otherwise (``1.5`` or ``True`` is no action id, though ``range`` and
    comparisons would take them)."""
    checked = integer_action(action)
    if checked is None or not 0 <= checked < size:
        raise ValueError(f"action {action!r} is not an action id 0..{size - 1}")
    return checked


class ActionLayout:
    """Id ranges of the flat action space for a bid cap (plain attributes: read on every decision)."""

    __slots__ = ("card0", "help", "max_bid", "num_bids", "passing", "play_on", "size", "throw_in", "trump0")

    def __init__(self, max_bid: int = 1000) -> None:
        # A cap the rules allow (``ValueError`` otherwise): ``max_bid=0`` made a layout of -24 bids.
        self.max_bid = max_bid = Rules(max_bid=max_bid).max_bid
        self.num_bids = (max_bid - MIN_BID) // BID_STEP + 1
        self.passing = self.num_bids
        self.help = self.num_bids + 1
        self.trump0 = self.num_bids + 2
        self.card0 = self.trump0 + NUM_SUITS
        self.throw_in = self.card0 + NUM_TYPES
        self.play_on = self.throw_in + 1
        self.size = self.play_on + 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActionLayout) and other.max_bid == self.max_bid

    def __hash__(self) -> int:
        return hash(self.max_bid)

    def bid_action(self, value: int) -> int:
        return (value - MIN_BID) // BID_STEP

    def bid_value(self, action: int) -> int:
        return MIN_BID + BID_STEP * action

    def trump_action(self, suit: int) -> int:
        return self.trump0 + suit

    def card_action(self, card_type: int) -> int:
        return self.card0 + card_type

    def to_string(self, action: int) -> str:
        """Readable name of an action id: ``bid 260``, ``pass``, ``help``, ``trump hearts``, ``TS``..."""
        action = checked_action_id(action, self.size)
        if action < self.num_bids:
            return f"bid {self.bid_value(action)}"
        if action == self.passing:
            return "pass"
        if action == self.help:
            return "help"
        if action < self.card0:
            return f"trump {SUIT_NAMES[action - self.trump0]}"
        if action < self.throw_in:
            return card_to_str(action - self.card0)
        return "throw in" if action == self.throw_in else "play on"

    def from_string(self, text: str) -> int:
        """Inverse of :meth:`to_string`, also taking the short forms a person types (``260``, ``hearts``)."""
        key = " ".join(text.strip().lower().split())
        if key.startswith("bid "):
            key = key[4:]
        named = {
            "pass": self.passing,
            "help": self.help,
            "pass with help": self.help,
            "throw in": self.throw_in,
            "play on": self.play_on,
            "play": self.play_on,
        }
        if key in named:
            return named[key]
        if key.isdigit():
            value = int(key)
            if value % BID_STEP or not MIN_BID <= value <= self.max_bid:
                raise ValueError(f"bid {value} is not a multiple of {BID_STEP} in {MIN_BID}..{self.max_bid}")
            return self.bid_action(value)
        for parse, first in ((card_from_str, self.card0), (suit_from_str, self.trump0)):
            try:
                return first + parse(key.removeprefix("trump "))
            except ValueError:
                pass
        raise ValueError(f"not an action: {text!r} (try a bid like '260', 'pass', 'help', a suit, a card like 'TS')")

    def table(self) -> list[tuple[int, str]]:
        """Every action id with its name: the documentation table, generated from code."""
        return [(a, self.to_string(a)) for a in range(self.size)]


@functools.cache
def layout_for(max_bid: int) -> ActionLayout:
    """The action layout of a bid cap, built once and shared (it never changes)."""
    return ActionLayout(max_bid)
