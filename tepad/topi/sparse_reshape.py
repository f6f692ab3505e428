"""``topi.sparse_reshape``: the indices of a COO sparse tensor (``sparse_indices``, (N, D_in),
one row of coordinates per stored value) after its dense shape ``prev_shape`` (D_in,) is
reshaped to ``new_shape`` (D_out,; one entry may be -1, meaning "whatever is left"), and
that shape with the -1 resolved. Shapes are tensors read at run time, as in TVM, so the
kernel is an extern stage: each index row is ravelled in ``prev_shape`` and unravelled in
the new shape (in one GPU thread under a CUDA target)."""
from __future__ import annotations

from ..errors import TepadError
from ..target import Target
from ..tensor import Tensor
from ..tensor.extern import extern
from ..tensor.operation import thread_axis
from ..tir import ir_builder
from ..tir.expr import const
from .utils import get_const_tuple


def sparse_reshape(sparse_indices, prev_shape, new_shape, new_sparse_indices_shape=None,
                   new_shape_shape=None):
    """``(new_sparse_indices, out_new_shape)``; see the module doc. The output shapes
    default to ``(N, D_out)`` and ``(D_out,)`` (TVM's relay passes them)."""
    for t, what in ((sparse_indices, "sparse_indices"), (prev_shape, "prev_shape"),
                    (new_shape, "new_shape")):
        if not isinstance(t, Tensor) or "int" not in t.dtype:
            raise TepadError(f"topi.sparse_reshape: {what} must be an integer te.Tensor, got "
                             f"{t!r}")
    ishape = get_const_tuple(sparse_indices.shape)
    d_in, = get_const_tuple(prev_shape.shape)
    d_out, = get_const_tuple(new_shape.shape)
    if len(ishape) != 2 or ishape[1] != d_in:
        raise TepadError(f"topi.sparse_reshape: sparse_indices must be (N, {d_in}) for a "
                         f"{d_in}-d prev_shape, got {list(ishape)}")
    nnz = ishape[0]
    out_idx_shape = tuple(get_const_tuple(new_sparse_indices_shape or (nnz, d_out)))
    out_shape_shape = tuple(get_const_tuple(new_shape_shape or (d_out,)))
    if out_idx_shape != (nnz, d_out) or out_shape_shape != (d_out,):
        raise TepadError(f"topi.sparse_reshape: output shapes must be ({nnz}, {d_out}) and "
                         f"({d_out},), got {list(out_idx_shape)} and {list(out_shape_shape)}")
    sd = new_shape.dtype
    tgt = Target.current()
    gpu = tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)

    def body(ins, outs):
        ib = ir_builder.create()
        if gpu:
            for tag in ("blockIdx.x", "threadIdx.x"):
                ib.scope_attr(thread_axis(tag), "thread_extent", 1)
        idx, prev, new = (ib.buffer_ptr(b) for b in ins)
        out_idx, out_shape = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        total = ib.allocate(sd, (1,), name="total", scope="local")
        known = ib.allocate(sd, (1,), name="known", scope="local")
        total[0] = const(1, sd)
        for j in range(d_in):
            total[0] = total[0] * prev[j].astype(sd)
        known[0] = const(1, sd)
        for j in range(d_out):
            with ib.if_scope(new[j] != const(-1, sd)):
                known[0] = known[0] * new[j]
        for j in range(d_out):
            with ib.if_scope(new[j] == const(-1, sd)):
                out_shape[j] = (total[0] // known[0]).astype(out_shape.dtype)
            with ib.else_scope():
                out_shape[j] = new[j].astype(out_shape.dtype)
        flat = ib.allocate(sd, (1,), name="flat", scope="local")
        with ib.for_range(0, nnz, name="i") as i:
            flat[0] = const(0, sd)
            for j in range(d_in):
                flat[0] = flat[0] * prev[j].astype(sd) + idx[i * d_in + j].astype(sd)
            for j in range(d_out - 1, 0, -1):
                extent = out_shape[j].astype(sd)
                out_idx[i * d_out + j] = (flat[0] % extent).astype(out_idx.dtype)
                flat[0] = flat[0] // extent
            out_idx[i * d_out] = flat[0].astype(out_idx.dtype)   # the rest, not wrapped
        return ib.get()

    return extern([out_idx_shape, out_shape_shape], [sparse_indices, prev_shape, new_shape],
                  body, name="sparse_reshape", dtype=[sparse_indices.dtype, prev_shape.dtype],
                  tag="sparse_reshape")


__all__ = ["sparse_reshape"]
