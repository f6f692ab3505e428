"""Reductions over axes (TVM's ``topi.sum`` / ``topi.max`` / ``topi.min``)."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op


def _axes(x: Tensor, axis, what):
    n = len(x.shape)
    if axis is None:
        return list(range(n))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -n <= a < n:
            raise TepadError(f"topi.{what}: axis {a} is out of range for {x.name}, which has "
                             f"{n} dimensions")
        out.append(a % n)
    return sorted(set(out))


def _reduce(what, reducer):
    def op(data: Tensor, axis=None, keepdims=False):
        axes = _axes(data, axis, what)
        shape = []
        for k, s in enumerate(data.shape):
            if k not in axes:
                shape.append(s)
            elif keepdims:
                shape.append(1)

        def body(*idx):
            rvs = [reduce_axis((0, data.shape[k]), name=f"k{k}") for k in axes]
            it = iter(idx)
            full, r = [], iter(rvs)
            for k in range(len(data.shape)):
                if k in axes:
                    if keepdims:
                        next(it)
                    full.append(next(r))
                else:
                    full.append(next(it))
            return reducer(data[tuple(full)], axis=rvs)
        return compute(tuple(shape), body, name=f"{data.name}_{what}", tag="comm_reduce")
    op.__name__ = what
    op.__doc__ = (f"{what.capitalize()} of ``data`` over ``axis`` (an int, a list, or None for "
                  "all axes); ``keepdims`` keeps reduced axes with extent 1.")
    return op


sum = _reduce("sum", te_op.sum)  # noqa: A001 - TVM name
max = _reduce("max", te_op.max)  # noqa: A001 - TVM name
min = _reduce("min", te_op.min)  # noqa: A001 - TVM name

__all__ = ["sum", "max", "min"]
