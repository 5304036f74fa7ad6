"""``pimc:evaluate=heuristic``: the original ``pimc`` bot, kept whole for comparison.

(The default ``pimc`` searches with the compiled kernel: :mod:`agents.search.pimc`.)

For a card to play, :class:`HeuristicPIMC` draws deals consistent with everything its seat knows
(:class:`agents.search.original.sampling.DealSampler`), and on every drawn deal plays each legal card followed by
a heuristic playout of the rest of the hand for all four seats (each seat deciding from its own
view of the drawn deal). The card with the best average hand-score margin of its team wins.
The auction, trump, passing and throw-in decisions are the heuristic's. It plays the partnership
game only, and refuses the others (:meth:`HeuristicPIMC.check_rules`). Everything here is as it
was before the kernel (commit 9cb0729); ``tests/agents/search/test_pimc.py`` holds it to that agent's recorded
decisions.
"""

from __future__ import annotations

import pickle
import time
from typing import cast

import numpy as np

from pinochle_env import Game, PlayerView
from pinochle_env import rules as R
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import Phase
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ...heuristic import HeuristicAgent
from .sampling import DealSampler


class HeuristicPIMC:
    """Perfect-information Monte Carlo player: samples deals, plays each legal card out, keeps the best.

    ``samples`` deals are evaluated per card decision, fewer if ``budget`` seconds run out first
    (at least one is always evaluated). Ties, and positions where no consistent deal could be
    drawn, go to the heuristic's choice. Decisions are reproducible for a seed as long as the
    budget does not cut sampling short.

    Speed at the default (``samples=16``, ``budget=1.0``), measured on one core of the
    development machine over six whole hands against the heuristic: about 9 card decisions per
    second, forced plays included (about 6 per second when more than one card is legal); the
    slowest decision, early in the hand, took 0.8 s.
    """

    def __init__(self, seed: int | None = None, samples: int = 16, budget: float = 1.0) -> None:
        if samples < 1:
            raise ValueError(f"pimc needs samples >= 1, got {samples}")
        if budget <= 0:
            raise ValueError(f"pimc needs a positive budget in seconds, got {budget}")
        self.name = "pimc:evaluate=heuristic"
        self.samples = samples
        self.budget = budget
        self.heuristic = HeuristicAgent(seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.heuristic.reset(seed)
        self._rng = np.random.default_rng(seed)

    def check_rules(self, rules: Rules) -> None:
        """Refuse a game other than the partnership game, whose engine the bot replays its deals
        through (``ValueError``)."""
        if variant_kit(rules).game_class is not Game:
            raise ValueError(
                f"pimc:evaluate=heuristic plays the partnership game only, not variant={rules.variant!r} "
                "(use the default pimc, heuristic, random or a checkpoint there)"
            )

    def act(self, view: View, mask: np.ndarray) -> int:
        self.check_rules(view.rules)
        own = cast(PlayerView, view)  # check_rules: the partnership game
        legal = np.flatnonzero(mask).tolist()
        if own.phase != Phase.PLAY or len(legal) == 1:
            return self.heuristic.act(own, mask)
        card0 = variant_kit(own.rules).layout.card0
        return card0 + self.choose_play(own, [a - card0 for a in legal])

    def choose_play(self, view: PlayerView, cards: list[int]) -> int:
        """The legal card (type) with the best average margin over the sampled deals."""
        fallback = self.heuristic.choose_play(view, cards)
        margins = self.evaluate(view, cards)
        if margins is None:
            return fallback
        return max(cards, key=lambda c: (margins[c], c == fallback))

    def evaluate(self, view: PlayerView, cards: list[int]) -> dict[int, float] | None:
        """Average team margin of each card over the sampled deals (None if no deal could be drawn)."""
        deadline = time.perf_counter() + self.budget
        sampler = DealSampler(view)
        totals = dict.fromkeys(cards, 0.0)
        drawn = 0
        while drawn < self.samples and (not drawn or time.perf_counter() < deadline):
            game = sampler.sample(self._rng)
            if game is None:
                break
            drawn += 1
            snapshot = pickle.dumps(game)  # one copy per card: loading a pickle is cheaper than clone()
            for c in cards:
                totals[c] += self._playout(pickle.loads(snapshot), c, view.seat)
        return {c: total / drawn for c, total in totals.items()} if drawn else None

    def _playout(self, game: Game, first: int, seat: int) -> float:
        """``seat``'s team margin (hand score) after playing ``first`` and the heuristic for everyone after."""
        card0 = game.layout.card0
        game.apply(card0 + first)
        while not game.hand_over:
            cards = R.bits_to_cards(game.legal_bits() >> card0)
            choice = cards[0] if len(cards) == 1 else self.heuristic.choose_play(playout_view(game), cards)
            game.apply(card0 + choice)
        team = seat % 2
        score = game.score
        assert score is not None  # the hand is over
        return float(score[team] - score[1 - team])


def playout_view(game: Game) -> PlayerView:
    """The view of the seat to act in a drawn deal during play, read straight off the game's state.

    Equal to ``game.view(game.to_act)`` (the tests check it) but without rereading the event log,
    which playouts would otherwise do for every card. During play both partners of the declaring
    team know both sets of passed cards; the defenders know neither.
    """
    seat, declarer = game.to_act, game.declarer
    passed: list[int] = []
    received: list[int] = []
    if seat == declarer:
        passed, received = game.passed_back, game.passed_to_declarer
    elif seat == (declarer + 2) % 4:
        passed, received = game.passed_to_declarer, game.passed_back
    return game.view_with_private(seat, list(game.hands[seat]), list(passed), list(received))
