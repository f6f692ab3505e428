"""Elementwise activations (``topi.nn.relu``)."""
from __future__ import annotations

from ...tensor import Tensor, compute
from ...tir import op as tirop
from ...tir.expr import const


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise."""
    return compute(x.shape, lambda *i: tirop.max(x[i], const(0, x.dtype)), name="compute",
                   tag="elemwise")


__all__ = ["relu"]
