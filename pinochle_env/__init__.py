"""pinochle_env: the rules engine, batched API and PettingZoo environment of pinochle-rl.

``pinochle_env.env(**options)`` is the PettingZoo AEC environment ``pinochle_v0`` (see
:mod:`pinochle_env.env` for its documentation page); :class:`BatchedGames` steps many games in
lockstep; :class:`Game` is the partnership game's rules engine (``new_game(rules)`` makes the engine
of any variant: the partnership game, ``cutthroat`` or ``two_hand``).

Layout: the shared machinery is here (cards, the rule functions in :mod:`~pinochle_env.rules`,
the rule switches in :mod:`~pinochle_env.rules.switches`, actions, the engine base and the typed
interface in :mod:`~pinochle_env.protocol`, observation pieces, replay helpers, records, the env
and the batched API); each game has its own package under :mod:`pinochle_env.games`, found through
the registry in :mod:`~pinochle_env.games.kit`.
"""

from .actions import ActionLayout
from .batch import BatchedGames, BatchStep
from .engine import ActionTypeError, IllegalActionError
from .env import action_to_string, env, raw_env
from .games.kit import new_game
from .games.partnership import Game, Phase, PlayerView
from .rules.switches import PRESETS, Rules

__version__ = "0.1.0"
#: What every console script's ``--version`` prints.
VERSION_LINE = f"pinochle-rl {__version__}"

__all__ = [
    "PETTINGZOO_ID",
    "PRESETS",
    "ActionLayout",
    "ActionTypeError",
    "BatchStep",
    "BatchedGames",
    "Game",
    "IllegalActionError",
    "Phase",
    "PlayerView",
    "Rules",
    "__version__",
    "action_to_string",
    "env",
    "new_game",
    "raw_env",
]


#: The AEC environment's id in PettingZoo's registry, as ``metadata["name"]`` spells it. PettingZoo
#: stores and lists every id with ``-vN`` (``pinochle-v0``, as its own ``classic/chess_v6`` is
#: ``classic/chess-v6``); ``pettingzoo.make("aec", ...)`` takes either spelling.
PETTINGZOO_ID = "pinochle_v0"


def _register() -> None:
    """Register :data:`PETTINGZOO_ID` with PettingZoo's registry (once: PettingZoo warns when an id
    is registered again)."""
    from pettingzoo import register, spec
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    try:
        spec("aec", PETTINGZOO_ID)
    except PettingZooRegistryError:
        register("aec", PETTINGZOO_ID, entry_point="pinochle_env.env:env")


_register()
