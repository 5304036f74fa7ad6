"""A learned model of where the other seats' hidden cards are (``guided:locate=bundled``).

The search draws deals consistent with its seat's view and weights them by how well they explain the
other seats' calls and plays, with the heuristic bot as the model of every player
(:mod:`agents.search.inference`). A location model reads the seat's observation once per card
decision instead, and gives for each of the 24 card types the probability that a hidden copy is with
each other seat; a drawn deal's log-weight then gains ``locate_weight`` times the sum, over the other
seats and card types, of the copies the deal gives that seat times the log of that probability
(:func:`agents.search.inference.weighted_deals`). It was fitted with cross-entropy on the true
hands of positions from self-play (:mod:`.location_fit`), so it has learned what a network's play
says about its cards, which the heuristic's model of the other players does not see.

A model file is a ``torch.save`` dict of tensors and plain values (loaded with
``weights_only=True``): ``format`` (``"pinochle-rl-location-model"``), ``format_version``,
``encoder_version``, ``variant``, ``observation_size``, ``others`` (other seats), ``hidden``
(layer widths), ``network`` (the state dict of :class:`agents.neural.network.LocationNetwork`),
``rules`` (the switches of the positions it fitted) and ``made_with`` (how). ``bundled`` names the
shipped model of a game, as ``agents/bundled/location/<name>.json`` records it (``variant``,
``file``). This module imports PyTorch only when a model is loaded.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from pinochle_env.encoding import ENCODER_VERSION
from pinochle_env.games.kit import variant_kit
from pinochle_env.protocol import View
from pinochle_env.rules.switches import Rules

from ..extras import require_extra
from .agent import BUNDLED_DIR, file_identity

FORMAT = "pinochle-rl-location-model"
FORMAT_VERSION = 1
#: What a model file holds besides its weights, each checked before they are used.
KEYS = ("format", "format_version", "encoder_version", "variant", "observation_size", "others", "hidden", "network")
LOCATION_DIR = BUNDLED_DIR / "location"
BUNDLED_NAME = "bundled"
_CACHE: dict[tuple[str, int, int], tuple[dict[str, Any], Any]] = {}


def other_seats(seat: int, seats: int) -> list[int]:
    """The seats other than ``seat``, left to right from it: the order of a model's rows (and of
    the hands :mod:`.location_fit` records)."""
    return [(seat + offset) % seats for offset in range(1, seats)]


def _bundled_location_models() -> dict[str, Path]:
    """The shipped models by game variant, as the records in ``agents/bundled/location/`` say; two
    records for one game are a packaging error, refused rather than one silently winning."""
    models: dict[str, Path] = {}
    for record in sorted(LOCATION_DIR.glob("*.json")):
        info = json.loads(record.read_text(encoding="utf-8"))
        if info["variant"] in models:
            raise RuntimeError(f"{record}: another bundled location model is already the {info['variant']} game's")
        models[info["variant"]] = LOCATION_DIR / info["file"]
    return models


#: The shipped location models, by game variant.
BUNDLED_LOCATION_MODELS = _bundled_location_models()


def resolve_location_model(name: str, variant: str) -> Path:
    """The file ``guided:locate=NAME`` means in the game ``variant``: ``bundled`` is the shipped
    model of that game; anything else is a file path, which must exist. ``ValueError`` otherwise."""
    if name == BUNDLED_NAME:
        if variant not in BUNDLED_LOCATION_MODELS:
            games = " and ".join(BUNDLED_LOCATION_MODELS) or "no"
            raise ValueError(
                f"guided:locate=bundled has a location model for the {games} game only, "
                f"this game is variant={variant!r}"
            )
        path = BUNDLED_LOCATION_MODELS[variant]
        if not path.is_file():
            raise ValueError(f"this installation has no bundled location model ({path} is missing)")
        return path
    if not os.path.isfile(name):
        raise ValueError(
            f"location model file not found: {name!r} (guided:locate=bundled, or a file that "
            "python -m agents.neural.location_fit wrote)"
        )
    return Path(name)


def load_location_model(path: Path) -> tuple[dict[str, Any], Any]:
    """A model file's metadata and its network, checked and cached by :func:`~.agent.file_identity`;
    ``CheckpointError`` (a ``ValueError``) says what is wrong with a file that is not a location model."""
    key = file_identity(path)
    if key not in _CACHE:
        require_extra("train", "guided:locate=...", ["torch"])
        from .checkpoints import CheckpointError, load_torch_dict
        from .network import LocationNetwork

        payload = load_torch_dict(path, "location model")
        if payload.get("format") != FORMAT:
            raise CheckpointError(f"{path} is not a pinochle-rl location model (no format={FORMAT!r} key)")
        missing = [name for name in KEYS if name not in payload]
        if missing:
            raise CheckpointError(f"{path} lacks {', '.join(missing)}")
        if payload["format_version"] != FORMAT_VERSION or payload["encoder_version"] != ENCODER_VERSION:
            raise CheckpointError(
                f"{path} is location model format {payload['format_version']!r} on observation encoder "
                f"{payload['encoder_version']!r}; this version reads format {FORMAT_VERSION} "
                f"on encoder {ENCODER_VERSION}"
            )
        network = LocationNetwork(payload["observation_size"], payload["hidden"], payload["others"])
        try:
            network.load_state_dict(payload["network"])
        except RuntimeError as error:
            raise CheckpointError(f"{path}: the weights do not fit the sizes the file records ({error})") from None
        network.eval()
        _CACHE[key] = ({name: value for name, value in payload.items() if name != "network"}, network)
    return _CACHE[key]


class LocationModel:
    """``guided:locate=NAME``: the model of :func:`resolve_location_model`'s file for the game
    played, called with a view for the log-probabilities :mod:`agents.search.inference` weights by."""

    def __init__(self, name: str) -> None:
        if not name:
            raise ValueError("guided parameter locate needs a model: locate=bundled, or a file")
        self.source = name
        self.check_rules(Rules())  # names a missing file, a damaged one or missing PyTorch at once

    def check_rules(self, rules: Rules) -> None:
        """Use the model of ``rules``'s game; ``ValueError`` for one whose observations or seats it
        does not read, an ``UntrainedRulesWarning`` for switches it was not fitted under."""
        from .agent import UntrainedRulesWarning, untrained_switches

        path = resolve_location_model(self.source, rules.variant)
        meta, network = load_location_model(path)
        kit = variant_kit(rules)
        others, size = rules.num_seats - 1, kit.spec.size
        if (meta["variant"], meta["others"], meta["observation_size"]) != (rules.variant, others, size):
            raise ValueError(
                f"location model {path} reads the {meta['variant']} game ({meta['others']} other seats, "
                f"observations of {meta['observation_size']}); this game is {rules.variant} "
                f"({others} other seats, observations of {size})"
            )
        untrained = untrained_switches(meta, rules)
        if untrained:
            warnings.warn(
                f"location model {path} was fitted under other rules than {untrained}: its placements may mislead",
                UntrainedRulesWarning,
                stacklevel=2,
            )
        self.path, self.meta, self.network, self.kit = path, meta, network, kit

    def __call__(self, view: View) -> np.ndarray:
        """(other seats, card types): the log-probability that a hidden copy of each type is with
        each other seat, in :func:`other_seats` order."""
        import torch

        if view.rules != self.kit.rules:
            self.check_rules(view.rules)
        observation = torch.from_numpy(self.kit.observation_from_view(view).astype(np.float32))
        with torch.inference_mode():
            return self.network(observation[None])[0].T.double().numpy()
