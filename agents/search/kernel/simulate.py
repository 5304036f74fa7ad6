"""Whole partnership hands simulated from the deal on the compiled kernel (the heuristic's trump,
passing, throw-in and card play, or exact play from the first lead): the Python side of the call,
for the search's decisions taken before the first card (:mod:`agents.search.simulation`), the
trainer's auction labels and the whole-deal analysis (:mod:`agents.search.analysis`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pinochle_env.cards import NUM_TYPES
from pinochle_env.kernel.solver import as_hands, hands_solver
from pinochle_env.kernel.state import card_values, rules_vector
from pinochle_env.rules.switches import CHOICES, Rules

from .compiled import playouts as P
from .compiled.playouts import SimulatedHands

#: Throw-in modes of :func:`simulate_hands`, by name (the rules' ``throw_in`` values, and "play").
THROW_MODES = {"play": P.THROW_NEVER, "seed": P.THROW_SEED, "always": P.THROW_ALWAYS, "never": P.THROW_NEVER}

__all__ = ["THROW_MODES", "SimulatedHands", "simulate_hands"]


def simulate_hands(
    rules: Rules,
    dealt: np.ndarray,
    declarer: Any,
    contract: Any,
    trumps: Any = -1,
    passed: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    throw_in: str | None = None,
    order: Sequence[int] = tuple(range(NUM_TYPES)),
    seeds: np.ndarray | None = None,
    solve: int | None = None,
) -> SimulatedHands:
    """Partnership hands played from the deal (N, 4, 24 as dealt) with ``declarer`` at ``contract``.

    ``declarer`` and ``contract``: one for every deal, or one per deal (a declarer of -1 skips the
    deal: a redeal); ``trumps``: a suit, one per deal, or -1 for the heuristic's choice;
    ``passed``: the cards passed to the declarer and back (each N, 24 counts; a row of -1 for the
    heuristic's choice) or None for the heuristic's choice everywhere. ``throw_in``: the rule applied (default
    the game's; ``"play"`` plays every hand). Passing, the throw-in and card play follow the
    heuristic bot (its tie-break ``order``), every seat deciding from its own knowledge; with
    ``solve`` a number, the card play is solved exactly from the first lead instead (every hand
    known), visiting at most ``solve`` nodes a hand (0: no limit; see :class:`SimulatedHands` for
    what it fills).
    """
    count = len(dealt)

    def per_deal(value: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(value, dtype=np.int64), (count,)).copy()

    def passes(given: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        if given is None:
            return np.zeros((count, NUM_TYPES), dtype=np.int64), np.zeros(count, dtype=np.int64)
        rows = np.ascontiguousarray(given, dtype=np.int64).reshape(count, NUM_TYPES)
        known = np.asarray((rows >= 0).all(axis=1), dtype=np.int64)
        return rows, known

    settings = np.zeros(P.SETTINGS_SIZE, dtype=np.int64)
    settings[P.S_PASS_COUNT] = rules.pass_count
    settings[P.S_RUN_EXTRAS] = CHOICES["run_extras"].index(rules.run_extras)
    settings[P.S_THROW_MODE] = THROW_MODES[throw_in or rules.throw_in]
    if solve is not None and solve < 0:
        raise ValueError(f"solve must be a node limit (0: none) or None, not {solve}")
    settings[P.S_EXACT], settings[P.S_NODE_LIMIT] = int(solve is not None), solve or 0
    out = SimulatedHands(
        np.zeros((count, 4), dtype=np.int64), np.zeros((count, 4), dtype=np.int64),
        np.zeros((count, 4), dtype=np.int64), np.zeros(count, dtype=np.bool_), np.zeros(count, dtype=np.int64),
    )  # fmt: skip
    seeds = np.zeros(count, dtype=np.uint64) if seeds is None else np.ascontiguousarray(seeds, dtype=np.uint64)
    P.simulate_hands(
        as_hands(dealt).reshape(count, 4, NUM_TYPES), P.Contracts(per_deal(declarer), per_deal(contract),
        per_deal(trumps)), P.Passes(*passes(passed[0]), *passes(passed[1])),
        rules_vector(rules, 0, 0, simple_last=False), settings, card_values(rules),
        P.PlayOut(P.POLICY_HEURISTIC, np.asarray(order, dtype=np.int64), seeds), hands_solver(rules), out,
    )  # fmt: skip
    return out
