"""Activations and small per-channel operators of ``topi.nn``: relu, leaky_relu, prelu,
bias_add, flatten."""
from __future__ import annotations

import math

from ...errors import TepadError
from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod, select
from .utils import const_extents


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise."""
    return compute(x.shape, lambda *i: tirop.max(x[i], const(0, x.dtype)), name="compute",
                   tag="elemwise")


def leaky_relu(x: Tensor, alpha: float) -> Tensor:
    """``x`` where positive, else ``alpha * x``."""
    a = const(alpha, x.dtype)
    return compute(x.shape, lambda *i: select(x[i] > const(0, x.dtype), x[i], x[i] * a),
                   name="compute", tag="elemwise")


def prelu(x: Tensor, slope: Tensor, axis: int = 1) -> Tensor:
    """``x`` where positive, else ``slope[c] * x`` with ``c`` the index along ``axis``
    (``slope`` is 1-d, one value per channel)."""
    n = len(x.shape)
    if not -n <= axis < n:
        raise TepadError(f"prelu: axis {axis} is out of range for {x.name} ({n} dims)")
    axis %= n
    if len(slope.shape) != 1:
        raise TepadError(f"prelu: slope {slope.name} must be 1-d, got {list(slope.shape)}")
    return compute(x.shape, lambda *i: select(x[i] > const(0, x.dtype), x[i],
                                              x[i] * slope[i[axis]]),
                   name="compute", tag="broadcast")


def bias_add(data: Tensor, bias: Tensor, axis: int = 1) -> Tensor:
    """``data + bias`` with the 1-d ``bias`` laid along ``axis`` of ``data``."""
    n = len(data.shape)
    if not -n <= axis < n:
        raise TepadError(f"bias_add: axis {axis} is out of range for {data.name} ({n} dims)")
    axis %= n
    return compute(data.shape, lambda *i: data[i] + bias[i[axis]], name="T_add",
                   tag="broadcast")


def flatten(data: Tensor) -> Tensor:
    """``data`` as (batch, everything else), row-major."""
    rest = const_extents(data.shape[1:], "flatten", [f"axis {k}" for k in
                                                       range(1, len(data.shape))])
    dims = rest

    def body(b, j):
        idx = []
        for s in reversed(dims):
            idx.append(floormod(j, s))
            j = floordiv(j, s)
        return data[(b,) + tuple(reversed(idx))]
    return compute((data.shape[0], math.prod(rest)), body, name="compute", tag="injective")


__all__ = ["relu", "leaky_relu", "prelu", "bias_add", "flatten"]
