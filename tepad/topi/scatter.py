"""``topi.scatter_nd``: ``out`` is ``data`` with ``updates`` combined in at the positions
``indices`` names. ``indices`` is (M, Y1..Yk), ``updates`` (Y1..Yk, rest...), ``data``
(D1..DM, rest...): update ``y`` goes to ``data[indices[0, y], ..., indices[M-1, y], ...]``.

TVM writes this as an extern kernel; here each output element is a reduction over every
update position (``where`` its indices match), so it is ordinary TE: O(size(data) x Y)
work. Modes: "add" (sum), "mul" (product), "min", "max" (the reduction starts from the data element),
"update" (the last matching update in row-major order of Y wins; a second stage holds the
position of that update)."""
from __future__ import annotations

from .. import tir
from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import const
from .utils import get_const_tuple

_MODES = ("update", "add", "mul", "min", "max")
_prod = te_op.comm_reducer(lambda x, y: x * y, lambda d: const(1, d), name="prod")


def scatter_nd(data: Tensor, indices: Tensor, updates: Tensor, mode: str = "update") -> Tensor:
    """See the module doc. ``mode`` one of "update", "add", "mul", "min", "max"."""
    for t, what in ((data, "data"), (indices, "indices"), (updates, "updates")):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.scatter_nd: {what} must be a te.Tensor, got {t!r}")
    if mode not in _MODES:
        raise TepadError(f"topi.scatter_nd: mode must be one of {_MODES}, got {mode!r}")
    dshape, ishape, ushape = (get_const_tuple(t.shape) for t in (data, indices, updates))
    m, ys = ishape[0], ishape[1:]
    if m > len(dshape) or tuple(ushape[:len(ys)]) != tuple(ys) or \
            tuple(ushape[len(ys):]) != tuple(dshape[m:]):
        raise TepadError(f"topi.scatter_nd: shapes do not fit: data {dshape}, indices {ishape} "
                         f"(M={m} index rows over Y={ys}), updates {ushape} (must be Y + "
                         f"data[M:] = {tuple(ys) + tuple(dshape[m:])})")
    if data.dtype != updates.dtype:
        raise TepadError(f"topi.scatter_nd: data ({data.dtype}) and updates ({updates.dtype}) "
                         "must have one dtype")
    dtype = data.dtype

    def parts(idx, tag):
        axes = [reduce_axis((0, y), name=f"{tag}{k}") for k, y in enumerate(ys)]
        conds = [indices[(i, *axes)] == idx[i].astype(indices.dtype) for i in range(m)]
        return axes, tirop.all(*conds) if len(conds) > 1 else conds[0]

    if mode == "update":
        def last(*idx):
            axes, match = parts(idx, "y")
            flat = const(0, "int32")
            for ax, y in zip(axes, ys):
                flat = flat * y + ax.var
            return te_op.max(tirop.if_then_else(match, flat, const(-1, "int32")), axis=axes)
        pos = compute(dshape, last, name="scatter_nd_last")

        def pick(*idx):
            p = pos[idx]
            src, rest = [], p
            for y in reversed(ys):
                src.append(tir.expr.floormod(rest, y))
                rest = tir.expr.floordiv(rest, y)
            src = src[::-1]
            return tirop.if_then_else(p >= 0, updates[(*src, *idx[m:])], data[idx])
        return compute(dshape, pick, name="scatter_nd", tag="scatter_nd")

    def body(*idx):
        axes, match = parts(idx, "y")
        u = updates[(*axes, *idx[m:])]
        reducer = {"add": te_op.sum, "mul": _prod, "min": te_op.min, "max": te_op.max}[mode]
        return reducer(u, axis=axes, where=match, init=data[idx])
    return compute(dshape, body, name="scatter_nd", tag="scatter_nd")


__all__ = ["scatter_nd"]
