"""The search wing's compiled kernel (numba): the heuristic bots' decisions (:mod:`.heuristic`), play-outs
and PIMC's card values (:mod:`.playouts`), and the deal weighting's mismatch counts (:mod:`.inference`).
Agent knowledge: how someone plays. It calls into the game's kernel (:mod:`pinochle_env.kernel.compiled`).

Nothing here is public API: :mod:`agents.search.kernel` wraps it. The modules are imported inside
:func:`~pinochle_env.kernel.compiling.kernel_cache` with the game kernel's sources in the hash, so
that a change to a game kernel function this code calls compiles this code afresh too.
"""

from pathlib import Path

from pinochle_env.kernel import compiled as game_kernel
from pinochle_env.kernel.compiling import kernel_cache, watch_compiles

FOLDER = Path(__file__).resolve().parent

watch_compiles(__name__)
with kernel_cache(FOLDER, [FOLDER, game_kernel.FOLDER]):
    from . import heuristic, inference, playouts

__all__ = ["FOLDER", "heuristic", "inference", "playouts"]
