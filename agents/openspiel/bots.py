"""OpenSpiel's bots as our agents: ``openspiel:bot=ismcts,simulations=32`` in every agent spec.

At each decision the agent draws a whole OpenSpiel state consistent with its view
(:func:`~.resample.state_from_view`: our agents see only their view) and asks the bot for an
action there; a decision with one legal action is taken without asking.

- ``bot=ismcts`` (default): OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``,
  Cowling et al.'s single-observer IS-MCTS, nodes keyed by the information-state string), with
  random roll-outs (``mcts.RandomRolloutEvaluator``); each simulation draws a new state
  consistent with the root view through our resampler. Only in games whose search adapter
  rebuilds a hand from a view (:attr:`~pinochle_env.kernel.SearchAdapter.rebuilds`).
  Parameters: ``simulations`` (32) per decision, ``uct`` (2.0, the exploration constant; returns
  are hand margins over 1000 points), ``rollouts`` (1) per leaf, ``worlds`` (0: a fresh state every
  simulation; N: N states drawn at the root and reused).

OpenSpiel's C++ ``pyspiel.ISMCTSBot`` cannot play a python game: it calls
``ResampleFromInfostate`` in C++, which OpenSpiel 2.0.2 does not forward to a python game's
``resample_from_infostate`` (the process dies with a segmentation fault); the Python
implementation above calls it through its resampler hook.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from . import import_pyspiel, register_games
from .game import game_name, parameters_of
from .resample import state_from_view

#: The bots the spec's ``bot=`` names.
BOTS = ("ismcts",)


class OpenSpielAgent:
    """One of OpenSpiel's bots (module docstring) playing our seat from its view."""

    def __init__(
        self,
        seed: int | None = None,
        bot: str = "ismcts",
        simulations: int = 32,
        uct: float = 2.0,
        rollouts: int = 1,
        worlds: int = 0,
    ) -> None:
        if bot not in BOTS:
            raise ValueError(f"openspiel: bot={bot!r} is not one of {', '.join(BOTS)}")
        for name, value in (("simulations", simulations), ("rollouts", rollouts)):
            if value < 1:
                raise ValueError(f"openspiel: {name}={value} must be at least 1")
        if worlds < 0 or uct < 0:
            raise ValueError(f"openspiel: worlds={worlds} and uct={uct} must not be negative")
        self.name = f"openspiel:bot={bot}"
        self.simulations, self.uct, self.rollouts, self.worlds = simulations, uct, rollouts, worlds
        self.pyspiel = import_pyspiel()
        register_games()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._bots: dict[Rules, tuple[Any, Any]] = {}

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules OpenSpiel's game refuses, and a game whose states cannot be resampled
        from a seat's information (where IS-MCTS cannot search)."""
        from pinochle_env.kernel import adapter_for

        self._game(rules)
        try:
            rebuilds = adapter_for(rules).rebuilds
        except ValueError:  # the kernel does not play the game at all
            rebuilds = False
        if not rebuilds:
            raise ValueError(
                f"{self.name} cannot play variant={rules.variant!r}: its states cannot be resampled "
                "from a seat's information (docs/openspiel.md)"
            )

    def act(self, view: View, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        game, bot = self._bots.get(view.rules) or self._make_bot(view.rules)
        state = state_from_view(game, view, self._rng)
        return int(bot.step(state))

    # ------------------------------------------------------------------ set-up

    def _game(self, rules: Rules) -> Any:
        """The OpenSpiel game of ``rules`` (``ValueError`` for rules it refuses)."""
        params = {name: getattr(rules, name) for name in parameters_of(rules.variant) if hasattr(rules, name)}
        return self.pyspiel.load_game(game_name(rules.variant), params)

    def _make_bot(self, rules: Rules) -> tuple[Any, Any]:
        """OpenSpiel's game of ``rules`` and the bot searching it, seeded from the agent's generator."""
        from open_spiel.python.algorithms import ismcts, mcts

        game = self._game(rules)
        random_state = np.random.RandomState(int(self._rng.integers(2**31)))
        bot = ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(self.rollouts, random_state),
            self.uct,
            self.simulations,
            max_world_samples=self.worlds or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=random_state,
        )
        bot.set_resampler(lambda state, player: state_from_view(game, state.engine.view(player), self._rng))
        self._bots[rules] = (game, bot)
        return game, bot
