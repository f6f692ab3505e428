"""``topi.scatter_elements`` and ``topi.scatter_add``: ``data`` with each element of
``updates`` combined into the position of ``data`` that ``indices`` (same shape as
``updates``) names along ``axis``; the other coordinates are the update's own:

    out[..., indices[p], ...] = f(out[..., indices[p], ...], updates[p])   (p over updates)

A negative index counts from the end of the axis. Written, as TVM writes it, as an extern
stage: the output is a copy of ``data``, then the updates are applied one after another
(for each position off the axis, along the axis), so duplicate indices combine in that
order ("update": the last one wins; "mean": each step averages with the value so far). Under
a CUDA target the walk runs in one GPU thread (exact, not fast)."""
from __future__ import annotations

from ..errors import TepadError
from ..target import Target
from ..tensor import Tensor
from ..tensor.extern import extern
from ..tensor.operation import thread_axis
from ..tir import ir_builder
from ..tir import op as tirop
from ..tir.expr import const
from .utils import get_const_tuple

REDUCTIONS = ("update", "add", "mul", "mean", "min", "max")


def _combine(reduction, old, new):
    if reduction == "update":
        return new
    if reduction == "add":
        return old + new
    if reduction == "mul":
        return old * new
    if reduction == "mean":
        return (old + new) / const(2, old.dtype)
    return tirop.min(old, new) if reduction == "min" else tirop.max(old, new)


def _on_gpu() -> bool:
    tgt = Target.current()
    return tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)


def _walk(data, indices, updates, out, axis, reduction, gpu):
    dshape = get_const_tuple(data.shape)
    ishape = get_const_tuple(indices.shape)
    total = 1
    for d in dshape:
        total *= d
    after_d = 1
    for d in dshape[axis + 1:]:
        after_d *= d
    before_i, after_i = 1, 1
    for d in ishape[:axis]:
        before_i *= d
    for d in ishape[axis + 1:]:
        after_i *= d
    ib = ir_builder.create()
    if gpu:
        for tag in ("blockIdx.x", "threadIdx.x"):
            ib.scope_attr(thread_axis(tag), "thread_extent", 1)
    d_ = ib.buffer_ptr(data)
    i_ = ib.buffer_ptr(indices)
    u_ = ib.buffer_ptr(updates)
    o_ = ib.buffer_ptr(out)
    with ib.for_range(0, total, name="q") as q:
        o_[q] = d_[q]
    with ib.for_range(0, before_i * after_i, name="f") as f:
        b = f // after_i
        a = f % after_i
        # the coordinates off the axis, ravelled in data's shape (indices may be smaller)
        rest = b
        base = const(0, "int32")
        stride = after_d * dshape[axis]
        for d in range(axis - 1, -1, -1):
            base = base + (rest % ishape[d]) * stride
            rest = rest // ishape[d]
            stride *= dshape[d]
        rest = a
        stride = 1
        for d in range(len(ishape) - 1, axis, -1):
            base = base + (rest % ishape[d]) * stride
            rest = rest // ishape[d]
            stride *= dshape[d]
        with ib.for_range(0, ishape[axis], name="k") as k:
            src = (b * ishape[axis] + k) * after_i + a
            idx = i_[src].astype("int32")
            idx = tirop.if_then_else(idx < 0, idx + dshape[axis], idx)
            dst = base + idx * after_d
            o_[dst] = _combine(reduction, o_[dst], u_[src])
    return ib.get()


def _scatter(what, data, indices, updates, axis, reduction):
    for t, nm in ((data, "data"), (indices, "indices"), (updates, "updates")):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.{what}: {nm} must be a te.Tensor, got {t!r}")
    if reduction not in REDUCTIONS:
        raise TepadError(f"topi.{what}: reduction must be one of {REDUCTIONS}, got "
                         f"{reduction!r}")
    ndim = len(data.shape)
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise TepadError(f"topi.{what}: axis {axis} is out of range for {ndim}-d data")
    axis %= ndim
    ishape, ushape = get_const_tuple(indices.shape), get_const_tuple(updates.shape)
    dshape = get_const_tuple(data.shape)
    if ishape != ushape or len(ishape) != ndim or \
            any(i > d for k, (i, d) in enumerate(zip(ishape, dshape)) if k != axis):
        raise TepadError(f"topi.{what}: indices {ishape} and updates {ushape} must have one "
                         f"shape, of data's rank, no larger than data {dshape} off axis "
                         f"{axis}")
    if updates.dtype != data.dtype:
        raise TepadError(f"topi.{what}: updates ({updates.dtype}) and data ({data.dtype}) "
                         "must have one dtype")
    if "int" not in indices.dtype:
        raise TepadError(f"topi.{what}: indices must be integers, got {indices.dtype}")
    gpu = _on_gpu()
    return extern([dshape], [data, indices, updates],
                  lambda ins, outs: _walk(*ins, outs[0], axis, reduction, gpu),
                  name=what, dtype=data.dtype, tag=what)


def scatter_elements(data, indices, updates, axis=0, reduction="update"):
    """See the module doc; ``reduction`` one of "update", "add", "mul", "mean", "min",
    "max"."""
    return _scatter("scatter_elements", data, indices, updates, axis, reduction)


def scatter_add(data, indices, updates, axis=0):
    """``scatter_elements`` with ``reduction="add"``: duplicates accumulate."""
    return _scatter("scatter_add", data, indices, updates, axis, "add")


__all__ = ["scatter_elements", "scatter_add"]
