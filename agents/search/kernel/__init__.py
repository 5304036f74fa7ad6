"""The search wing's kernel: bots' play at compiled speed (agent knowledge), on the game's kernel.

- :func:`play_out`: play a position out many times with a compiled policy (``"heuristic"``, the
  partnership heuristic bot's card play; ``"simple"``, the three- and two-handed heuristic's;
  ``"random"``), as many deals per call as given;
- :func:`~.playouts.evaluate_cards`: PIMC's values of candidate cards over sampled deals (play-outs
  down to a leaf, solved exactly from there with the game's solver);
- :func:`~.simulate.simulate_hands`: whole partnership hands from the deal, the heuristic deciding;
- :mod:`.compiled.inference`: how well a deal explains the other seats' calls and plays
  (:mod:`agents.search.inference`).

The game's side (trick rules, the exact solver, deal drawing, :class:`~pinochle_env.kernel.PlayState`)
is :mod:`pinochle_env.kernel`. :func:`compile_search_kernel` compiles both up front (or loads them
from numba's cache), as a driver does before it starts worker processes.
"""

from __future__ import annotations

import numpy as np

from pinochle_env.cards import NUM_TYPES
from pinochle_env.kernel import compile_kernel
from pinochle_env.kernel.compiled import deals as D
from pinochle_env.kernel.compiled import tricks as T
from pinochle_env.kernel.solver import hands_solver
from pinochle_env.rules.switches import Rules

from .compiled import inference as M
from .compiled import playouts as P
from .playouts import POLICIES, PlayOuts, evaluate_cards, play_out, play_out_deals, policy_card
from .simulate import THROW_MODES, SimulatedHands, simulate_hands

__all__ = [
    "POLICIES",
    "THROW_MODES",
    "PlayOuts",
    "SimulatedHands",
    "compile_search_kernel",
    "evaluate_cards",
    "play_out",
    "play_out_deals",
    "policy_card",
    "simulate_hands",
]

_READY = False


def compile_search_kernel() -> None:
    """Compile every entry point of the game's kernel and of this one now, or load them from numba's
    cache (see :mod:`pinochle_env.kernel.compiling`). Cheap after the first call in a process."""
    global _READY
    compile_kernel()
    if not _READY:
        _warm_up()
        _READY = True


def _warm_up() -> None:
    """Call each entry point on empty inputs of the types every real call uses."""
    empty_deals = np.zeros((0, 4, NUM_TYPES), dtype=np.int8)
    empty_gifts = np.zeros((0, 4, NUM_TYPES), dtype=np.int64)
    hands = np.zeros((4, NUM_TYPES), dtype=np.int8)
    per_seat = np.zeros(4, dtype=np.int64)
    per_card = np.zeros(NUM_TYPES, dtype=np.int64)
    per_seat_card = np.zeros((4, NUM_TYPES), dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    rules = np.zeros(T.RULES_SIZE, dtype=np.int64)
    rules[T.R_SEATS] = 4
    position = T.Position(np.zeros(4, dtype=np.int64), 0, 0, 0, per_seat, per_seat, per_card, per_seat_card,
                          per_seat, per_seat_card)  # fmt: skip
    playout = P.PlayOut(0, per_card, np.zeros(0, dtype=np.uint64))
    solver = hands_solver(Rules())  # on the process's table, as every real call
    P.evaluate_cards(empty_deals, empty_gifts, position, rules, per_card, playout, 0, False, per_card, solver,
                     np.zeros((0, 1), dtype=np.int64))  # fmt: skip
    P.play_out_many(empty_deals, empty_gifts, position, rules, per_card, playout, np.zeros((0, 4), dtype=np.int64),
                    np.zeros((0, 4), dtype=np.int64))  # fmt: skip
    P.policy_card(0, position, hands, per_seat_card, rules, per_card, per_card, P.POLICY_RANDOM, np.uint64(0))
    simulate_hands(Rules(), empty_deals, 0, 250)
    history = D.History(np.zeros((0, 4), dtype=np.int64), none, none)
    M.play_mismatches(empty_deals, empty_gifts, history, 0, per_seat_card, rules, per_card, per_card, 0, none)
    M.call_mismatches(np.zeros((0, 4, NUM_TYPES), dtype=np.int64), per_seat_card, 0, 0, 1000, True, none)
