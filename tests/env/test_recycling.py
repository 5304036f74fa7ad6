"""Tests of ``RecycledArrays``: an array is handed out again only when nothing else refers to it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pinochle_env import BatchedGames
from pinochle_env.recycling import _COUNTS_ARE_EXACT, RecycledArrays

pytestmark = pytest.mark.skipif(not _COUNTS_ARE_EXACT, reason="free-threaded Python: the pool never recycles")


def test_an_array_nobody_holds_is_handed_out_again():
    pool = RecycledArrays((3, 5), np.float32)
    first = pool.get()
    assert first.shape == (3, 5) and first.dtype == np.float32
    address = first.ctypes.data
    del first
    assert pool.get().ctypes.data == address


@pytest.mark.parametrize(
    "hold",
    [lambda a: a, lambda a: a[1:], lambda a: a.reshape(-1), lambda a: torch.from_numpy(a), lambda a: memoryview(a)],
    ids=["array", "view", "reshaped", "tensor", "memoryview"],
)
def test_an_array_still_referred_to_is_never_handed_out(hold):
    pool = RecycledArrays((4, 6), np.float32)
    array = pool.get()
    array[:] = 7.0
    held = hold(array)
    del array
    for _ in range(10):
        pool.get()[:] = -1.0  # each is dropped at once, so it may be handed out again
    assert (np.asarray(held) == 7.0).all()


def test_at_most_keep_arrays_are_pooled():
    pool = RecycledArrays((2,), np.int8, keep=3)
    held = [pool.get() for _ in range(6)]
    assert len({a.ctypes.data for a in held}) == 6  # all distinct while held
    pooled = {a.ctypes.data for a in held[:3]}
    del held
    again = [pool.get() for _ in range(3)]
    assert {a.ctypes.data for a in again} == pooled


def test_batch_observations_are_recycled_and_never_overwritten_while_held():
    batch = BatchedGames(4, seed=11)
    step = batch.reset()
    rng = np.random.default_rng(0)
    kept_view = step.observations[2:]  # a view outlives the step it came from
    kept = kept_view.copy()
    recycled = 0
    for _ in range(40):
        masks = step.action_masks
        step = batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
        recycled += any(step.observations is pooled for pooled in batch._observations._arrays)
    np.testing.assert_array_equal(kept_view, kept)
    assert recycled == 40
