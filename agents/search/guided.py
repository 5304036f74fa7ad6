"""``guided``: the search bot guided by a trained policy (network-guided search).

For a card with a choice, :class:`GuidedSearchAgent` has ``pimc`` value every legal card on its
sampled deals (:meth:`agents.search.pimc.PIMCAgent.card_values`, the seat's average hand-score margin)
and plays the card with the best

    value + prior * log p(card)

where ``p`` is the policy's probability of the card
(:meth:`agents.neural.agent.NeuralAgent.probabilities`): the search's estimate, from a couple of
dozen deals, is noisy and blind to what a deal sample cannot show (strategy fusion: it plays each
deal as if it saw every hand); the network has seen hundreds of thousands of positions. ``prior``
is in points per unit of log-probability (``prior=2``: a card the network finds e times less likely
needs 2 more points of searched value; docs/experiments.md says how it was picked).

The auction's calls are the policy's by default (``bidding=network``): the bundled policies learned
to bid from simulated values of every call over tens of thousands of hands, where ``pimc``'s
bidding (:mod:`agents.search.simulation`) plays out a few dozen deals per decision; with
``bidding=search`` they are ``pimc``'s. The declaring side's other decisions (trump, the passes or
cutthroat's burial, the throw-in) are ``pimc``'s by default (``declaring=search``); with
``declaring=network`` they are the policy's, which self-play trained jointly with its calls
(docs/experiments.md measures both). Positions where no deal can be drawn are ``pimc``'s own.

With ``locate=bundled`` (or a file :mod:`agents.neural.location_fit` wrote), the deals the search
draws for a card are also weighted by a learned model of where the hidden cards are
(:mod:`agents.neural.location`), ``locate_weight`` times its log-probabilities (default 2).

Parameters, with their defaults
(``guided:checkpoint=bundled,prior=2,bidding=network,declaring=search,samples=24,budget=1.0``):
``checkpoint`` (a ``checkpoint:`` path or bundled name), ``prior``, ``bidding``, ``declaring``,
``locate`` (none) and ``locate_weight``, and ``pimc``'s ``samples``, ``budget``, ``nodes``,
``solve``, ``leaf``, ``infer`` and ``infer_play`` (with ``pimc``'s defaults). The plain search bot stays
free of PyTorch; this agent needs it (the ``train`` extra).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import check_plays, prepare
from agents.search.parameters import GUIDED_SEARCH_PARAMETERS
from agents.search.pimc import PLAY_PHASES, PIMCAgent
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ..neural.agent import load_checkpoint_agent
from ..neural.location import LocationModel

#: Who makes the auction's calls (``bidding``) and the declaring side's trump, passes and throw-in
#: (``declaring``): the policy, or the search bot.
DECIDERS = ("network", "search")
#: The decisions ``declaring`` gives to the policy or the search (``passing``: the passes, or
#: cutthroat's burial).
DECLARING_DECISIONS = ("trump", "passing", "throw_in")
#: The weight of the location model's log-probabilities (``locate_weight``), where not given.
DEFAULT_LOCATE_WEIGHT = 2.0


class GuidedSearchAgent:
    """``pimc`` whose card choice adds a policy's log-prior to each card's searched value, bidding
    with the policy's calls (or the search's, ``bidding="search"``), declaring with the search's
    trump, passes and throw-in (or the policy's, ``declaring="network"``)."""

    def __init__(
        self,
        seed: int | None = None,
        checkpoint: str = "bundled",
        prior: float = 2.0,
        bidding: str = "network",
        declaring: str = "search",
        locate: str | None = None,
        locate_weight: float | None = None,
        **search: Any,
    ) -> None:
        """``search``: ``pimc``'s parameters named in :data:`agents.search.parameters.GUIDED_SEARCH_PARAMETERS`,
        passed on to the search (``pimc`` checks their values and gives the defaults)."""
        unknown = sorted(set(search) - set(GUIDED_SEARCH_PARAMETERS))
        if unknown:
            raise TypeError(
                f"GuidedSearchAgent got unexpected keyword(s) {', '.join(unknown)}; "
                f"of pimc's it takes {', '.join(GUIDED_SEARCH_PARAMETERS)}"
            )
        if not (math.isfinite(prior) and prior >= 0):
            raise ValueError(f"guided parameter prior must be a number >= 0 (points per log-probability), got {prior}")
        if locate_weight is not None and locate is None:
            raise ValueError("guided parameter locate_weight weights a location model: give locate=bundled (or a file)")
        self.locate_weight = DEFAULT_LOCATE_WEIGHT if locate_weight is None else locate_weight
        if not (math.isfinite(self.locate_weight) and self.locate_weight > 0):
            raise ValueError(f"guided parameter locate_weight must be a number > 0, got {locate_weight}")
        for parameter, decider in (("bidding", bidding), ("declaring", declaring)):
            if decider not in DECIDERS:
                raise ValueError(f"guided parameter {parameter} must be one of {', '.join(DECIDERS)}, got {decider!r}")
        self.policy = load_checkpoint_agent(checkpoint, seed)  # names a missing file, then a missing PyTorch
        self.name = f"guided:checkpoint={checkpoint},prior={prior:g},bidding={bidding}" + (
            ",declaring=network" if declaring == "network" else ""  # the name the arena's records knew before
        )
        self.prior = prior
        self.bidding, self.declaring = bidding, declaring
        self.location = LocationModel(locate) if locate is not None else None
        self.search = PIMCAgent(seed, **search, locations=self._locations if self.location is not None else None)

    def reset(self, seed: int | None = None) -> None:
        self.search.reset(seed)
        self.policy.reset(seed)

    def search_counts(self) -> tuple[int, int, int]:
        """The search's (:func:`agents.base.search_counts`)."""
        return self.search.search_counts()

    def check_rules(self, rules: Rules) -> None:
        """Both parts must play the game (the policy refuses another variant or ``max_bid``)."""
        check_plays(self.search, rules)
        check_plays(self.policy, rules)
        if self.location is not None:
            self.location.check_rules(rules)

    def prepare(self, rules: Rules) -> None:
        prepare(self.search, rules)

    def act(self, view: View, mask: np.ndarray) -> int:
        return self.act_with_values(view, mask)[0]

    def act_with_values(self, view: View, mask: np.ndarray) -> tuple[int, dict[int, float] | None]:
        """:meth:`act`, with each legal card's guided value (by action id: its searched value plus
        ``prior`` times the log-probability the policy gives it, what the card is chosen by) where it
        searched the card (:func:`agents.base.decide_with_values`): the soft targets of imitation
        labels, expert iteration's among them."""
        if self._policy_decides(view.phase.decision):
            return self.policy.act(view, mask), None
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1 or view.phase.name not in PLAY_PHASES:
            return self.search.act(view, mask), None
        card0 = variant_kit(view.rules).layout.card0
        values = self.search.card_values(view, [action - card0 for action in legal])
        if values is None:
            return self.search.act(view, mask), None
        probabilities = self.policy.probabilities(view, mask)
        log_prior = np.log(np.maximum(probabilities, 1e-12))
        guided = {action: values[action - card0] + self.prior * float(log_prior[action]) for action in legal}
        return max(legal, key=guided.__getitem__), guided

    def _locations(self, view: View) -> np.ndarray:
        """The location model's log-probabilities, weighted: the search's evidence per copy in a deal's other hands."""
        assert self.location is not None
        return self.locate_weight * self.location(view)

    def _policy_decides(self, decision: str | None) -> bool:
        """Whether the policy makes this decision (by ``bidding`` and ``declaring``), not the search."""
        if decision == "auction":
            return self.bidding == "network"
        return decision in DECLARING_DECISIONS and self.declaring == "network"
