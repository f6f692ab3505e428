"""Random input arrays: the one helper behind ``tepad run``, the fuzzer and autotvm's reference
data (each asks for its own ranges, so the numbers each draws stay what they were)."""
from __future__ import annotations

import numpy as np


def random_array(shape, dtype: str, rng, floats=(0.0, 1.0), ints=(0, 8)) -> np.ndarray:
    """An array of ``shape`` and ``dtype`` drawn from ``rng`` (a ``numpy.random.Generator``).

    ``bool``: False/True with probability 1/2 each; integer dtypes: uniform in
    ``[ints[0], ints[1])`` narrowed to the dtype's range; other (floating) dtypes: uniform in
    ``[floats[0], floats[1])``, or standard normal when ``floats == "normal"``."""
    shape = tuple(int(d) for d in shape)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        lo, hi = max(int(info.min), ints[0]), min(int(info.max) + 1, ints[1])
        return rng.integers(lo, hi, size=shape).astype(dtype)
    if isinstance(floats, str):
        if floats != "normal":
            raise ValueError(f"random_array: floats is a (low, high) pair or 'normal', "
                             f"got {floats!r}")
        return rng.standard_normal(shape).astype(dtype)
    low, high = floats
    return rng.uniform(low, high, size=shape).astype(dtype)


__all__ = ["random_array"]
