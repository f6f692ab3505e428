"""``topi.argwhere``: the coordinates of the nonzero elements of ``condition``, in row-major
order, one row each. The number of rows is static: it is the first extent of
``output_shape`` (a tensor whose *shape* is the result's, as TVM's signature has it).

Written, as TVM writes it, as an extern stage whose statement walks the condition once
with a running row counter (rows past the counter's end are left untouched, nonzeros past
the last row are dropped). Under a CUDA target the walk runs in a single GPU thread."""
from __future__ import annotations

from ..errors import TepadError
from ..target import Target
from ..tensor import Tensor
from ..tensor.extern import extern
from ..tensor.operation import thread_axis
from ..tir import ir_builder
from ..tir.expr import const
from .utils import get_const_tuple


def _walk(cond, out, cuda):
    shape = get_const_tuple(cond.shape)
    rows = get_const_tuple(out.shape)[0]
    total = 1
    for s in shape:
        total *= s
    ib = ir_builder.create()
    if cuda:
        for tag in ("blockIdx.x", "threadIdx.x"):
            ib.scope_attr(thread_axis(tag), "thread_extent", 1)
    c = ib.buffer_ptr(cond)
    o = ib.buffer_ptr(out)
    cnt = ib.allocate("int32", (1,), name="row", scope="local")
    cnt[0] = const(0, "int32")
    with ib.for_range(0, total, name="q") as q:
        with ib.if_scope(c[q] != const(0, cond.dtype)):
            with ib.if_scope(cnt[0] < rows):
                rest = q
                ndim = len(shape)
                for d in range(ndim - 1, -1, -1):
                    o[cnt[0] * ndim + d] = (rest % shape[d]).astype(out.dtype)
                    rest = rest // shape[d]
            cnt[0] = cnt[0] + 1
    return ib.get()


def argwhere(output_shape: Tensor, condition: Tensor) -> Tensor:
    """(rows, ndim) int32 coordinates of the nonzeros of ``condition``; ``rows`` is
    ``output_shape.shape[0]``."""
    for t, what in ((output_shape, "output_shape"), (condition, "condition")):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.argwhere: {what} must be a te.Tensor, got {t!r}")
    oshape = get_const_tuple(output_shape.shape)
    if len(oshape) != 2 or oshape[1] != len(condition.shape):
        raise TepadError(f"topi.argwhere: output_shape's shape must be (rows, "
                         f"{len(condition.shape)}), got {oshape}")
    tgt = Target.current()
    cuda = tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)
    return extern(oshape, [condition], lambda ins, outs: _walk(ins[0], outs[0], cuda),
                  name="argwhere", dtype="int32", tag="argwhere")


__all__ = ["argwhere"]
