"""Random input arrays, shared by the runner, the layout helpers and ``draw_program``."""
from __future__ import annotations

from ..testing.arrays import random_array as _random_array


def random_array(rng, shape, dtype):
    """Normal floats, or integers in [-8, 8) for int8 and [-100, 100) otherwise
    (``tepad.testing.random_array``; the reproducer's script text draws the same)."""
    return _random_array(shape, dtype, rng, floats="normal",
                         ints=(-8, 8) if dtype == "int8" else (-100, 100))


__all__ = ["random_array"]
