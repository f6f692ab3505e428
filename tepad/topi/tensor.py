"""Tensor-creating helpers of TVM's ``topi.tensor``: ``elemwise_sum``."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute
from ..tir.expr import IntImm


def elemwise_sum(xs) -> Tensor:
    """The elementwise sum of the tensors ``xs`` (a non-empty list of one shape and dtype),
    as one compute stage ``T_elemwise_sum``."""
    xs = list(xs)
    if not xs or not all(isinstance(x, Tensor) for x in xs):
        raise TepadError(f"topi.elemwise_sum takes a non-empty list of tensors, got {xs!r}")
    first = xs[0]
    for x in xs[1:]:
        same = len(x.shape) == len(first.shape) and all(
            a is b or (isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value)
            for a, b in zip(x.shape, first.shape))
        if not same or x.dtype != first.dtype:
            raise TepadError(f"topi.elemwise_sum: {x.name} {list(x.shape)} {x.dtype} differs "
                             f"from {first.name} {list(first.shape)} {first.dtype}; every "
                             "input needs the same shape and dtype (broadcast with topi.add)")

    def body(*idx):
        acc = xs[0][idx]
        for x in xs[1:]:
            acc = acc + x[idx]
        return acc
    return compute(first.shape, body, name="T_elemwise_sum", tag="elemwise")


__all__ = ["elemwise_sum"]
