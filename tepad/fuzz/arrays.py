"""Random input arrays, shared by the runner, the layout helpers and ``draw_program``."""
from __future__ import annotations


def random_array(rng, shape, dtype):
    """Normal floats, or integers in [-8, 8) for int8 and [-100, 100) otherwise."""
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    lim = 8 if dtype == "int8" else 100
    return rng.integers(-lim, lim, size=shape).astype(dtype)


__all__ = ["random_array"]
