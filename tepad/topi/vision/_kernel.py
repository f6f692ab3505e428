"""Shared pieces of the object-detection kernels of ``topi.vision`` (NMS, SSD, proposal).

These operators are data-dependent walks (compaction, greedy suppression), written as
``te.extern`` stages built with ``tir.ir_builder``. On a CPU target a walk runs as a loop
(parallel over independent rows where there are several); under a CUDA target the kernel
binds its own threads: ``launch`` gives one GPU thread per independent item (a batch row,
a box), each running the sequential walk for its item, so the schedules of these stages
have nothing left to bind."""
from __future__ import annotations

from ...errors import TepadError
from ...target import Target
from ...tensor import Tensor
from ...tensor.operation import thread_axis
from ...tir import op as tirop
from ...tir.expr import PrimExpr, const

_GPU_THREADS = 128


def on_gpu() -> bool:
    """Whether the current target is a GPU (CUDA) one."""
    t = Target.current()
    return t is not None and ("cuda" in t.keys or "gpu" in t.keys)


def launch(ib, total, gpu: bool, name: str = "t"):
    """Emit the loop (CPU: parallel ``for``; GPU: a grid of ``threadIdx.x`` x ``blockIdx.x``
    threads guarded by ``tid < total``) over ``total`` (a Python int) independent items and
    return a context manager yielding the item index."""
    total = int(total)
    if not gpu:
        return ib.for_range(0, total, name=name, kind="parallel")
    nthreads = max(1, min(_GPU_THREADS, total))
    nblocks = max(1, (total + nthreads - 1) // nthreads)
    bx = thread_axis("blockIdx.x")
    tx = thread_axis("threadIdx.x")
    ib.scope_attr(bx, "thread_extent", nblocks)
    ib.scope_attr(tx, "thread_extent", nthreads)
    tid = bx.var * nthreads + tx.var

    class _Guard:
        def __enter__(self):
            self._scope = ib.if_scope(tid < total)
            self._scope.__enter__()
            return tid

        def __exit__(self, *exc):
            return self._scope.__exit__(*exc)
    return _Guard()


def box_iou(l_a, t_a, r_a, b_a, l_b, t_b, r_b, b_b, dtype, plus_one=False):
    """Intersection over union of two boxes given by their corners (left <= right,
    top <= bottom); 0 when the union is empty. ``plus_one``: pixel-inclusive sides
    (width = right - left + 1), as R-CNN's proposal counts them."""
    one = const(1.0 if plus_one else 0.0, dtype)
    zero = const(0.0, dtype)
    w = tirop.max(zero, tirop.min(r_a, r_b) - tirop.max(l_a, l_b) + one)
    h = tirop.max(zero, tirop.min(b_a, b_b) - tirop.max(t_a, t_b) + one)
    inter = w * h
    union = (r_a - l_a + one) * (b_a - t_a + one) + (r_b - l_b + one) * (b_b - t_b + one) - inter
    return tirop.if_then_else(union <= zero, zero, inter / union)


def corners(coord):
    """(left, top, right, bottom) of the four coordinates ``coord(0) .. coord(3)``
    (x0, y0, x1, y1), whichever corner order they are given in."""
    x0, y0, x1, y1 = (coord(q) for q in range(4))
    return tirop.min(x0, x1), tirop.min(y0, y1), tirop.max(x0, x1), tirop.max(y0, y1)


def scalar_arg(value, dtype, what, op):
    """A threshold-like argument: a Python number, a PrimExpr, or a te.Tensor of one element
    (read at run time). Returns (extra input tensors, function of the input pointers giving
    the value)."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)):
        c = const(value, dtype)
        return [], lambda ptrs: c
    if isinstance(value, Tensor):
        n = 1
        for d in value.shape:
            n *= int(d)
        if n != 1:
            raise TepadError(f"{op}: {what} as a tensor must hold one element, got shape "
                             f"{list(value.shape)}")
        return [value], lambda ptrs: ptrs[0][0].astype(dtype)
    if isinstance(value, PrimExpr):
        return [], lambda ptrs: value.astype(dtype)
    raise TepadError(f"{op}: {what} must be a number, a PrimExpr or a one-element te.Tensor, "
                     f"got {value!r}")


def check_tensor(t, ndim, what, op, last=None):
    """Raise a TepadError unless ``t`` is a te.Tensor of ``ndim`` dimensions (and, when
    ``last`` is given, a last dimension in it)."""
    if not isinstance(t, Tensor) or len(t.shape) != ndim:
        raise TepadError(f"{op}: {what} must be a {ndim}-d te.Tensor, got {t!r}")
    if last is not None and int(t.shape[-1]) not in last:
        raise TepadError(f"{op}: {what}'s last dimension must be one of {sorted(last)}, got "
                         f"{int(t.shape[-1])}")
