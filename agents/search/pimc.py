"""``pimc``: perfect-information Monte Carlo search on the compiled kernel (:mod:`.kernel`).

**Card play.** For a card with a choice, :class:`PIMCAgent` draws ``samples`` deals consistent with
everything its seat knows (:func:`pinochle_env.kernel.sample_deals`), weighted by how well they
explain the other seats' plays (:mod:`agents.search.inference`), and values every legal card on every
deal: exactly, with the end-game solver, once at most ``solve`` tricks are left; before that by
playing the hand out with the compiled heuristic play-out policy (every seat deciding from its own
knowledge of the deal) down to ``leaf`` tricks left, solved exactly from there. Values are the
seat's hand-score margin; every card meets the same deals and random streams; the best average
wins, ties going to the heuristic's choice. The two-handed game's phase 2 needs no sampling
(every card is known): it is solved outright.

**Other decisions** (:mod:`agents.search.simulation`) are simulated where the partnership game has them
(bid, trump, passing, throw-in; cutthroat's throw-in), otherwise the heuristic's: the fallbacks
are listed there. ``docs/search.md`` explains the methods.

``pimc:evaluate=heuristic`` is the original bot, whole (:mod:`agents.search.original.bot`: heuristic
play-outs in Python, heuristic bidding, trump, passing and throw-in, ``samples=16,budget=1.0``).

Parameters (``pimc:samples=32,budget=0.5``), with their defaults:

- ``evaluate`` = ``search`` | ``heuristic`` (the original bot);
- ``samples`` (search: 24; heuristic: 16): deals per card decision;
- ``budget`` (1.0): seconds a card decision may take; sampling stops when it runs out (after the
  first batch of deals), the only way a decision can depend on the machine rather than the seed;
- ``nodes`` (5,000,000, about a second of solving on the development machine): exact-solver nodes
  a card decision may visit over all its deals, checked inside the compiled search, so that one hard
  deal cannot overrun the decision (the deal it stops in is left out; where it stops in the first
  deal, the heuristic's card is played);
- ``solve`` (per game, as its search adapter declares: partnership 4, cutthroat 5, two-handed
  12): tricks left, the one in
  progress included, from which card decisions are solved exactly on each deal; ``leaf`` (3):
  tricks left at which play-outs switch to exact solving (0: play every hand out);
- ``simulations`` (64): deals per auction, trump, passing or throw-in decision (where there are
  more than two candidates, only the best quarter of them meet all the deals:
  :func:`agents.search.simulation.race`); ``pass_simulations`` (``simulations``): deals per
  passing decision instead (256 of them: +6.4 [-1.3, +14.0] a hand over 2,000 reserved deal
  pairs, ``docs/search.md``); ``pass_swaps`` (1): how many of the heuristic's cards a candidate set
  of passes may swap for other cards of the hand (2: about 7 times the sets and the passing
  decision's time; +6.6 [+0.0, +13.3] a hand over one swap with the network's play, tuning deals,
  and +13.3 [+5.2, +21.3] in the guided search, reserved deals: ``docs/search.md``);
- ``infer`` (0.05) and ``infer_play`` (0.2): the weight of a deal per auction call, and per card
  play, of another seat that the heuristic would not have made with that deal's cards (1: no
  weighting); ``pool`` (3): deals drawn per deal kept, for the weighting.

``locations`` (not a spec parameter: ``guided:locate=`` gives it) is a model of where the hidden
cards are that adds its evidence to the weighting in card play (:mod:`agents.search.inference`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from pinochle_env.cards import NUM_TYPES
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import PlayerView
from pinochle_env.protocol import AuctionView, View
from pinochle_env.rules.switches import Rules

from ..base import legal_actions
from ..heuristic import HeuristicAgent
from ..heuristic.games import heuristic_rules
from .inference import weighted_deals
from .original.bot import HeuristicPIMC
from .simulation import Simulator

#: Card decisions evaluate deals in batches of this many, checking the time budget between them.
BATCH = 8
EVALUATORS = ("search", "heuristic")
#: The phases of card play, by name (the two-handed game's second phase included).
PLAY_PHASES = ("PLAY", "PLAY2")
#: Deals per card decision and seconds per decision, per evaluator, where not given.
DEFAULT_SAMPLES = {"search": 24, "heuristic": 16}
DEFAULT_BUDGET = {"search": 1.0, "heuristic": 1.0}
#: A drawn deal's weight per call and per card play of another seat that the heuristic would not
#: have made (:mod:`agents.search.inference`), where not given.
DEFAULT_INFER, DEFAULT_INFER_PLAY = 0.05, 0.2
#: Tricks left from which play-outs stop and each deal is solved exactly, where not given.
DEFAULT_LEAF = 3
#: Exact-solver nodes a card decision may visit over all its deals, where not given.
DEFAULT_NODES = 5_000_000
#: The most deals a decision may draw (``samples`` or ``simulations``, times ``pool``): about 0.8 GB
#: of deals, where a mistyped count would exhaust the memory (and take days).
MAX_DRAWN = 1_000_000
#: The longest time budget a decision may have (seconds): an hour.
MAX_BUDGET = 3600.0
#: The most of the heuristic's passed cards a candidate set may swap (``pass_swaps``): as many as
#: any rule set passes, at which every set of the hand is a candidate.
MAX_PASS_SWAPS = 4


class PIMCAgent:
    """The search bot of the module docstring (``evaluate="heuristic"``: the original bot)."""

    def __init__(  # noqa: PLR0913 (one keyword per parameter of the agent spec)
        self,
        seed: int | None = None,
        evaluate: str = "search",
        samples: int | None = None,
        budget: float | None = None,
        nodes: int = DEFAULT_NODES,
        solve: int | None = None,
        leaf: int = DEFAULT_LEAF,
        simulations: int = 64,
        pass_simulations: int | None = None,
        pass_swaps: int = 1,
        infer: float = DEFAULT_INFER,
        infer_play: float = DEFAULT_INFER_PLAY,
        pool: int = 3,
        locations: Callable[[View], np.ndarray] | None = None,
    ) -> None:
        if evaluate not in EVALUATORS:
            raise ValueError(f"pimc parameter evaluate={evaluate!r} is not one of {', '.join(EVALUATORS)}")
        samples = DEFAULT_SAMPLES[evaluate] if samples is None else samples
        budget = DEFAULT_BUDGET[evaluate] if budget is None else budget
        if samples < 1:
            raise ValueError(f"pimc parameter samples must be at least 1, got {samples}")
        if not (math.isfinite(budget) and 0 < budget <= MAX_BUDGET):
            raise ValueError(
                f"pimc parameter budget must be a number of seconds above 0, at most {MAX_BUDGET:g}, got {budget}"
            )
        if nodes < 1:
            raise ValueError(f"pimc parameter nodes must be at least 1, got {nodes}")
        if solve is not None and not 0 <= solve <= 24:
            raise ValueError(f"pimc parameter solve must be 0..24 tricks, got {solve}")
        if not 0 <= leaf <= 15:
            raise ValueError(f"pimc parameter leaf must be 0..15 tricks, got {leaf}")
        pass_simulations = simulations if pass_simulations is None else pass_simulations
        for name, count in (("simulations", simulations), ("pass_simulations", pass_simulations)):
            if count < 1:
                raise ValueError(f"pimc parameter {name} must be at least 1, got {count}")
        if not 1 <= pass_swaps <= MAX_PASS_SWAPS:
            raise ValueError(f"pimc parameter pass_swaps must be 1..{MAX_PASS_SWAPS} cards, got {pass_swaps}")
        if not 0 < infer <= 1:
            raise ValueError(f"pimc parameter infer must be in (0, 1], got {infer}")
        if not 0 < infer_play <= 1:
            raise ValueError(f"pimc parameter infer_play must be in (0, 1], got {infer_play}")
        if pool < 1:
            raise ValueError(f"pimc parameter pool must be at least 1, got {pool}")
        for name, count in (("samples", samples), ("simulations", simulations), ("pass_simulations", pass_simulations)):
            if count * pool > MAX_DRAWN:
                raise ValueError(
                    f"pimc parameters {name} ({count}) times pool ({pool}) must be at most {MAX_DRAWN:,} deals drawn"
                )
        self.name = "pimc" if evaluate == "search" else "pimc:evaluate=heuristic"
        self.evaluate = evaluate
        self.samples, self.budget, self.nodes = samples, budget, nodes
        self.solve, self.leaf, self.simulations, self.pass_simulations = solve, leaf, simulations, pass_simulations
        self.pass_swaps = pass_swaps
        self.infer, self.infer_play, self.pool = infer, infer_play, pool
        #: A model of where the hidden cards are, for card play (``guided:locate=``; not a spec parameter).
        self.locations = locations
        self.original = HeuristicPIMC(seed, samples, budget) if evaluate == "heuristic" else None
        self.heuristic = HeuristicAgent(seed)
        #: Card decisions searched, how many of them the budget cut short (deals drawn but not evaluated),
        #: and how many of those the time budget cut (the rest, the node budget).
        self.searched = self.cut_short = self.cut_on_time = 0
        self.reset(seed)

    def search_counts(self) -> tuple[int, int, int]:
        """Card decisions searched, cut short, and cut short by time (:func:`agents.base.search_counts`)."""
        return self.searched, self.cut_short, self.cut_on_time

    def reset(self, seed: int | None = None) -> None:
        self.heuristic.reset(seed)
        if self.original is not None:
            self.original.reset(seed)
        self._rng = np.random.default_rng(seed)
        self.simulator = Simulator(
            self.simulations,
            self._rng,
            self.heuristic,
            self.infer,
            self.infer_play,
            self.pool,
            self.pass_simulations,
            self.pass_swaps,
        )

    def check_rules(self, rules: Rules) -> None:
        """``evaluate=heuristic`` plays the partnership game only; the search plays every game."""
        if self.original is not None:
            self.original.check_rules(rules)

    def prepare(self, rules: Rules) -> None:
        """Compile the kernel (or load it from numba's cache) before any worker process starts."""
        if self.original is None:
            from .kernel import compile_search_kernel

            compile_search_kernel()

    def act(self, view: View, mask: np.ndarray) -> int:
        if self.original is not None:
            return self.original.act(view, mask)
        legal = legal_actions(view, mask).tolist()
        if len(legal) == 1:
            return legal[0]
        decision = view.phase.decision
        layout = variant_kit(view.rules).layout
        card0 = layout.card0
        if view.phase.name in PLAY_PHASES:
            return card0 + self.choose_card(view, [a - card0 for a in legal])
        if decision == "throw_in":  # a decision of the auction games
            return layout.throw_in if self.simulator.throw_in(cast(AuctionView, view)) else layout.play_on
        if heuristic_rules(view.rules).COMPILED_BIDDING:  # the kernel simulates hands of this game
            own = cast(PlayerView, view)  # the partnership game's, whose hands simulate_hands plays
            if decision == "auction":
                return self.simulator.bid(own, legal)
            if decision == "trump":
                return layout.trump0 + self.simulator.trump(own)
            return card0 + self.simulator.pass_card(own, [a - card0 for a in legal])
        return self.heuristic.act(view, mask)

    # ------------------------------------------------------------------ card play

    def act_with_values(self, view: View, mask: np.ndarray) -> tuple[int, dict[int, float] | None]:
        """:meth:`act`, with each legal card's searched value (by action id) where it searched the
        card (:func:`agents.base.decide_with_values`): the soft targets of imitation labels."""
        legal = np.flatnonzero(mask).tolist()
        if self.original is not None or len(legal) == 1 or view.phase.name not in PLAY_PHASES:
            return self.act(view, mask), None
        card0 = variant_kit(view.rules).layout.card0
        card, values = self._card_choice(view, [a - card0 for a in legal])
        return card0 + card, None if values is None else {card0 + c: v for c, v in values.items()}

    def choose_card(self, view: View, cards: list[int]) -> int:
        """The legal card (type) with the best average margin over the sampled deals."""
        return self._card_choice(view, cards)[0]

    def _card_choice(self, view: View, cards: list[int]) -> tuple[int, dict[int, float] | None]:
        """The card :meth:`choose_card` plays, and the values it chose by (None: the heuristic's card,
        no deal could be drawn or valued)."""
        fallback = self._heuristic_card(view, cards)
        values = self.card_values(view, cards)
        if values is None:
            return fallback, None
        return max(cards, key=lambda c: (values[c], c == fallback)), values

    def card_values(self, view: View, cards: list[int]) -> dict[int, float] | None:
        """Each legal card's (type's) average hand-score margin for the seat over the sampled deals,
        as the search values them; None when no deal consistent with the view can be drawn, or the
        node budget ran out in the first. A
        network-guided search (:mod:`agents.search.guided`) weighs these against a policy's prior."""
        from pinochle_env.kernel import PlayState, adapter_for
        from pinochle_env.kernel.solver import node_budget

        from .kernel.playouts import evaluate_cards

        state = PlayState.from_view(view)
        seat = view.seat
        deals = self._deals(view, state)
        if deals is None:
            return None
        hands, gifts, bonus = deals
        solve = state.left <= (adapter_for(view.rules).solve_from if self.solve is None else self.solve)
        policy = heuristic_rules(view.rules).PLAY_OUT_POLICY
        seeds = self._rng.integers(0, 2**63, size=len(hands), dtype=np.uint64)
        order = self.heuristic.tie_break_order
        deadline = time.perf_counter() + self.budget
        totals = np.zeros(NUM_TYPES if solve else len(cards))
        done = 0
        out_of_nodes = False
        with node_budget(self.nodes):
            while done < len(hands) and (not done or time.perf_counter() < deadline):
                part = slice(done, done + BATCH)
                scores = evaluate_cards(state, hands[part], gifts[part], cards, policy, seeds[part], self.leaf, solve,
                                        order)  # fmt: skip
                margins = state.scoring.margin(scores, bonus[done : done + len(scores), None])
                totals += (margins * state.scoring.factor[seat]).sum(axis=0)
                done += len(scores)
                out_of_nodes = len(scores) < len(hands[part])
                if out_of_nodes:
                    break
        self.searched += 1
        self.cut_short += done < len(hands)
        self.cut_on_time += done < len(hands) and not out_of_nodes
        if not done:
            return None
        means = (totals[cards] if solve else totals) / done
        return dict(zip(cards, means.tolist(), strict=True))

    def _deals(self, view: View, state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(hands, gifts, bonus) of the deals to search: sampled, or the one deal a view that leaves no
        card hidden shows (the two-handed game's phase 2); None when no consistent deal exists."""
        from pinochle_env.kernel import adapter_for

        known = adapter_for(view.rules).known_deal(view, state)
        if known is not None:
            return known[None], state.gifts[None], np.zeros(1, dtype=np.int64)
        order = self.heuristic.tie_break_order
        locations = self.locations(view) if self.locations is not None else None
        deals = weighted_deals(view, self.samples, self.pool, self.infer, self.infer_play, self._rng, order, locations)
        if not len(deals):
            return None
        return deals.hands, deals.gifts, deals.bonus

    def _heuristic_card(self, view: View, cards: list[int]) -> int:
        """The heuristic's card: the tie-break, and the choice when no deal can be drawn."""
        layout = variant_kit(view.rules).layout
        card0 = layout.card0
        mask = np.zeros(layout.size, dtype=np.int8)
        mask[[card0 + c for c in cards]] = 1
        return self.heuristic.act(view, mask) - card0
