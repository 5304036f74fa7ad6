"""States consistent with one seat's information: what OpenSpiel's ``resample_from_infostate`` and
our OpenSpiel bots need, built from our deal sampler.

:func:`state_from_view` draws the hidden cards with the search kernel's deal sampler
(:func:`pinochle_env.kernel.deal_constraints`: the seat's own cards, the meld shown, the cards
played and what each play shows about its player's hand), asks the game's search adapter to
rebuild the whole hand (the deck and every decision, with the choices the seat did not see drawn:
:meth:`~pinochle_env.kernel.SearchAdapter.rebuild`), replays it as an OpenSpiel state and keeps it
only if the seat's view there is the view it started from. The deals are uniform among the
consistent ones as the sampler draws them (no weighting by how the others played).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

#: Deals drawn at a time, and the most drawings before giving up.
BATCH = 8
ROUNDS = 16


def state_from_view(game: Any, view: Any, rng: np.random.Generator) -> Any:
    """A state of ``game`` (a :class:`~.game.PinochleGame` of ``view``'s rules) that ``view.seat``
    cannot tell from the position ``view`` shows; ``ValueError`` where the game cannot rebuild a
    hand, ``RuntimeError`` if no consistent hand was found."""
    from pinochle_env.kernel import adapter_for, deal_constraints  # numba: only when a state is drawn

    adapter = adapter_for(view.rules)
    constraints = deal_constraints(view)
    for _ in range(ROUNDS):
        deals = constraints.draw(BATCH, int(rng.integers(2**63)))
        for hands in deals.hands:
            rebuilt = adapter.rebuild(view, hands, deals.dealt, rng)
            if rebuilt is None:
                continue
            state = game.new_initial_state()
            for action in (view.dealer, *rebuilt.deck, *rebuilt.actions):
                state.apply_action(action)
            if same_information(state.engine.view(view.seat), view):
                return state
    raise RuntimeError(
        f"no hand consistent with the view of seat {view.seat} in phase {view.phase.name.lower()} "
        f"was found in {BATCH * ROUNDS} drawn deals"
    )


def same_information(view: Any, original: Any) -> bool:
    """Whether two views of one seat show the same information (the running totals aside: an
    OpenSpiel state is one hand, which starts from none)."""
    return bool(dataclasses.replace(view, totals=original.totals) == original)
