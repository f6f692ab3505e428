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


def _argwhere(oshape, condition, what):
    if not isinstance(condition, Tensor):
        raise TepadError(f"topi.{what}: condition must be a te.Tensor, got {condition!r}")
    if len(oshape) != 2 or oshape[1] != len(condition.shape):
        raise TepadError(f"topi.{what}: output_shape's shape must be (rows, "
                         f"{len(condition.shape)}), got {oshape}")
    tgt = Target.current()
    cuda = tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)
    return extern(oshape, [condition], lambda ins, outs: _walk(ins[0], outs[0], cuda),
                  name="argwhere", dtype="int32", tag="argwhere")


def argwhere(output_shape: Tensor, condition: Tensor) -> Tensor:
    """(rows, ndim) int32 coordinates of the nonzeros of ``condition``; ``rows`` is
    ``output_shape.shape[0]``."""
    if not isinstance(output_shape, Tensor):
        raise TepadError(f"topi.argwhere: output_shape must be a te.Tensor, got "
                         f"{output_shape!r}")
    return _argwhere(get_const_tuple(output_shape.shape), condition, "argwhere")


def _hybrid(ndim):
    what = f"hybrid_argwhere_{ndim}d"

    def op(output_shape, condition):
        if isinstance(output_shape, Tensor):
            output_shape = output_shape.shape
        if isinstance(condition, Tensor) and len(condition.shape) != ndim:
            raise TepadError(f"topi.{what}: condition must be {ndim}-d, got "
                             f"{list(condition.shape)}")
        return _argwhere(get_const_tuple(output_shape), condition, what)
    op.__name__ = what
    op.__doc__ = (f"TVM's hybrid-script kernel of ``argwhere`` for {ndim}-d ``condition``: "
                  "the same walk, with ``output_shape`` a shape (rows, ndim) (or a tensor of "
                  "that shape).")
    return op


hybrid_argwhere_1d, hybrid_argwhere_2d, hybrid_argwhere_3d, hybrid_argwhere_4d, \
    hybrid_argwhere_5d = (_hybrid(n) for n in range(1, 6))


__all__ = ["argwhere", "hybrid_argwhere_1d", "hybrid_argwhere_2d", "hybrid_argwhere_3d",
           "hybrid_argwhere_4d", "hybrid_argwhere_5d"]
