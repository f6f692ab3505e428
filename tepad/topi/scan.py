"""``topi.cumsum`` / ``cumprod`` / ``scanop`` (TVM's ``topi.scan``) and ``topi.searchsorted``.

Each output element is one reduction over the elements before it along the axis (O(n^2)
work per row, no sequential scan stage), summed in index order, so float results match a
sequential running sum bit for bit. ``searchsorted`` counts the sorted elements below each
value (O(n) per value)."""
from __future__ import annotations

import math

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import const
from .transform import reshape
from .utils import get_const_tuple

_prod = te_op.comm_reducer(lambda a, b: a * b, lambda dtype: const(1, dtype), name="prod")


def _scan(data, axis, dtype, exclusive, what, reducer, identity):
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.{what}: data must be a te.Tensor, got {data!r}")
    if axis is None:
        data = reshape(data, [math.prod(get_const_tuple(data.shape))])
        axis = 0
    n_dim = len(data.shape)
    if not isinstance(axis, int) or not -n_dim <= axis < n_dim:
        raise TepadError(f"topi.{what}: axis {axis!r} is out of range for {n_dim} dimensions")
    ax = axis % n_dim
    dtype = dtype or data.dtype
    n = data.shape[ax]

    def body(*i):
        j = reduce_axis((0, n), name="j")
        upto = (j < i[ax]) if exclusive else (j <= i[ax])
        v = data[i[:ax] + (j,) + i[ax + 1:]].astype(dtype)
        return reducer(tirop.if_then_else(upto, v, const(identity, dtype)), axis=j)
    return compute(data.shape, body, name=f"T_{what}", tag="scan")


def scanop(data, binop, identity_value, op_name, axis=None, dtype=None, exclusive=None):
    """The cumulative ``binop`` of ``data`` along ``axis`` (None: of the flattened data):
    element ``i`` is ``binop(...binop(binop(identity, x[0]), x[1])..., x[i])`` (``exclusive``:
    up to ``x[i - 1]``; the first is ``identity_value``), in ``dtype`` (default: ``data``'s).
    ``binop(a, b)`` maps two expressions to one (``tvm.tir.generic.add``, ``tir.max``, ...);
    ``op_name`` names the stage ``T_<op_name>``. ``cumsum`` / ``cumprod`` are this with
    addition / multiplication."""
    if not callable(binop):
        raise TepadError(f"topi.scanop: binop must be a function of two expressions, got "
                         f"{binop!r}")
    reducer = te_op.comm_reducer(lambda a, b: binop(a, b),
                                 lambda d: const(identity_value, d), name=str(op_name))
    return _scan(data, axis, dtype, bool(exclusive), str(op_name), reducer, identity_value)


def cumsum(data, axis=None, dtype=None, exclusive=None):
    """Running sums of ``data`` along ``axis`` (None: of the flattened data) in ``dtype``
    (default: ``data``'s); ``exclusive`` leaves the current element out (the first is 0)."""
    return _scan(data, axis, dtype, bool(exclusive), "cumsum", te_op.sum, 0)


def cumprod(data, axis=None, dtype=None, exclusive=None):
    """Running products of ``data`` along ``axis``; otherwise as ``cumsum`` (the first
    exclusive product is 1)."""
    return _scan(data, axis, dtype, bool(exclusive), "cumprod", _prod, 1)


def searchsorted(sorted_sequence, values, right=False, out_dtype="int64"):
    """For each of ``values``, the index at which it would be inserted into
    ``sorted_sequence`` (sorted along its last axis) to keep it sorted: the count of
    elements below it (``right``: at or below it). A 1-d sequence serves all values;
    otherwise the leading axes of the two correspond."""
    for nm, t in (("sorted_sequence", sorted_sequence), ("values", values)):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.searchsorted: {nm} must be a te.Tensor, got {t!r}")
    seq_nd = len(sorted_sequence.shape)
    if seq_nd != 1 and get_const_tuple(sorted_sequence.shape[:-1]) != \
            get_const_tuple(values.shape[:-1]):
        raise TepadError(f"topi.searchsorted: the leading axes of {sorted_sequence.name} "
                         f"{list(sorted_sequence.shape)} and {values.name} "
                         f"{list(values.shape)} must agree")
    n = sorted_sequence.shape[-1]

    def body(*i):
        j = reduce_axis((0, n), name="j")
        s = sorted_sequence[(j,) if seq_nd == 1 else i[:-1] + (j,)]
        below = (s <= values[i]) if right else (s < values[i])
        return te_op.sum(tirop.if_then_else(below, const(1, out_dtype), const(0, out_dtype)),
                         axis=j)
    return compute(values.shape, body, name="T_searchsorted", tag="searchsorted")


__all__ = ["cumsum", "cumprod", "scanop", "searchsorted"]
