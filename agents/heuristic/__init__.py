"""``heuristic``: the rule-based bot of every game.

:class:`HeuristicAgent` plays the partnership game by the rules of :mod:`.partnership` and the
three- and two-handed games by the simpler ones of :mod:`.cutthroat` and :mod:`.two_hand`
(:mod:`.hand_value` and :mod:`.simple_play` hold what they share).
"""

from .agent import HeuristicAgent
from .partnership import CardCount

__all__ = ["CardCount", "HeuristicAgent"]
