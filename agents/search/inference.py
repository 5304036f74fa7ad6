"""Deals weighted by how well they explain the other seats' calls and plays (policy-based inference).

A deal drawn uniformly among those consistent with a view (:func:`pinochle_env.kernel.sample_deals`)
ignores what the other players' choices say about their cards. Here ``pool`` times as many deals
as wanted are drawn and each is weighted by ``calls`` to the power of the number of the other
seats' auction calls (views before meld) that the heuristic bot would not have made with that
deal's cards, and by ``plays`` to the power of the number of their card plays (views during play)
it would not have made (:func:`mismatches`); the wanted number is then drawn from the pool without
replacement in proportion to the weights (the Gumbel top-k draw). A factor of 1 leaves that kind of
evidence out; a small one trusts the heuristic as a model of everyone. This is the skat programs'
inference from the opponents' choices, with the heuristic as the model.

During play a learned model of where the hidden cards are may add its own evidence
(``locations``, from :class:`agents.neural.location.LocationModel`, ``guided:locate=``): a
log-weight per copy of each card type a deal gives each other seat, summed over the deal's hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pinochle_env.protocol import View
from pinochle_env.rules.switches import CHOICES

from ..heuristic.games import heuristic_rules
from ..neural.location import other_seats

if TYPE_CHECKING:
    from pinochle_env.kernel import DealConstraints, Deals


def weighted_deals(
    view: View,
    count: int,
    pool: int,
    calls: float,
    plays: float,
    rng: np.random.Generator,
    order: list[int],
    locations: np.ndarray | None = None,
) -> Deals:
    """``count`` deals for ``view`` drawn as the module docstring says (possibly none);
    ``locations``: during play, the log-weight of a copy of each card type with each other seat
    ((other seats left to right, card types)), or None."""
    from pinochle_env.kernel import deal_constraints  # numba: only once a deal is drawn

    constraints = deal_constraints(view)
    evidence = (plays < 1 or locations is not None) if not constraints.dealt else calls < 1
    deals = constraints.draw(count * pool if evidence else count, int(rng.integers(2**63)))
    if not evidence or len(deals) <= count:
        return deals.subset(slice(0, count))
    play_misses, call_misses = mismatches(constraints, deals, order)
    keys = play_misses * np.log(plays) + call_misses * np.log(calls) + rng.gumbel(size=len(deals))
    if locations is not None and not constraints.dealt:
        keys += location_evidence(deals.hands, view.seat, locations)
    return deals.subset(np.argsort(-keys, kind="stable")[:count])


def location_evidence(hands: np.ndarray, seat: int, locations: np.ndarray) -> np.ndarray:
    """Per deal of ``hands`` ((deals, seats, card types) counts): the sum over the other seats
    and the card types of the copies the deal gives that seat times its entry of ``locations``
    ((other seats in :func:`~agents.neural.location.other_seats` order, card types))."""
    others = hands[:, other_seats(seat, hands.shape[1]), :]
    return np.einsum("dot,ot->d", others.astype(np.float64), locations)


def mismatches(constraints: DealConstraints, deals: Deals, order: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per deal: (plays, calls) of the other seats that the heuristic would not have made with that
    deal's hands (:func:`~agents.search.kernel.compiled.inference.play_mismatches` and
    :func:`~agents.search.kernel.compiled.inference.call_mismatches`; ``order``: the tie-break order).

    Plays are read from deals of the hands now (views during play), calls from deals as dealt
    (views before meld) in the partnership game; the other kind counts zero.
    """
    from pinochle_env.kernel.state import card_values, rules_vector

    from .kernel import POLICIES, compile_search_kernel
    from .kernel.compiled import inference as M

    compile_search_kernel()
    count = len(deals)
    plays = np.zeros(count, dtype=np.int64)
    calls = np.zeros(count, dtype=np.int64)
    rules, view = constraints.rules, constraints.view
    order = np.asarray(order, dtype=np.int64)
    if not deals.dealt and constraints.history.sizes.size:
        policy = POLICIES[heuristic_rules(rules).PLAY_OUT_POLICY]
        state = rules_vector(rules, view.trump, view.declarer, simple_last=False)
        M.play_mismatches(
            deals.hands, deals.gifts, constraints.history, view.seat, constraints.target_shown, state,
            card_values(rules), order, policy, plays,
        )  # fmt: skip
    if deals.dealt and heuristic_rules(rules).COMPILED_BIDDING and view.auction:
        table = calls_table(view.auction)
        extras = CHOICES["run_extras"].index(rules.run_extras)
        M.call_mismatches(
            deals.hands.astype(np.int64), table, view.seat, extras, rules.max_bid, rules.pass_with_help, calls
        )
    return plays, calls


def calls_table(auction: list[tuple[int, int | str]]) -> np.ndarray:
    """An auction's calls as the kernel reads them: rows (seat, kind 0 bid / 1 pass / 2 help, bid)."""
    kinds = {"pass": 1, "help": 2}
    rows = [[seat, kinds[call], 0] if isinstance(call, str) else [seat, 0, call] for seat, call in auction]
    return np.array(rows, dtype=np.int64).reshape(len(rows), 3)
