"""Finding the heuristic bot's rules for a game: the module its kit names (``VariantKit.heuristic``).

Each game's module of :mod:`agents.heuristic` has the same names: ``act(agent, view, legal)``, the
decision of the :class:`~agents.heuristic.HeuristicAgent` ``agent`` among the ``legal`` action ids;
``PARAMETERS_READ``, the agent's parameters (:attr:`~agents.heuristic.HeuristicAgent.PARAMETERS`)
that those rules read (the agent refuses the others away from their defaults); and two
declarations that tell the search wing how its compiled kernel copies the bot:
``PLAY_OUT_POLICY``, the play-out policy that plays as the bot plays its cards
(:data:`agents.search.kernel.POLICIES`), and ``COMPILED_BIDDING``, whether the kernel also holds
its decisions before the first card (trump, passing, throw-in, auction calls), so that the search
can simulate whole hands and weigh deals by the calls made.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

from pinochle_env.games.kit import variant_kit
from pinochle_env.rules.switches import Rules


@functools.lru_cache(maxsize=64)
def heuristic_rules(rules: Rules) -> ModuleType:
    """The heuristic's module for ``rules.variant`` (see the module docstring)."""
    return importlib.import_module(variant_kit(rules).heuristic)
