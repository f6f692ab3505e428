"""``topi.nn.dense`` / ``matmul`` / ``batch_matmul``: matrix products as one reduction
stage (and a bias stage)."""
from __future__ import annotations

import logging

from ...errors import TepadError
from ...target.generic_func import generic_func
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import IntImm, floordiv, floormod

logger = logging.getLogger("topi")


def _no_layout_rewrite(what, rewritten_layout, original_shape):
    # TVM's auto-scheduler / meta-schedule pass these when they rewrote the weight layout;
    # tepad's tuners do not rewrite layouts, so only the "nothing rewritten" values are valid
    if rewritten_layout or original_shape is not None:
        raise TepadError(f"{what}: auto_scheduler_rewritten_layout / "
                         "meta_schedule_original_shape describe a rewritten weight layout, "
                         "which tepad's schedulers do not produce; leave them '' / None")


def _same(a, b):
    return a is b or (isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value) \
        or not (isinstance(a, IntImm) and isinstance(b, IntImm))


def _batch_shape(a, b, what):
    """numpy broadcasting of the leading (batch) extents of ``a`` and ``b``."""
    sa, sb = list(a.shape[:-2]), list(b.shape[:-2])
    n = max(len(sa), len(sb))
    sa, sb = [IntImm(1, "int32")] * (n - len(sa)) + sa, [IntImm(1, "int32")] * (n - len(sb)) + sb
    out = []
    for x, y in zip(sa, sb):
        if isinstance(x, IntImm) and x.value == 1:
            out.append(y)
        elif isinstance(y, IntImm) and y.value == 1 or _same(x, y):
            out.append(x)
        else:
            raise TepadError(f"{what}: batch extents {list(a.shape[:-2])} of {a.name} and "
                             f"{list(b.shape[:-2])} of {b.name} do not broadcast")
    return out


def _batch_index(t, batch, idx):
    """``t``'s leading indices for the broadcast batch index ``batch`` (extent-1 axes read
    0, missing leading axes are dropped)."""
    nb = len(t.shape) - 2
    lead = batch[len(batch) - nb:] if nb else ()
    return tuple(0 if isinstance(e, IntImm) and e.value == 1 else i
                 for i, e in zip(lead, t.shape[:nb])) + tuple(idx)


def matmul(tensor_a: Tensor, tensor_b: Tensor, bias: Tensor | None = None, out_dtype=None,
           transpose_a=False, transpose_b=False, auto_scheduler_rewritten_layout="",
           meta_schedule_original_shape=None):
    """``op(a) @ op(b)`` (+ ``bias`` over the last axis), where ``op`` swaps the last two
    axes when ``transpose_a`` / ``transpose_b``. Operands of more than 2 dimensions are
    stacks of matrices whose leading (batch) extents broadcast as numpy's ``matmul`` does;
    stage ``T_matmul_{N|T}{N|T}`` (tag ``matmul``). The layout-rewrite arguments must
    stay '' / None."""
    _no_layout_rewrite("matmul", auto_scheduler_rewritten_layout, meta_schedule_original_shape)
    for t, nm in ((tensor_a, "tensor_a"), (tensor_b, "tensor_b")):
        if not isinstance(t, Tensor) or len(t.shape) < 2:
            raise TepadError(f"matmul: {nm} must be a te.Tensor of at least 2 dimensions, "
                             f"got {t!r}")
    out_dtype = out_dtype or tensor_a.dtype
    m, ka = tensor_a.shape[-2:][::-1] if transpose_a else tensor_a.shape[-2:]
    kb, n = tensor_b.shape[-2:][::-1] if transpose_b else tensor_b.shape[-2:]
    if not _same(ka, kb):
        raise TepadError(f"matmul: the reduction extents differ ({ka} of {tensor_a.name} vs "
                         f"{kb} of {tensor_b.name})")
    batch = _batch_shape(tensor_a, tensor_b, "matmul")
    nb = len(batch)
    k = reduce_axis((0, ka), name="k")

    def body(*idx):
        lead, (i, j) = idx[:nb], idx[nb:]
        a = tensor_a[_batch_index(tensor_a, lead, (k, i) if transpose_a else (i, k))]
        b = tensor_b[_batch_index(tensor_b, lead, (j, k) if transpose_b else (k, j))]
        return te_op.sum(a.astype(out_dtype) * b.astype(out_dtype), axis=k)
    name = "T_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    shape = tuple(batch) + (m, n)
    mat = compute(shape, body, name=name, tag="matmul")
    if bias is None:
        return mat
    return compute(shape, lambda *i: mat[i] + bias[i[-1]].astype(out_dtype), name="T_add",
                   tag="broadcast")


