"""The flat action ids of the two-handed game: cards, meld kinds, the dix and "no meld"."""

from __future__ import annotations

from ...actions import checked_action_id
from ...cards import NUM_TYPES, card_from_str, card_to_str, suit_from_str
from .melds import MARRIAGE0, MELD_KINDS


class TwoHandLayout:
    """The flat action ids of the two-handed game (one table for play and meld decisions).

    ``0 .. 23`` play a card type (from the table first, see ``docs/two_hand.md``); then one id per
    meld kind of :data:`MELD_KINDS`; then dix exchange, dix show and "no meld" (end the meld turn).
    """

    card0 = 0
    meld0 = NUM_TYPES
    dix_exchange = meld0 + len(MELD_KINDS)
    dix_show = dix_exchange + 1
    no_meld = dix_show + 1
    size = no_meld + 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TwoHandLayout)

    def __hash__(self) -> int:
        return hash(TwoHandLayout)

    def card_action(self, card_type: int) -> int:
        return self.card0 + card_type

    def meld_action(self, kind: int) -> int:
        return self.meld0 + kind

    def to_string(self, action: int) -> str:
        """Readable name: ``TS``, ``run``, ``marriage H``, ``kings around``, ``dix show``, ``no meld``."""
        action = checked_action_id(action, self.size)
        if action < self.meld0:
            return card_to_str(action - self.card0)
        if action < self.dix_exchange:
            return MELD_KINDS[action - self.meld0].name
        return ("dix exchange", "dix show", "no meld")[action - self.dix_exchange]

    def from_string(self, text: str) -> int:
        """Inverse of :meth:`to_string`; also takes ``done`` for "no meld" and suit names in marriages."""
        key = " ".join(text.strip().lower().split())
        if key == "done":
            return self.no_meld
        if key.startswith("marriage "):
            try:
                return self.meld0 + MARRIAGE0 + suit_from_str(key[len("marriage ") :])
            except ValueError:
                pass
        names = {self.to_string(a).lower(): a for a in range(self.meld0, self.size)}
        if key in names:
            return names[key]
        try:
            return self.card0 + card_from_str(key)
        except ValueError:
            raise ValueError(
                f"not an action: {text!r} (try a card like 'TS', a meld like 'run' or 'marriage H', "
                "'dix exchange', 'dix show' or 'no meld')"
            ) from None

    def table(self) -> list[tuple[int, str]]:
        """Every action id with its name: the documentation table, generated from code."""
        return [(a, self.to_string(a)) for a in range(self.size)]


LAYOUT = TwoHandLayout()
