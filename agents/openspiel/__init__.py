"""Pinochle inside OpenSpiel (the optional extra ``pinochle-rl[openspiel]``; ``docs/openspiel.md``).

- :func:`register_games`: registers our three games with OpenSpiel as python games, named
  ``python_pinochle_`` and the variant (:mod:`.game`), after which ``pyspiel.load_game(name,
  {switch: value})`` loads one hand of the game under those rules;
- :func:`~.resample.state_from_view`: a whole state consistent with one seat's information
  (``resample_from_infostate``), where the game can rebuild a hand from a view (:mod:`.resample`);
- :mod:`.bots`: OpenSpiel's bots as our agents (``openspiel:bot=ismcts,simulations=32``).

Nothing here is imported by ``import agents``: OpenSpiel (``pyspiel``) is loaded when one of these
modules is, and the base install never needs it.
"""

from __future__ import annotations

from typing import Any

from ..extras import require_extra


def register_games() -> list[str]:
    """Register every game of the registry with OpenSpiel (once per process) and return their
    names; ``ImportError`` saying what to install where OpenSpiel is missing."""
    pyspiel = import_pyspiel()
    from pinochle_env.games.registry import GAMES

    from .game import PinochleGame, game_name, game_type

    names = []
    registered = set(pyspiel.registered_names())
    for variant in GAMES:
        name = game_name(variant)
        if name not in registered:
            pyspiel.register_game(game_type(variant), _creator(PinochleGame, variant))
        names.append(name)
    return names


def _creator(game_class: Any, variant: str) -> type:
    """The factory OpenSpiel calls with the parameters of a game ``variant`` to load: a subclass of
    ``game_class`` for the variant. A class, not a closure: OpenSpiel's registry keeps its
    creators until the process exits, after Python has shut down, and a class (which refers to
    itself) is never freed there, where freeing a closure aborts the process."""

    def __init__(self: Any, params: dict[str, Any] | None = None) -> None:
        game_class.__init__(self, variant, params)

    return type(f"{game_class.__name__}_{variant}", (game_class,), {"__init__": __init__})


def import_pyspiel() -> Any:
    """The ``pyspiel`` module, or an ``ImportError`` naming the extra that installs it."""
    require_extra("openspiel", "Pinochle in OpenSpiel")
    import pyspiel

    return pyspiel
