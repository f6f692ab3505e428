"""``topi.sort`` / ``argsort`` / ``topk`` along one axis, written as counting reductions
(no sorting network or extern call): an element's *rank* is the number of elements that
come before it in the requested order (ties broken by position, so the sort is stable),
and output position r gathers the element of rank r. Each stage does O(n^2) work per
sorted row, n the extent of the axis."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import IntImm, const
from .utils import get_const_int


def _axis(data, axis, what):
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.{what}: data must be a te.Tensor, got {data!r}")
    n = len(data.shape)
    if not isinstance(axis, int) or not -n <= axis < n:
        raise TepadError(f"topi.{what}: axis {axis!r} is out of range for {n} dimensions")
    return axis % n


def _rank(data, ax, is_ascend, name):
    n = data.shape[ax]

    def body(*i):
        j = reduce_axis((0, n), name="j")
        other = data[i[:ax] + (j,) + i[ax + 1:]]
        mine = data[i]
        before = (other < mine) if is_ascend else (other > mine)
        earlier = tirop.any(before, tirop.all(other == mine, j < i[ax]))
        return te_op.sum(tirop.if_then_else(earlier, const(1, "int32"), const(0, "int32")),
                         axis=j)
    return compute(data.shape, body, name=name, tag="sort_rank")


def _gather_by_rank(data, rank, ax, count, value, dtype, name):
    n = data.shape[ax]
    shape = tuple(data.shape[:ax]) + (count,) + tuple(data.shape[ax + 1:])

    def body(*r):
        i = reduce_axis((0, n), name="i")
        at = r[:ax] + (i,) + r[ax + 1:]
        return te_op.sum(tirop.if_then_else(rank[at] == r[ax], value(at, i), const(0, dtype)),
                         axis=i)
    return compute(shape, body, name=name, tag="sort_gather")


def sort(data, axis=-1, is_ascend=1):
    """``data`` sorted along ``axis`` (ascending unless ``is_ascend`` is false; stable)."""
    ax = _axis(data, axis, "sort")
    rank = _rank(data, ax, bool(is_ascend), "sort_rank")
    return _gather_by_rank(data, rank, ax, data.shape[ax], lambda at, i: data[at],
                           data.dtype, "T_sort")


def argsort(data, valid_count=None, axis=-1, is_ascend=1, dtype="float32"):
    """The positions along ``axis`` that sort ``data`` (stable), as ``dtype`` (TVM's default
    is float32). ``valid_count`` is not supported (a TepadError)."""
    if valid_count is not None:
        raise TepadError("topi.argsort: valid_count is not supported")
    ax = _axis(data, axis, "argsort")
    rank = _rank(data, ax, bool(is_ascend), "argsort_rank")
    return _gather_by_rank(data, rank, ax, data.shape[ax], lambda at, i: i.var.astype(dtype),
                           dtype, "T_argsort")


def topk(data, k=1, axis=-1, ret_type="both", is_ascend=False, dtype="int64"):
    """The ``k`` largest (smallest with ``is_ascend``) elements along ``axis`` in order
    (``k`` < 1: all of them): ``ret_type`` "values", "indices" (as ``dtype``) or "both"
    (``[values, indices]``)."""
    if ret_type not in ("both", "values", "indices"):
        raise TepadError(f"topi.topk: ret_type must be 'both', 'values' or 'indices', got "
                         f"{ret_type!r}")
    ax = _axis(data, axis, "topk")
    extent = data.shape[ax]
    kk = get_const_int(k) if not isinstance(k, int) else k
    if kk >= 1 and isinstance(extent, IntImm) and kk > extent.value:
        raise TepadError(f"topi.topk: k = {kk} exceeds the {extent.value} elements along "
                         f"axis {ax}")
    count = kk if kk >= 1 else extent
    rank = _rank(data, ax, bool(is_ascend), "topk_rank")
    outs = []
    if ret_type in ("both", "values"):
        outs.append(_gather_by_rank(data, rank, ax, count, lambda at, i: data[at], data.dtype,
                                    "T_topk_values"))
    if ret_type in ("both", "indices"):
        outs.append(_gather_by_rank(data, rank, ax, count, lambda at, i: i.var.astype(dtype),
                                    dtype, "T_topk_indices"))
    return outs if ret_type == "both" else outs[0]


__all__ = ["sort", "argsort", "topk"]
