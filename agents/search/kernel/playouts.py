"""Play-outs and PIMC's card values on the compiled kernel: the Python side of the calls.

Every call goes through here so that the compiled functions always see the same argument types
(one compiled version each); the exact solving at the leaves shares the game kernel's table
(:func:`pinochle_env.kernel.solver.solver_for`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.heuristic.games import heuristic_rules
from pinochle_env.cards import NUM_TYPES
from pinochle_env.engine import is_integer
from pinochle_env.kernel import Deals, PlayState
from pinochle_env.kernel.sampling import checked_stream_seed
from pinochle_env.kernel.solver import as_hands, solver_for

from .compiled import playouts as P

#: Play-out policies by name.
POLICIES = {"random": P.POLICY_RANDOM, "heuristic": P.POLICY_HEURISTIC, "simple": P.POLICY_SIMPLE}


def policy_id(state: PlayState, policy: str) -> int:
    """The kernel's number of a play-out policy (``ValueError`` for an unknown one, or the
    card-counting heuristic outside the partnership game it counts cards for)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    own = heuristic_rules(state.rules).PLAY_OUT_POLICY
    if policy == "heuristic" and own != "heuristic":
        raise ValueError(
            f"the heuristic play-out policy is the partnership bot's card play; use {own!r} in {state.rules.variant}"
        )
    return POLICIES[policy]


def _play_out(state: PlayState, policy: str, order: Sequence[int], seeds: np.ndarray) -> P.PlayOut:
    return P.PlayOut(policy_id(state, policy), np.asarray(order, dtype=np.int64),
                     np.ascontiguousarray(seeds, dtype=np.uint64))  # fmt: skip


def evaluate_cards(
    state: PlayState,
    deals: np.ndarray,
    gifts: np.ndarray,
    cards: Sequence[int],
    policy: str,
    seeds: np.ndarray,
    stop: int,
    solve: bool,
    order: Sequence[int],
    equivalent: bool = True,
) -> np.ndarray:
    """Final side scores per deal and candidate: (N, 24) by card type when ``solve``, else (N, len(cards)).
    Fewer rows (the first deals) when the solver's node budget (:func:`~pinochle_env.kernel.solver.node_budget`)
    runs out.

    See :func:`agents.search.kernel.compiled.playouts.evaluate_cards`.
    """
    count = len(deals)
    out = np.zeros((count, NUM_TYPES if solve else len(cards)), dtype=np.int64)
    valued = P.evaluate_cards(
        as_hands(deals).reshape(count, state.seats, NUM_TYPES), np.ascontiguousarray(gifts, dtype=np.int64),
        state.position(), state.rules_vector, state.values, _play_out(state, policy, order, seeds), stop, solve,
        np.asarray(cards, dtype=np.int64), solver_for(state, equivalent), out,
    )  # fmt: skip
    return out[:valued]


def play_out_deals(
    state: PlayState, deals: np.ndarray, gifts: np.ndarray, policy: str, seeds: np.ndarray, order: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's final trick points and tricks (N, S) after playing every deal out with ``policy``."""
    count = len(deals)
    pts = np.zeros((count, state.seats), dtype=np.int64)
    tks = np.zeros((count, state.seats), dtype=np.int64)
    P.play_out_many(
        as_hands(deals).reshape(count, state.seats, NUM_TYPES), np.ascontiguousarray(gifts, dtype=np.int64),
        state.position(), state.rules_vector, state.values, _play_out(state, policy, order, seeds), pts, tks,
    )  # fmt: skip
    return pts, tks


def policy_card(state: PlayState, policy: str, order: Sequence[int], seed: int = 0) -> int:
    """The card ``policy`` plays for the seat to act (every hand of ``state`` is read, as in a play-out)."""
    card = P.policy_card(
        state.to_act, state.position(), as_hands(state.hands), state.gifts, state.rules_vector, state.values,
        np.asarray(order, dtype=np.int64), policy_id(state, policy), np.uint64(seed),
    )  # fmt: skip
    return int(card)


@dataclass
class PlayOuts:
    """Play-out results: each seat's trick points and tricks (N, seats) and the margin (N,) of the
    seat that was to act."""

    points: np.ndarray
    tricks: np.ndarray
    margins: np.ndarray


def play_out(
    position: Any,
    count: int = 1,
    policy: str = "heuristic",
    seed: int = 0,
    order: list[int] | None = None,
    deals: Deals | None = None,
) -> PlayOuts:
    """Play a position out ``count`` times with ``policy`` for every seat (``"heuristic"``, ``"simple"``
    or ``"random"``; ties broken by ``order``, a rank per card type, default card order).

    ``position`` is an engine or a :class:`PlayState` with every hand; with ``deals`` (from
    :func:`pinochle_env.kernel.sample_deals`) the hands come from the deals instead, one play-out each. Deal ``i``
    plays with random stream ``seed + i``.
    """
    if not is_integer(count) or count < 1:  # as sample_deals: 2.0 or True is no count
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    state = PlayState.of(position)
    seed = checked_stream_seed(seed, len(deals.hands) if deals is not None else count)
    if deals is not None:
        hands, gifts, bonus = deals.hands, deals.gifts, deals.bonus
    else:
        hands = np.broadcast_to(state.hands, (count, *state.hands.shape))
        gifts = np.broadcast_to(state.gifts, (count, *state.gifts.shape))
        bonus = np.full(count, state.bonus)
    seeds = np.arange(seed, seed + len(hands), dtype=np.uint64)
    order = list(range(NUM_TYPES)) if order is None else order
    points, tricks = play_out_deals(state, hands, gifts, policy, seeds, order)
    side = points[:, state.side == 1].sum(axis=1)
    if state.mode == 1:
        own, other = tricks[:, state.side == 1].sum(axis=1), tricks[:, state.side == 0].sum(axis=1)
        side = side + (other == 0) - (own == 0)
    margins = state.scoring.margin(side, bonus) * state.scoring.factor[state.to_act]
    return PlayOuts(points, tricks, margins)
