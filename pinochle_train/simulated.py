"""Simulated values of the auction's calls on the true deal: the labels of the learned bidding.

At an auction decision of a training hand every hand is known. Each legal call is valued by
playing that deal out once on the compiled kernel (:func:`pinochle_env.kernel.search.simulate_hands`:
trump, passing, the throw-in and the card play follow the heuristic bot, every seat deciding from
its own knowledge), as the seat's team margin (its team's hand score minus the other's):

- a **bid** of ``c``: the seat declares and the hand is played at ``c``, thrown in where it cannot
  be made (the contract beyond the team's meld plus every trick point) unless ``throw_in="never"``;
  one play-out serves every legal bid, which differ only in the contract it is scored against;
- **pass** (and **pass with help**): the current high bidder declares at the high bid; before any
  bid the dealer at 250 where the dealer is stuck, and nothing (a redeal) under
  ``all_pass="redeal"``. The others' later calls are not simulated, as in the search bot's own
  bidding (:mod:`agents.simulation`), whose choice this is at a tiny fraction of its cost;
- pass and pass with help are worth the same; the one the heuristic would call is preferred by
  :data:`HELP_PREFERENCE` points, so that the help flag keeps the heuristic's meaning.

One deal is a noisy sample of what a call is worth given what the seat knows; a network fitted to
many of them by regression (:func:`pinochle_train.cloning.cloning_loss`) learns the expectation
over the deals its seat cannot tell apart, weighted as they occur in the training hands, the
other seats' calls included. That is the search bot's bidding without its sampling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.heuristic import HeuristicAgent
from pinochle_env.kernel.search import simulate_hands
from pinochle_env.kernel.state import partnership_scores
from pinochle_env.switches import MIN_BID

#: Points by which the call the heuristic would make (pass, or pass with help) is preferred to the other.
HELP_PREFERENCE = 5.0


def auction_values(game: Any, heuristic: HeuristicAgent, rng: np.random.Generator) -> dict[int, float]:
    """Each legal call's simulated value (action id -> points of the seat's team margin) at the
    partnership auction decision of ``game``; ``heuristic`` gives the play-outs' tie-breaks and the
    help choice, ``rng`` their random streams."""
    rules, layout, seat = game.rules, game.layout, game.to_act
    legal = game.legal_actions()
    dealt = np.array([list(hand) for hand in game.hands], dtype=np.int8)[None]
    order = heuristic.tie_break_order
    seeds = rng.integers(0, 2**63, size=2, dtype=np.uint64)
    team = seat % 2
    values: dict[int, float] = {}

    bids = [a for a in legal if a < layout.num_bids]
    if bids:
        contracts = np.array([layout.bid_value(a) for a in bids])
        played = simulate_hands(rules, dealt, seat, int(contracts[0]), throw_in="play", order=order, seeds=seeds[:1])
        count = len(bids)
        meld, points, tricks = (np.repeat(part, count, axis=0) for part in (played.meld, played.points, played.tricks))
        team_meld = meld[:, seat] + meld[:, (seat + 2) % 4]
        thrown = (contracts - team_meld > 250) & (rules.throw_in != "never")
        scores = partnership_scores(rules, seat, contracts, meld, points, tricks, thrown)
        values.update(zip(bids, (scores[:, team] - scores[:, 1 - team]).tolist(), strict=True))

    calls = [a for a in legal if a in (layout.passing, layout.help)]
    if calls:
        passing = _passing_value(game, dealt, order, seeds[1:], team)
        preferred = layout.help if heuristic.helps(game.view(seat).hand, rules.run_extras) else layout.passing
        for call in calls:
            values[call] = passing - (HELP_PREFERENCE if len(calls) > 1 and call != preferred else 0.0)
    return values


def _passing_value(game: Any, dealt: np.ndarray, order: list[int], seeds: np.ndarray, team: int) -> float:
    """The team's margin when the seat passes (see the module docstring)."""
    rules = game.rules
    if game.high_bidder >= 0:
        declarer, contract = game.high_bidder, game.high_bid
    elif rules.all_pass == "redeal":
        return 0.0
    else:
        declarer, contract = game.dealer, MIN_BID
    played = simulate_hands(rules, dealt, declarer, contract, order=order, seeds=seeds)
    scores = partnership_scores(rules, declarer, contract, played.meld, played.points, played.tricks, played.thrown)
    return float(scores[0, team] - scores[0, 1 - team])
