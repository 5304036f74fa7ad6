"""The search bot's decisions before the first card, by simulation on the compiled kernel.

Each decision draws deals consistent with the seat's view (:func:`pinochle_env.kernel.sample_deals`,
weighted by the other seats' calls: :mod:`agents.search.inference`) and plays every candidate out on the
same deals and random streams: passing, meld, the throw-in rule and the card play follow the
heuristic bot for every seat (:func:`agents.search.kernel.simulate_hands`). The candidate
with the best average hand-score margin for the seat's team wins; ties go to the heuristic's own
choice. Where there are more than two candidates they race (successive halving): all on the first
quarter of the deals (from 256 deals a sixteenth, and so on: :func:`race`), the best quarter of them
on the next stage, until the leaders meet all the deals.

- **Throw-in** (partnership and cutthroat): play on, valued by play-outs of the hand from the
  first lead against the contract, or throw in, whose score is known exactly.
- **Trump**: every suit, each simulated from the passing on.
- **Passing** (the partner's pass to the declarer, the declarer's pass back): the heuristic's set
  of cards and every set that swaps one of its cards (up to ``pass_swaps`` of them) for other cards
  of the hand, evaluated on deals of the hidden hands; the winning set is kept as the plan for the rest of the passing.
- **Bid**: declaring at the smallest legal raise, with the trump best over the deals, against
  passing, valued as the current high bidder (before any bid, the dealer) declaring at the current
  contract with the heuristic's trump. The other seats' later calls are not simulated (playing the
  rest of the auction out with the others calling as the heuristic, and a ceiling for this seat,
  did worse: 17.7 +- 15.7 points per hand less against the heuristic over 1,000 deal pairs).

Fallbacks that remain: the choice between passing and passing with help is the heuristic's (the
help flag only signals); the cutthroat auction, trump and burying and the two-handed game's meld
turns are the heuristic's; a short of exactly 250 (or ``throw_in="always"``) in a simulated hand
is decided by the heuristic's rule, and the simulated bid plays a hand short of exactly 250 (the
throw-in choice there is not simulated).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from pinochle_env.actions import ActionLayout
from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import PlayerView
from pinochle_env.protocol import AuctionView, View
from pinochle_env.rules.switches import MIN_BID

from ..heuristic import HeuristicAgent
from ..heuristic.games import heuristic_rules
from .inference import weighted_deals

#: The fewest deals in a stage of :func:`race` before its first quarter: each such stage is a quarter
#: of the next, and none is added below this many deals (the first quarter is always a stage).
RACE_FIRST_STAGE = 16


class Simulator:
    """The simulated decisions of the module docstring, for one seat's agent.

    ``simulations`` deals per decision (``pass_simulations`` per passing decision, whose candidate
    sets swap up to ``pass_swaps`` of the heuristic's cards); ``rng`` draws the deals' and
    play-outs' seeds; ``heuristic`` gives the tie-breaks, the candidates' starting point and the
    fallbacks.
    """

    def __init__(
        self,
        simulations: int,
        rng: np.random.Generator,
        heuristic: HeuristicAgent,
        infer: float,
        infer_play: float,
        pool: int,
        pass_simulations: int,
        pass_swaps: int,
    ) -> None:
        self.simulations, self.pass_simulations, self.pass_swaps = simulations, pass_simulations, pass_swaps
        self.rng = rng
        self.heuristic = heuristic
        self.infer, self.infer_play, self.pool = infer, infer_play, pool
        self._plan: tuple[tuple[Any, ...], list[int]] | None = None

    # ------------------------------------------------------------------ shared

    def _weighted(self, view: View, count: int) -> Any:
        """``count`` deals for ``view``, weighted by the other seats' calls and plays
        (:mod:`agents.search.inference`)."""
        order = self.heuristic.tie_break_order
        return weighted_deals(view, count, self.pool, self.infer, self.infer_play, self.rng, order)

    def _deals(self, view: View, count: int) -> np.ndarray | None:
        """The hands of :meth:`_weighted` deals (None when none can be drawn)."""
        deals = self._weighted(view, count)
        return deals.hands if len(deals) else None

    def _seeds(self, count: int) -> np.ndarray:
        return self.rng.integers(0, 2**63, size=count, dtype=np.uint64)

    def _margins(self, view: PlayerView, declarer: int, contract: Any, hands: Any) -> np.ndarray:
        """The seat's team margin (N,) in simulated hands (a :class:`SimulatedHands`)."""
        from pinochle_env.games.partnership.search import partnership_scores

        scores = partnership_scores(
            view.rules, declarer, contract, hands.meld, hands.points, hands.tricks, hands.thrown
        )
        team = view.seat % 2
        return (scores[:, team] - scores[:, 1 - team]).astype(np.float64)

    # ------------------------------------------------------------------ throw-in

    def throw_in(self, view: AuctionView) -> bool:
        """Whether to throw in: play-outs from the first lead against the exact thrown-in score."""
        from pinochle_env.kernel import PlayState

        from .kernel import play_out

        deals = self._weighted(view, self.simulations)
        if not len(deals):
            return self.heuristic_throw_in(view)
        state = PlayState.from_view(view)
        policy = heuristic_rules(view.rules).PLAY_OUT_POLICY
        order = self.heuristic.tie_break_order
        seed = int(self.rng.integers(2**62))
        played = play_out(state, policy=policy, seed=seed, order=order, deals=deals).margins.mean()
        return bool(state.scoring.thrown_in() > played)

    def heuristic_throw_in(self, view: AuctionView) -> bool:
        """The heuristic's throw-in choice: the fallback when no consistent deal can be drawn."""
        layout = variant_kit(view.rules).layout
        mask = np.zeros(layout.size, dtype=np.int8)
        mask[[layout.throw_in, layout.play_on]] = 1
        return self.heuristic.act(view, mask) == layout.throw_in

    # ------------------------------------------------------------------ trump

    def trump(self, view: PlayerView) -> int:
        """The suit with the best average margin over simulated hands."""
        from .kernel import simulate_hands

        fallback = self.heuristic.choose_trump(view.hand, view.rules.run_extras)
        dealt = self._deals(view, self.simulations)
        if dealt is None:
            return fallback
        seeds = self._seeds(len(dealt))
        order = self.heuristic.tie_break_order

        def margins(suit: int, part: slice) -> np.ndarray:
            hands = simulate_hands(view.rules, dealt[part], view.seat, view.contract, suit, order=order,
                                   seeds=seeds[part])  # fmt: skip
            return self._margins(view, view.seat, view.contract, hands)

        values = race(self.simulations, 4, margins)
        return max(range(4), key=lambda t: (values[t], t == fallback))

    # ------------------------------------------------------------------ passing

    def pass_card(self, view: PlayerView, cards: list[int]) -> int:
        """The next card of the passing plan, made at the seat's first pass of the hand."""
        key = (view.dealer, view.declarer, view.phase, tuple(view.totals), tuple(view.auction))
        passed = list(view.cards_passed)
        if self._plan is not None and self._plan[0] == key:
            plan = self._plan[1]
            if plan[: len(passed)] == passed and len(plan) > len(passed) and plan[len(passed)] in cards:
                return plan[len(passed)]
        plan = self._choose_passes(view)
        self._plan = (key, plan)
        return plan[len(passed)]

    def _greedy_passes(self, view: PlayerView) -> list[int]:
        """The cards the heuristic would pass from here on, one decision at a time."""
        hand = list(view.hand)
        passed = list(view.cards_passed)
        chosen: list[int] = []
        layout = variant_kit(view.rules).layout
        for _ in range(view.rules.pass_count - len(passed)):
            step = dataclasses.replace(view, hand=list(hand), cards_passed=passed + chosen)
            mask = np.zeros(layout.size, dtype=np.int8)
            mask[[layout.card0 + c for c in range(NUM_TYPES) if hand[c]]] = 1
            c = self.heuristic.act(step, mask) - layout.card0
            chosen.append(c)
            hand[c] -= 1
        return chosen

    def _choose_passes(self, view: PlayerView) -> list[int]:
        """The whole set to pass: the heuristic's, or a set that swaps up to ``pass_swaps`` of its cards
        (:func:`swapped_sets`) and simulates better."""
        from .kernel import simulate_hands

        passed = list(view.cards_passed)
        greedy = self._greedy_passes(view)
        dealt = self._deals(view, self.pass_simulations)
        if dealt is None or not greedy:
            return passed + greedy
        unique = swapped_sets(list(view.hand), greedy, self.pass_swaps)
        declaring = view.seat == view.declarer
        seeds = self._seeds(len(dealt))
        order = self.heuristic.tie_break_order
        rules = view.rules
        received = np.bincount(view.cards_received, minlength=NUM_TYPES)
        known_to = declaring and rules.pass_mode == "sequential"

        def margins(index: int, part: slice) -> np.ndarray:
            deals = dealt[part]
            given = np.broadcast_to(np.bincount(passed + unique[index], minlength=NUM_TYPES), (len(deals), NUM_TYPES))
            if declaring:
                to_declarer = np.broadcast_to(received, given.shape) if known_to else None
                back = given
            else:
                to_declarer, back = given, None
            hands = simulate_hands(rules, deals, view.declarer, view.contract, view.trump, (to_declarer, back),
                                   order=order, seeds=seeds[part])  # fmt: skip
            return self._margins(view, view.declarer, view.contract, hands)

        values = race(self.pass_simulations, len(unique), margins)
        best = max(range(len(unique)), key=lambda i: (values[i], i == 0))
        return passed + unique[best]

    # ------------------------------------------------------------------ bid

    def bid(self, view: PlayerView, legal: list[int]) -> int:
        """Raise to the smallest legal bid when declaring there beats passing, over simulated deals."""
        layout = variant_kit(view.rules).layout
        bids = [a for a in legal if a < layout.num_bids]
        passing = self._pass_call(view, legal, layout)
        dealt = self._deals(view, self.simulations) if bids else None
        if dealt is None:
            return passing if not bids else self.heuristic.act(view, _mask(layout, legal))
        contract = layout.bid_value(bids[0])
        seeds = self._seeds(len(dealt))
        if self._declaring_value(view, dealt, seeds, contract) > self._passing_value(view, dealt, seeds):
            return bids[0]
        return passing

    def _declaring_value(self, view: PlayerView, dealt: np.ndarray, seeds: np.ndarray, contract: int) -> float:
        """The team's average margin declaring at ``contract``, with the trump best over the deals."""
        from .kernel import simulate_hands

        order = self.heuristic.tie_break_order
        partner = (view.seat + 2) % 4

        def margins(suit: int, part: slice) -> np.ndarray:
            hands = simulate_hands(view.rules, dealt[part], view.seat, contract, suit, throw_in="play", order=order,
                                   seeds=seeds[part])  # fmt: skip
            if view.rules.throw_in == "seed":
                hands = hands._replace(thrown=contract - hands.meld[:, view.seat] - hands.meld[:, partner] > 250)
            return self._margins(view, view.seat, contract, hands)

        return float(race(self.simulations, 4, margins).max())

    def _passing_value(self, view: PlayerView, dealt: np.ndarray, seeds: np.ndarray) -> float:
        """The team's average margin when the high bidder (before any bid: the dealer) declares at
        the current contract with the heuristic's trump."""
        from .kernel import simulate_hands

        declarer = view.high_bidder if view.high_bidder >= 0 else view.dealer
        contract = max(view.high_bid, MIN_BID)
        hands = simulate_hands(view.rules, dealt, declarer, contract, -1, order=self.heuristic.tie_break_order,
                               seeds=seeds)  # fmt: skip
        return float(self._margins(view, declarer, contract, hands).mean())

    def _pass_call(self, view: PlayerView, legal: list[int], layout: ActionLayout) -> int:
        """Pass, or pass with help where the heuristic would signal (the help choice is its)."""
        calls = [a for a in legal if a in (layout.passing, layout.help)]
        if layout.help in calls and self.heuristic.helps(view.hand, view.rules.run_extras):
            return layout.help
        return layout.passing


def swapped_sets(hand: list[int], base: list[int], swaps: int) -> list[list[int]]:
    """``base`` (cards by type), then each other set of as many cards of ``hand`` (counts by type)
    that keeps all but at most ``swaps`` of its cards, each set once (the first list found of it).
    One swap: each of ``base``'s cards in turn replaced by each other card type the hand has left."""
    candidates = [base]
    for i, out in enumerate(base):
        rest = base[:i] + base[i + 1 :]
        candidates += [[*rest[:i], c, *rest[i:]] for c in range(NUM_TYPES) if c != out and rest.count(c) < hand[c]]
    unique = {tuple(sorted(c)): c for c in candidates}
    for count in range(2, min(swaps, len(base)) + 1):
        for dropped in itertools.combinations(range(len(base)), count):
            rest = [c for i, c in enumerate(base) if i not in dropped]
            spare = [c for c in range(NUM_TYPES) for _ in range(hand[c] - rest.count(c))]
            for extra in itertools.combinations(spare, count):
                unique.setdefault(tuple(sorted(rest + list(extra))), rest + list(extra))
    return list(unique.values())


def race(total: int, count: int, margins: Callable[[int, slice], np.ndarray]) -> np.ndarray:
    """The mean margin of each of ``count`` candidates over ``total`` deals, by successive halving.

    ``margins(candidate, deals)`` gives the seat's team margins on a slice of the deals (the same
    deals and random streams for every candidate). Every candidate is played on the first stage of
    the deals; after each stage the best quarter of those still in (at least two) go on to the next,
    and only the last ones' means are finite: where many candidates are close, the deals go to
    those still in contention. The stages end at a quarter of the deals, a sixteenth, and so on,
    while a stage has at least 16 deals (the first quarter always): 64 deals race in two stages
    (16, 64), 256 in three (16, 64, 256), which costs 256 deals about half as much as two stages.
    """
    if count <= 2 or total < 8:
        return np.array([margins(i, slice(0, total)).mean() for i in range(count)])
    ends = [total, total // 4]
    while ends[-1] // 4 >= RACE_FIRST_STAGE:
        ends.append(ends[-1] // 4)
    alive = list(range(count))
    sums = np.zeros(count)
    start = 0
    for stage, end in enumerate(reversed(ends)):
        if stage:
            alive = sorted(alive, key=lambda i: -sums[i])[: max(2, len(alive) // 4)]
        for i in alive:
            sums[i] += margins(i, slice(start, end)).sum()
        start = end
    means = np.full(count, -np.inf)
    means[alive] = sums[alive] / total
    return means


def _mask(layout: ActionLayout, legal: list[int]) -> np.ndarray:
    mask = np.zeros(layout.size, dtype=np.int8)
    mask[legal] = 1
    return mask
