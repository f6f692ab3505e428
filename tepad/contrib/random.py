"""TVM's ``tvm.contrib.random``: tensors of random numbers as extern stages, drawn by
numpy's generator through registered packed functions (``tvm.contrib.random.uniform`` /
``normal`` / ``randint``). ``seed(s)`` makes the draws repeatable."""
from __future__ import annotations

import numpy as np

from ..errors import TepadError
from ..runtime.registry import register_func
from ..tensor import extern
from ..tir.op import call_packed

_rng = [np.random.default_rng()]


def seed(value: int) -> None:
    """Restart the generator the random stages draw from at ``value``."""
    _rng[0] = np.random.default_rng(int(value))


def _uniform(low, high, out):
    a = np.asarray(out)
    a[...] = _rng[0].uniform(low, high, a.shape)


def _normal(loc, scale, out):
    a = np.asarray(out)
    a[...] = _rng[0].normal(loc, scale, a.shape)


def _randint(low, high, out):
    a = np.asarray(out)
    a[...] = _rng[0].integers(low, high, a.shape, endpoint=False)


register_func("tvm.contrib.random.uniform", _uniform, override=True)
register_func("tvm.contrib.random.normal", _normal, override=True)
register_func("tvm.contrib.random.randint", _randint, override=True)


def _shape(size):
    return (size,) if isinstance(size, int) else tuple(size)


def uniform(low, high, size, dtype="float32"):
    """A tensor of ``size`` drawn uniformly from ``[low, high)``."""
    if not high > low:
        raise TepadError(f"random.uniform: high ({high}) must be above low ({low})")
    return extern(_shape(size), [], lambda ins, outs: call_packed(
        "tvm.contrib.random.uniform", float(low), float(high), outs[0]), dtype=dtype,
        name="uniform")


def normal(loc, scale, size, dtype="float32"):
    """A tensor of ``size`` drawn from the normal distribution N(``loc``, ``scale``)."""
    if not scale > 0:
        raise TepadError(f"random.normal: scale must be positive, got {scale}")
    return extern(_shape(size), [], lambda ins, outs: call_packed(
        "tvm.contrib.random.normal", float(loc), float(scale), outs[0]), dtype=dtype,
        name="normal")


def randint(low, high, size, dtype="int32"):
    """A tensor of ``size`` of integers drawn uniformly from ``[low, high)``."""
    if not int(high) > int(low):
        raise TepadError(f"random.randint: high ({high}) must be above low ({low})")
    return extern(_shape(size), [], lambda ins, outs: call_packed(
        "tvm.contrib.random.randint", int(low), int(high), outs[0]), dtype=dtype,
        name="randint")


__all__ = ["uniform", "normal", "randint", "seed"]
