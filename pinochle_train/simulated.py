"""Simulated values of the auction's calls on the true deal: the labels of the learned bidding.

At an auction decision of a training hand every hand is known. Each legal call is valued by
playing that deal out once on the compiled kernel (:func:`agents.search.kernel.simulate_hands`:
trump, passing, the throw-in and the card play follow the heuristic bot, every seat deciding from
its own knowledge), as the seat's team margin (its team's hand score minus the other's):

- a **bid** of ``c``: the seat declares and the hand is played at ``c``, thrown in where it cannot
  be made (the contract beyond the team's meld plus every trick point) unless ``throw_in="never"``;
  one play-out serves every legal bid, which differ only in the contract it is scored against;
- **pass** (and **pass with help**), by default: the current high bidder declares at the high bid;
  before any bid the dealer at 250 where the dealer is stuck, and nothing (a redeal) under
  ``all_pass="redeal"``. The others' later calls are not simulated, as in the search bot's own
  bidding (:mod:`agents.search.simulation`), whose choice this is at a tiny fraction of its cost;
- with ``rest_of_auction``, a pass is valued by the auction's end instead: the heuristic calls
  the rest of it for the other seats (the seat is out), the last bidder declares at its bid (the
  dealer at 250 where nobody bid and the dealer is stuck), and nothing is scored where everybody
  passed under ``all_pass="redeal"``. Under that rule the default makes every pass before the
  first bid worth nothing, though the seats after it would mostly bid and make: an agent fitted
  to it passed such hands to the heuristic (docs/experiments.md on the any-rules agent);
- pass and pass with help are worth the same (the rest of the auction follows the heuristic's own
  call of the two); that call is preferred by :data:`HELP_PREFERENCE` points, so that the help
  flag keeps the heuristic's meaning.

One deal is a noisy sample of what a call is worth given what the seat knows; a network fitted to
many of them by regression (:func:`pinochle_train.cloning.cloning_loss`) learns the expectation
over the deals its seat cannot tell apart, weighted as they occur in the training hands, the
other seats' calls included. That is the search bot's bidding without its sampling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import legal_mask
from agents.heuristic import HeuristicAgent
from agents.search.kernel import simulate_hands
from pinochle_env.games.partnership.search import partnership_scores
from pinochle_env.rules.switches import MIN_BID

#: Points by which the call the heuristic would make (pass, or pass with help) is preferred to the other.
HELP_PREFERENCE = 5.0


def auction_values(
    game: Any, heuristic: HeuristicAgent, rng: np.random.Generator, rest_of_auction: bool = False
) -> dict[int, float]:
    """Each legal call's simulated value (action id -> points of the seat's team margin) at the
    partnership auction decision of ``game``; ``heuristic`` gives the play-outs' tie-breaks, the
    help choice and (``rest_of_auction``) the other seats' later calls, ``rng`` the random streams."""
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
        helps = layout.help in calls and heuristic.helps(game.view(seat).hand, rules.run_extras)
        preferred = layout.help if helps else layout.passing
        declaring = _auction_end(game, preferred, heuristic) if rest_of_auction else _current_declarer(game)
        passing = 0.0
        if declaring is not None:
            declarer, contract = declaring
            played = simulate_hands(rules, dealt, declarer, contract, order=order, seeds=seeds[1:])
            scores = partnership_scores(
                rules, declarer, contract, played.meld, played.points, played.tricks, played.thrown
            )
            passing = float(scores[0, team] - scores[0, 1 - team])
        for call in calls:
            values[call] = passing - (HELP_PREFERENCE if len(calls) > 1 and call != preferred else 0.0)
    return values


def _current_declarer(game: Any) -> tuple[int, int] | None:
    """Declarer and contract if the auction ended at the current high bid (None: a redeal)."""
    if game.high_bidder >= 0:
        return game.high_bidder, game.high_bid
    if game.rules.all_pass == "redeal":
        return None
    return game.dealer, MIN_BID


def _auction_end(game: Any, call: int, heuristic: HeuristicAgent) -> tuple[int, int] | None:
    """Declarer and contract where the seat makes the passing ``call`` and the heuristic calls the
    rest of the auction (None: everybody passed and the deal is redealt)."""
    rest = game.clone()
    deal = rest.deal
    rest.apply(call)
    while rest.phase.decision == "auction" and rest.deal is deal:
        rest.apply(heuristic.act(rest.view(rest.to_act), legal_mask(rest)))
    if rest.deal is not deal:
        return None
    return rest.declarer, rest.contract
