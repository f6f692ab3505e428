"""Reductions over axes (TVM's ``topi.sum`` / ``topi.max`` / ``topi.min``)."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import const, floordiv, floormod, select


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


def _sum_reducer(e, axis):
    # a bool sum saturates at true (numpy's sum(dtype=bool)): i1 addition would wrap to xor
    if e.dtype == "bool":
        return _any(e, axis=axis)
    return te_op.sum(e, axis=axis)


sum = _reduce("sum", _sum_reducer)  # noqa: A001 - TVM name
max = _reduce("max", te_op.max)  # noqa: A001 - TVM name
min = _reduce("min", te_op.min)  # noqa: A001 - TVM name

_prod = te_op.comm_reducer(lambda a, b: a * b, lambda dtype: const(1, dtype), name="prod")
_all = te_op.comm_reducer(lambda a, b: a & b, lambda dtype: const(True, "bool"), name="all")
_any = te_op.comm_reducer(lambda a, b: a | b, lambda dtype: const(False, "bool"), name="any")


def _bool_reduce(reducer):
    def red(e, axis):
        return reducer(e if e.dtype == "bool" else e != const(0, e.dtype), axis=axis)
    return red


prod = _reduce("prod", _prod)
all = _reduce("all", _bool_reduce(_all))  # noqa: A001 - TVM name
any = _reduce("any", _bool_reduce(_any))  # noqa: A001 - TVM name


def _arg_reduce(what, better):
    """argmax / argmin: a (index, value) tuple reduction; ties keep the smaller index."""
    def combine(x, y):
        take_y = better(y[1], x[1]) | ((y[1] == x[1]) & (y[0] < x[0]))
        return (select(take_y, y[0], x[0]), select(take_y, y[1], x[1]))

    def identity(t0, t1):
        worst = tirop.min_value(t1) if what == "argmax" else tirop.max_value(t1)
        return (const(-1, t0), worst)
    reducer = te_op.comm_reducer(combine, identity, name=what)

    def op(data: Tensor, axis=None, keepdims=False, select_last_index=False):
        if select_last_index:
            raise TepadError(f"topi.{what}: select_last_index=True is not supported")
        axes = _axes(data, axis, what)
        if len(axes) != 1 and axis is not None:
            raise TepadError(f"topi.{what} reduces one axis, got {axis!r}")
        flat = data if axis is not None else _flatten(data)
        ax = axes[0] if axis is not None else 0
        k = reduce_axis((0, flat.shape[ax]), name="k")
        shape = [s for j, s in enumerate(flat.shape) if j != ax or keepdims]
        if keepdims:
            shape[ax] = 1

        def body(*idx):
            idx = list(idx)
            if keepdims:
                idx.pop(ax)
            full = tuple(idx[:ax]) + (k,) + tuple(idx[ax:])
            return reducer((k.var.astype("int32"), flat[full]), axis=k)
        pair = compute(tuple(shape), body, name=f"{data.name}_red_temp",
                       tag="comm_reduce_idx")
        if axis is None and keepdims:
            return compute((1,) * len(data.shape), lambda *i: pair[0][0],
                           name=f"{data.name}_{what}", tag="injective")
        # the index as a stage of its own: the pair's value half stays an intermediate
        return compute(tuple(shape), lambda *i: pair[0][i], name=f"{data.name}_{what}",
                       tag="injective")
    op.__name__ = what
    op.__doc__ = (f"The index of the {what[3:]} of ``data`` along ``axis`` (None: of the "
                  "flattened data), int32; ties give the first index.")
    return op


def _flatten(x):
    n = 1
    for s in x.shape:
        n = n * s
    shape = list(x.shape)

    def body(i):
        idx = []
        for s in reversed(shape):
            idx.append(floormod(i, s))
            i = floordiv(i, s)
        return x[tuple(reversed(idx))]
    return compute((n,), body, name=f"{x.name}_flat", tag="injective")


def collapse_sum(data: Tensor, target_shape):
    """``data`` summed down to ``target_shape``, the inverse of broadcasting ``target_shape``
    to ``data``'s shape: leading axes ``target_shape`` lacks and axes where it has extent 1
    (and ``data`` does not) are summed away; the result has exactly ``target_shape``."""
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.collapse_sum: data must be a te.Tensor, got {data!r}")
    target = list(target_shape)
    n, m = len(data.shape), len(target)
    if m > n:
        raise TepadError(f"topi.collapse_sum: target shape {target} has more axes than "
                         f"{data.name} {list(data.shape)}")

    def is_one(e):
        return isinstance(e, int) and e == 1 or getattr(e, "value", None) == 1
    summed = [k for k in range(n) if k < n - m or
              (is_one(target[k - n + m]) and not is_one(data.shape[k]))]
    rvs = {k: reduce_axis((0, data.shape[k]), name=f"k{k}") for k in summed}

    def body(*idx):
        src = []
        for k in range(n):
            if k in rvs:
                src.append(rvs[k])
            elif k >= n - m and is_one(target[k - n + m]):
                src.append(const(0, "int32"))
            else:
                src.append(idx[k - n + m])
        return te_op.sum(data[tuple(src)], axis=list(rvs.values())) if rvs else data[tuple(src)]
    return compute(tuple(target), body, name=f"{data.name}_collapse_sum",
                   tag="comm_reduce" if rvs else "injective")


argmax = _arg_reduce("argmax", lambda a, b: a > b)
argmin = _arg_reduce("argmin", lambda a, b: a < b)

__all__ = ["sum", "max", "min", "prod", "all", "any", "argmax", "argmin", "collapse_sum"]
