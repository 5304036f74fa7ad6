"""Deals weighted by how well they explain the other seats' calls and plays (policy-based inference).

A deal drawn uniformly among those consistent with a view (:func:`pinochle_env.kernel.sample_deals`)
ignores what the other players' choices say about their cards. Here ``pool`` times as many deals
as wanted are drawn, each is weighted by ``infer`` to the power of the number of the other seats'
plays (during play) or auction calls (before meld) that the heuristic bot would not have made
with that deal's cards (:meth:`pinochle_env.kernel.DealConstraints.mismatches`), and the wanted
number is drawn from the pool without replacement in proportion to the weights (the Gumbel top-k
draw). ``infer=1`` draws uniformly; a small ``infer`` trusts the heuristic as a model of everyone.
This is the skat programs' inference from the opponents' play, with the heuristic as the model.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def weighted_deals(view: Any, count: int, pool: int, infer: float, rng: np.random.Generator, order: list[int]) -> Any:
    """``count`` deals for ``view`` drawn as the module docstring says (a ``Deals``, possibly empty)."""
    from pinochle_env.kernel import DealConstraints

    constraints = DealConstraints(view)
    wanted = count * pool if infer < 1 else count
    deals = constraints.draw(wanted, int(rng.integers(2**63)))
    if infer >= 1 or len(deals) <= count:
        return deals.subset(slice(0, count))
    plays, calls = constraints.mismatches(deals, order)
    keys = (plays + calls) * np.log(infer) + rng.gumbel(size=len(deals))
    return deals.subset(np.argsort(-keys, kind="stable")[:count])
