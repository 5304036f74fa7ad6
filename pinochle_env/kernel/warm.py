"""Compiling the game's kernel up front: :func:`compile_kernel` calls every entry point once."""

from __future__ import annotations

import numpy as np

from ..cards import NUM_TYPES
from ..rules.switches import Rules
from .compiled import deals as D
from .compiled import solver as S
from .compiled import tricks as T
from .solver import hands_solver

_READY = False


def compile_kernel() -> None:
    """Compile every entry point of the game's kernel now, or load it from numba's cache (see
    :mod:`pinochle_env.kernel.compiling`): a driver does this before it starts worker processes, so
    that the workers only load. Cheap after the first call in a process."""
    global _READY
    if not _READY:
        _warm_up()
        _READY = True


def _warm_up() -> None:
    """Call each entry point on empty inputs of the types every real call uses."""
    hands = np.zeros((4, NUM_TYPES), dtype=np.int8)
    trick = np.zeros(4, dtype=np.int64)
    per_seat = np.zeros(4, dtype=np.int64)
    per_card = np.zeros(NUM_TYPES, dtype=np.int64)
    per_seat_card = np.zeros((4, NUM_TYPES), dtype=np.int64)
    rules = np.zeros(T.RULES_SIZE, dtype=np.int64)
    rules[T.R_SEATS] = 4
    solver = hands_solver(Rules())  # on the process's table, as every real call
    work = S.work_arrays(0, 4)
    S.solve_values(hands, trick, (0, 0, 0, 0), rules, per_card, solver, work, np.zeros(NUM_TYPES, dtype=np.int64))
    S.solve_node(hands, trick, (0, 0, 0, 0), rules, per_card, solver, work)
    no_tricks = np.zeros(0, dtype=np.int64)
    history = D.History(np.zeros((0, 4), dtype=np.int64), no_tricks, no_tricks)
    holdings = D.Holdings(
        per_seat_card, per_seat, per_seat, per_seat, per_card, per_seat, per_seat_card, per_seat, per_seat_card,
        per_seat, 0, 0,
    )  # fmt: skip
    D.draw_deals(holdings, np.uint64(0), np.zeros((0, 4, NUM_TYPES), dtype=np.int64), no_tricks)
    D.forbidden_by_plays(history, 4, 0, 0, 0, 0, per_seat)
    D.meld_breakers(per_seat_card, per_seat, 0, per_seat, per_seat, 0, 0, per_seat)
    empty_deals = np.zeros((0, 4, NUM_TYPES), dtype=np.int8)
    D.guess_gifts(empty_deals, per_seat_card, 0, 4, True, np.uint64(0), np.zeros((0, 4, NUM_TYPES), dtype=np.int64))
