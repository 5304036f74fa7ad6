"""The game's compiled kernel (numba): trick rules and meld (:mod:`.tricks`), the exact solver
(:mod:`.solver`) and deal drawing (:mod:`.deals`). Game knowledge only: what follows from the rules.

Nothing here is public API: :mod:`pinochle_env.kernel` wraps it and says what each entry point
means. The modules are imported here, inside :func:`~pinochle_env.kernel.compiling.kernel_cache`,
so that numba's cache of them is keyed on all their sources (see that module).
"""

from pathlib import Path

from ..compiling import kernel_cache, watch_compiles

FOLDER = Path(__file__).resolve().parent

watch_compiles(__name__)
with kernel_cache(FOLDER, [FOLDER]):
    from . import deals, solver, tricks

__all__ = ["FOLDER", "deals", "solver", "tricks"]
