"""Output arrays that are reused once nobody holds them any more.

``BatchedGames`` hands out a fresh (N, observation_size) float32 array at every step: a megabyte
at N = 256. Allocated anew each time, such an array is usually fresh memory from the operating
system (glibc maps big blocks, and trims the heap when they are freed), so the first write to each
of its 4 KiB pages faults: about 250 page faults per step, which cost more than filling the array.
:class:`RecycledArrays` keeps a few arrays instead and hands one out again only when its reference
count shows that nothing but the pool refers to it (no caller variable, no view, no tensor sharing
its memory). A caller that keeps every array it gets still gets a new one each time: recycling
never changes a value anyone can see.
"""

from __future__ import annotations

import sys

import numpy as np

#: Reference counts are exact only while the GIL is held (on free-threaded builds they may be
#: deferred), so those builds get a new array every time.
_COUNTS_ARE_EXACT = getattr(sys, "_is_gil_enabled", lambda: True)()


class RecycledArrays:
    """Arrays of one ``shape`` and ``dtype``; :meth:`get` returns one that nothing else refers to."""

    def __init__(self, shape: tuple[int, ...], dtype: type | np.dtype, keep: int = 4) -> None:
        self.shape, self.dtype, self.keep = shape, np.dtype(dtype), keep
        self._start()

    def _start(self) -> None:
        self._arrays: list[np.ndarray] = []
        self._free_count = 0  # the reference count of an array only the pool holds, measured below
        if _COUNTS_ARE_EXACT:
            self._arrays.append(np.empty(self.shape, dtype=self.dtype))
            self._free_count = self._references(0)

    def __getstate__(self) -> dict[str, object]:
        """Only what the pool is made from: its arrays' contents are undefined, and the reference
        count of a free one is measured again once it is loaded."""
        return {"shape": self.shape, "dtype": self.dtype, "keep": self.keep}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._start()

    def _references(self, index: int) -> int:
        """The reference count of array ``index`` as this method sees it (always the same code path,
        so the count of a free array is the same each time)."""
        return sys.getrefcount(self._arrays[index])

    def get(self) -> np.ndarray:
        """An array (contents undefined) that no caller holds."""
        for index in range(len(self._arrays)):
            if self._references(index) == self._free_count:
                return self._arrays[index]
        array = np.empty(self.shape, dtype=self.dtype)
        if _COUNTS_ARE_EXACT and len(self._arrays) < self.keep:
            self._arrays.append(array)
        return array
