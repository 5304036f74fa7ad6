"""The optional extras (pyproject.toml's ``optional-dependencies``): what each installs, and the
one error that says which to install when a command, an agent or an example needs a missing one.

Importing this module imports none of them; :func:`require_extra` imports an extra's modules when
asked, so a check costs what the use it precedes costs anyway.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

#: The modules each extra installs, as imported, in the order they are checked.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "tensorboard"),
    "web": ("starlette", "uvicorn", "torch"),
    "openspiel": ("pyspiel",),
    "ray": ("ray",),
    "sb3": ("torch", "sb3_contrib", "stable_baselines3"),
    "rllib": ("torch", "ray.rllib"),
}
#: What the error calls each module (the project's own name for it).
MODULE_NAMES = {
    "torch": "PyTorch",
    "tensorboard": "TensorBoard",
    "starlette": "Starlette",
    "uvicorn": "Uvicorn",
    "pyspiel": "OpenSpiel",
    "open_spiel": "OpenSpiel",
    "ray": "Ray",
    "ray.rllib": "RLlib",
    "sb3_contrib": "sb3-contrib",
    "stable_baselines3": "Stable-Baselines3",
}
#: What to add to the install command of some extras.
NOTES = {
    "openspiel": "OpenSpiel's wheels need Python >= 3.11",
    "rllib": "in a virtual environment of its own: RLlib pins gymnasium (docs/ray.md)",
}
TORCH_NOTE = "where there is no GPU, install PyTorch's CPU build first (pip install torch==2.13.0, or see pytorch.org)"


def install_hint(extra: str) -> str:
    """How to install ``extra`` (one of :data:`EXTRA_MODULES`), as the errors say it."""
    hint = f'install the {extra} extra: pip install "pinochle-rl[{extra}]" (in a clone: pip install -e ".[{extra}]")'
    notes = [NOTES[extra]] if extra in NOTES else []
    if "torch" in EXTRA_MODULES[extra]:
        notes.append(TORCH_NOTE)
    return "; ".join([hint, *notes])


def missing_extra(extra: str, what: str, error: ImportError) -> str:
    """The message for ``error``, an import of ``extra``'s that failed: ``what`` needs the missing
    module (by its name in :data:`MODULE_NAMES`) and how to install the extra. A module that is
    there but fails to import (an ``ImportError`` that is no ``ModuleNotFoundError``: another
    version's names, a broken build) keeps the error's own words, which say what is wrong."""
    missing = error.name or "a module"
    name = MODULE_NAMES.get(missing) or MODULE_NAMES.get(missing.partition(".")[0])
    needed = name or f"{missing} (which the {extra} extra installs)"
    if not isinstance(error, ModuleNotFoundError):
        needed += f", which fails to import ({error})"
    return f"{what} needs {needed}; {install_hint(extra)}"


def exit_for_missing_extra(prog: str, extra: str, what: str, error: ImportError) -> NoReturn:
    """End the command ``prog`` as argparse ends one on a usage error, status 2 (as the console
    scripts end without their extra): ``prog: error:`` and :func:`missing_extra`'s message, one
    line on standard error. For commands that import ``extra``'s modules themselves (the examples,
    ``pinochle-web``). ``what`` follows ``prog`` in the line, so it does not name it again (an
    example passes "this example")."""
    print(f"{prog}: error: {missing_extra(extra, what, error)}", file=sys.stderr)
    raise SystemExit(2)


def require_extra(extra: str, what: str, modules: Sequence[str] | None = None) -> None:
    """Import ``extra``'s modules (or only ``modules`` of them); ``ImportError`` saying that ``what``
    needs the one that is missing and how to install the extra. The console scripts print it as one
    line; an agent spec that needs it is refused with it."""
    if extra not in EXTRA_MODULES:
        raise ValueError(f"unknown extra {extra!r}; extras: {', '.join(EXTRA_MODULES)}")
    for module in EXTRA_MODULES[extra] if modules is None else modules:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise ImportError(missing_extra(extra, what, error), name=error.name) from None
