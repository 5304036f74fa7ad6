"""``heuristic``: the rule-based bot of every game, :class:`HeuristicAgent`.

The agent holds what every game's rules share: the parameters (``heuristic:aggression=1.1``), the
seeded tie-break order that settles equal choices, and the check that a parameter set away from its
default is one the game's rules read. Each decision goes to the rules of the view's game, the
module its kit names (:mod:`agents.heuristic.games`): :mod:`.partnership` (whose rules the agent
carries as methods, :class:`~.partnership.PartnershipPlay`), :mod:`.cutthroat` and
:mod:`.two_hand`.
"""

from __future__ import annotations

import inspect
import math
from typing import ClassVar

import numpy as np

from pinochle_env.cards import NUM_TYPES
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ..base import legal_actions
from .games import heuristic_rules
from .partnership import PartnershipPlay


class HeuristicAgent(PartnershipPlay):
    """The rule-based bot of every game (the module docstring); the partnership game's rules are
    its :class:`~.partnership.PartnershipPlay` methods, which the search and the trainer also call
    one by one (``choose_trump``, ``helps``, ``choose_play``)."""

    #: The parameters (``heuristic:NAME=VALUE``) and their types; each game's rules read some of them.
    PARAMETERS: ClassVar[dict[str, type]] = {
        "aggression": float,
        "help_meld": int,
        "partner_value": float,
        "help_value": float,
    }

    def __init__(
        self,
        seed: int | None = None,
        aggression: float = 1.0,
        help_meld: int = 60,
        partner_value: float = 90.0,
        help_value: float = 40.0,
    ) -> None:
        if not (math.isfinite(aggression) and aggression > 0):
            raise ValueError(f"heuristic parameter aggression must be a number > 0, got {aggression}")
        for name, value in {"help_meld": help_meld, "partner_value": partner_value, "help_value": help_value}.items():
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"heuristic parameter {name} must be a number >= 0, got {value}")
        self.name = "heuristic"
        self.aggression = aggression
        self.help_meld = help_meld
        self.partner_value = partner_value
        self.help_value = help_value
        self.reset(seed)

    def check_rules(self, rules: Rules) -> None:
        """Refuse a parameter set away from its default that the game's rules never read (the
        cutthroat rules read ``aggression`` only, the two-handed none), rather than ignore it."""
        read = heuristic_rules(rules).PARAMETERS_READ
        defaults = inspect.signature(HeuristicAgent).parameters
        unread = [
            name for name in self.PARAMETERS if name not in read and getattr(self, name) != defaults[name].default
        ]
        if unread:
            reads = f"reads only {', '.join(read)}" if read else "reads none of them"
            names = f"parameter {unread[0]} means" if len(unread) == 1 else f"parameters {', '.join(unread)} mean"
            raise ValueError(f"heuristic {names} nothing in the {rules.variant} game (its heuristic {reads})")

    def reset(self, seed: int | None = None) -> None:
        """Draw the tie-break order: equal choices are settled by it, so decisions stay reproducible."""
        self._order = np.random.default_rng(seed).permutation(NUM_TYPES).tolist()

    @property
    def tie_break_order(self) -> list[int]:
        """The seeded rank of each card type (and suit, for trump) that settles equal choices: the
        higher rank wins where the bot takes a maximum, the lower where it takes a minimum (the
        compiled play-outs take it to play as this bot does)."""
        return list(self._order)

    def act(self, view: View, mask: np.ndarray) -> int:
        """The decision by the rules of the view's game (:func:`~agents.heuristic.games.heuristic_rules`)."""
        legal = legal_actions(view, mask).tolist()
        if len(legal) == 1:
            return legal[0]
        return int(heuristic_rules(view.rules).act(self, view, legal))
