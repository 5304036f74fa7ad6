"""The whole-deal analysis: the Pinochle counterpart of a bridge double-dummy table.

For a partnership deal as dealt, each declarer and each trump: the heuristic's passes (the cards a
declarer's partner would pass, and those passed back), every seat's meld, then exact play from the
declarer's first lead with every hand known (the game's solver). The table gives the declaring
team's meld, its trick points, and the highest contract it makes (the meld it keeps plus its
trick points: every bid up to that makes). Many deals go in one compiled call
(:func:`agents.search.kernel.simulate_hands` with ``exact``).

A first-lead solve takes about half a second at the median and more than 10 s for about 2 in 100
(docs/benchmarks.md, *The exact solver*): ``node_limit`` bounds each one, and a hand it stops is
reported as not solved (-1), never as a guess::

    games = [new_game(Rules(), np.random.default_rng(seed)) for seed in range(3)]
    table = analyse_deals(Rules(), dealt_counts(games), declarers=[0], node_limit=3_000_000)
    print(table.format(0))  # a row per declarer, a column per trump: "makes (meld + points)"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pinochle_env.cards import COPIES, NUM_TYPES, SUIT_NAMES
from pinochle_env.engine import is_integer
from pinochle_env.games.kit import variant_kit
from pinochle_env.games.partnership.game import HAND_SIZE
from pinochle_env.games.partnership.game import Game as PartnershipGame
from pinochle_env.games.partnership.search import partnership_scores
from pinochle_env.rules.switches import Rules

from .kernel import simulate_hands


@dataclass(frozen=True)
class DealTable:
    """Per deal, declarer and trump (arrays of shape (deals, declarers, trumps)): the declaring
    team's ``meld``, its trick ``points`` under exact play and the highest contract it ``makes``;
    -1 in ``points`` and ``makes`` where the node limit stopped the solve."""

    declarers: tuple[int, ...]
    trumps: tuple[int, ...]
    meld: np.ndarray
    points: np.ndarray
    makes: np.ndarray

    @property
    def solved(self) -> np.ndarray:
        """Where the solve finished (a boolean array of the table's shape)."""
        return np.asarray(self.points >= 0)

    def format(self, deal: int = 0) -> str:
        """One deal's table as text: a row per declarer, a column per trump, each cell
        ``makes (meld + points)``."""
        if not -len(self.meld) <= deal < len(self.meld):
            raise IndexError(f"deal {deal} is not in the table: it holds deals 0..{len(self.meld) - 1}")
        width = 18
        lines = ["declarer " + "".join(f"{SUIT_NAMES[t]:>{width}}" for t in self.trumps)]
        for row, declarer in enumerate(self.declarers):
            cells = []
            for column in range(len(self.trumps)):
                meld, points = int(self.meld[deal, row, column]), int(self.points[deal, row, column])
                made = int(self.makes[deal, row, column])
                cells.append(f"{'not solved':>{width}}" if points < 0 else f"{f'{made} ({meld} + {points})':>{width}}")
            lines.append(f"{declarer:>8} " + "".join(cells))
        return "\n".join(lines)


def dealt_counts(games: Sequence[Any]) -> np.ndarray:
    """The deals of partnership games as the analysis takes them: (N, 4, 24) card counts as dealt."""
    return np.array([[np.bincount(hand, minlength=NUM_TYPES) for hand in game.deal] for game in games])


def analyse_deals(
    rules: Rules,
    dealt: Any,
    declarers: Sequence[int] = (0, 1, 2, 3),
    trumps: Sequence[int] = (0, 1, 2, 3),
    node_limit: int = 0,
    order: Sequence[int] = tuple(range(NUM_TYPES)),
) -> DealTable:
    """The whole-deal table of each deal (``dealt``: (N, 4, 24) card counts as dealt, e.g.
    :func:`dealt_counts`) for each of ``declarers`` and ``trumps`` under ``rules`` (the partnership
    game's; the heuristic passes with tie-break ``order``). ``node_limit``: the most nodes one solve
    may visit (0: no limit)."""
    if not issubclass(variant_kit(rules).game_class, PartnershipGame):
        raise ValueError(f"the whole-deal analysis is made for the four-handed partnership game, not {rules.variant!r}")
    dealt = np.asarray(dealt)
    if dealt.ndim != 3 or dealt.shape[1:] != (4, NUM_TYPES):
        raise ValueError(f"dealt must be (deals, 4, {NUM_TYPES}) card counts, not shape {dealt.shape}")
    if not np.issubdtype(dealt.dtype, np.integer):
        raise ValueError(f"dealt must be whole card counts, not {dealt.dtype}")
    whole = (dealt >= 0).all(axis=(1, 2)) & (dealt.sum(axis=2) == HAND_SIZE).all(axis=1)
    bad = np.flatnonzero(~(whole & (dealt.sum(axis=1) == COPIES).all(axis=1)))
    if len(bad):
        raise ValueError(
            f"dealt must hold {HAND_SIZE} cards a hand and each of the {NUM_TYPES} cards {COPIES} times a deal; "
            f"deal {bad[0]} does not" + (f" ({len(bad)} deals in all)" if len(bad) > 1 else "")
        )
    if not is_integer(node_limit) or node_limit < 0:
        raise ValueError(f"node_limit must be a whole number, 0 (no limit) or more, not {node_limit!r}")
    for name, values in (("declarers", declarers), ("trumps", trumps)):
        if not values or any(not is_integer(v) or not 0 <= v < 4 for v in values):
            raise ValueError(f"{name} must be seats or suits between 0 and 3, not {list(values)}")
    if sorted(order) != list(range(NUM_TYPES)):
        raise ValueError(f"order must be a permutation of the {NUM_TYPES} card types 0..{NUM_TYPES - 1}")
    count, shape = len(dealt), (len(dealt), len(declarers), len(trumps))
    every = np.repeat(dealt, len(declarers) * len(trumps), axis=0)
    declarer = np.tile(np.repeat(np.asarray(declarers), len(trumps)), count)
    trump = np.tile(np.asarray(trumps), count * len(declarers))
    hands = simulate_hands(rules, every, declarer, 0, trump, throw_in="play", order=order, solve=node_limit)
    rows = np.arange(len(every))
    team_meld = hands.meld[rows, declarer] + hands.meld[rows, (declarer + 2) % 4]
    points = hands.points[rows, declarer]
    totals = partnership_scores(rules, declarer, 0, hands.meld, np.maximum(hands.points, 0), hands.tricks,
                                hands.thrown)[rows, declarer % 2]  # fmt: skip
    makes = np.where(points >= 0, totals, -1)
    return DealTable(tuple(declarers), tuple(trumps), team_meld.reshape(shape), points.reshape(shape),
                     makes.reshape(shape))  # fmt: skip