def dense(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype=None,
          auto_scheduler_rewritten_layout="", meta_schedule_original_shape=None):
    """``data @ weight.T`` (+ ``bias``): data (batch, in), weight (out, in); stage
    ``T_matmul_NT`` tagged ``dense``. The layout-rewrite arguments must stay '' / None."""
    _no_layout_rewrite("dense", auto_scheduler_rewritten_layout, meta_schedule_original_shape)
    for t, nm in ((data, "data"), (weight, "weight")):
        if not isinstance(t, Tensor) or len(t.shape) != 2:
            raise TepadError(f"dense: {nm} must be a 2-d te.Tensor, got {t!r}")
    out_dtype = out_dtype or data.dtype
    batch, in_dim = data.shape
    out_dim = weight.shape[0]
    if not _same(in_dim, weight.shape[1]):
        raise TepadError(f"dense: {data.name} has {in_dim} input features, {weight.name} "
                         f"{weight.shape[1]}")
    k = reduce_axis((0, in_dim), name="k")
    mat = compute((batch, out_dim), lambda i, j: te_op.sum(
        data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_matmul_NT", tag="dense")
    if bias is None:
        return mat
    return compute((batch, out_dim), lambda i, j: mat[i, j] + bias[j].astype(out_dtype),
                   name="T_add", tag="broadcast")


def batch_matmul(tensor_a: Tensor, tensor_b: Tensor, oshape=None, out_dtype=None,
                 transpose_a=False, transpose_b=True, auto_scheduler_rewritten_layout="",
                 meta_schedule_original_shape=None):
    """Batched ``op(a) @ op(b)`` over 3-d tensors (batch, ., .); a batch extent of 1 is
    broadcast. TVM's default is ``transpose_b=True``: b is (batch, N, K). Stage
    ``T_batch_matmul_{N|T}{N|T}`` (tag ``batch_matmul``). The layout-rewrite arguments
    must stay '' / None."""
    _no_layout_rewrite("batch_matmul", auto_scheduler_rewritten_layout,
                       meta_schedule_original_shape)
    for t, nm in ((tensor_a, "tensor_a"), (tensor_b, "tensor_b")):
        if not isinstance(t, Tensor) or len(t.shape) != 3:
            raise TepadError(f"batch_matmul: {nm} must be a 3-d te.Tensor, got {t!r}")
    out_dtype = out_dtype or tensor_a.dtype
    ba, bb = tensor_a.shape[0], tensor_b.shape[0]
    m, ka = (tensor_a.shape[2], tensor_a.shape[1]) if transpose_a else tensor_a.shape[1:]
    kb, n = (tensor_b.shape[2], tensor_b.shape[1]) if transpose_b else tensor_b.shape[1:]
    if not _same(ka, kb):
        raise TepadError(f"batch_matmul: the reduction extents differ ({ka} vs {kb})")
    one_a = isinstance(ba, IntImm) and ba.value == 1
    one_b = isinstance(bb, IntImm) and bb.value == 1
    if not (one_a or one_b or _same(ba, bb)):
        raise TepadError(f"batch_matmul: batch extents {ba} and {bb} differ and neither is 1")
    batch = bb if one_a else ba
    k = reduce_axis((0, ka), name="k")

    def body(b, i, j):
        xa = 0 if one_a else b
        xb = 0 if one_b else b
        a = tensor_a[xa, k, i] if transpose_a else tensor_a[xa, i, k]
        v = tensor_b[xb, j, k] if transpose_b else tensor_b[xb, k, j]
        return te_op.sum(a.astype(out_dtype) * v.astype(out_dtype), axis=k)
    name = "T_batch_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    return compute(tuple(oshape) if oshape is not None else (batch, m, n), body, name=name,
                   tag="batch_matmul")


def dense_default(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype=None):
    """TVM 0.6's name of the default dense compute: ``dense``."""
    return dense(data, weight, bias, out_dtype)


def batch_matmul_default(x: Tensor, y: Tensor):
    """TVM 0.6's default batch_matmul: ``x @ y.T`` per batch, x (B, M, K), y (B, N, K)."""
    return batch_matmul(x, y)


def dense_pack(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype=None):
    """``dense`` with the weight given packed in column blocks: weight (N / bn, K, bn),
    element ``[j // bn, k, j % bn]`` is ``W[j, k]``, so the bn output columns of a block
    read contiguous weights. Output (M, N), stage ``T_dense_pack`` tagged ``dense_pack``
    (+ a ``T_add`` bias stage)."""
    if not isinstance(data, Tensor) or len(data.shape) != 2:
        raise TepadError(f"dense_pack: data must be a 2-d te.Tensor, got {data!r}")
    if not isinstance(weight, Tensor) or len(weight.shape) != 3:
        raise TepadError(f"dense_pack: weight must be the packed 3-d (N / bn, K, bn) "
                         f"te.Tensor, got {weight!r}")
    out_dtype = out_dtype or data.dtype
    m, kd = data.shape
    nb, kw, bn = weight.shape
    if not _same(kd, kw):
        raise TepadError(f"dense_pack: {data.name} has {kd} input features, {weight.name} {kw}")
    k = reduce_axis((0, kd), name="k")
    mat = compute((m, nb * bn), lambda y, x: te_op.sum(
        data[y, k].astype(out_dtype) *
        weight[floordiv(x, bn), k, floormod(x, bn)].astype(out_dtype), axis=k),
        name="T_dense_pack", tag="dense_pack")
    if bias is None:
        return mat
    return compute(mat.shape, lambda i, j: mat[i, j] + bias[j].astype(out_dtype),
                   name="T_add", tag="broadcast")


@generic_func
def dense_legalize(attrs, inputs, types):
    """Relay's legalization hook for dense; None (no change) unless a target registers one."""
    return None


@generic_func
def dense_alter_layout(attrs, inputs, tinfos, out_type):
    """Relay's layout hook for dense; None unless a target registers one."""
    return None


@generic_func
def matmul_legalize(attrs, inputs, types):
    """Relay's legalization hook for matmul; None unless a target registers one."""
    return None


@generic_func
def batch_matmul_legalize(attrs, inputs, types):
    """Relay's legalization hook for batch_matmul; None unless a target registers one."""
    return None


__all__ = ["dense", "matmul", "batch_matmul", "dense_default", "batch_matmul_default",
           "dense_pack", "dense_legalize", "dense_alter_layout", "matmul_legalize",
           "batch_matmul_legalize", "logger"]
