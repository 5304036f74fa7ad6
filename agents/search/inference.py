"""Deals weighted by how well they explain the other seats' calls and plays (policy-based inference).

A deal drawn uniformly among those consistent with a view (:func:`pinochle_env.kernel.sample_deals`)
ignores what the other players' choices say about their cards. Here ``pool`` times as many deals
as wanted are drawn and each is weighted by ``calls`` to the power of the number of the other
seats' auction calls (views before meld) that the heuristic bot would not have made with that
deal's cards, and by ``plays`` to the power of the number of their card plays (views during play)
it would not have made (:meth:`pinochle_env.kernel.DealConstraints.mismatches`); the wanted number
is then drawn from the pool without replacement in proportion to the weights (the Gumbel top-k
draw). A factor of 1 leaves that kind of evidence out; a small one trusts the heuristic as a
model of everyone. This is the skat programs' inference from the opponents' choices, with the
heuristic as the model.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def weighted_deals(
    view: Any, count: int, pool: int, calls: float, plays: float, rng: np.random.Generator, order: list[int]
) -> Any:
    """``count`` deals for ``view`` drawn as the module docstring says (a ``Deals``, possibly empty)."""
    from pinochle_env.kernel import DealConstraints

    constraints = DealConstraints(view)
    evidence = plays < 1 if not constraints.dealt else calls < 1
    deals = constraints.draw(count * pool if evidence else count, int(rng.integers(2**63)))
    if not evidence or len(deals) <= count:
        return deals.subset(slice(0, count))
    play_misses, call_misses = constraints.mismatches(deals, order)
    keys = play_misses * np.log(plays) + call_misses * np.log(calls) + rng.gumbel(size=len(deals))
    return deals.subset(np.argsort(-keys, kind="stable")[:count])
