"""``topi.sparse_fill_empty_rows``: a COO sparse tensor (``sparse_indices`` (N, D) sorted by
row, ``sparse_values`` (N,), ``dense_shape`` (D,)) with one entry ``[r, 0, ..., 0] =
default_value[0]`` added for every row ``r`` that has none (TensorFlow's
SparseFillEmptyRows). Returns ``(new_sparse_indices, new_sparse_values,
empty_row_indicator)``: the entries in row order, and per dense row 1 if it was empty, else 0.
The caller gives the output shapes (the number of entries after filling is data-dependent;
TVM's relay computes it); rows past the filled entries are left as they are.

An extern stage walking the entries once (one GPU thread under a CUDA target). Unlike
TVM's kernel, the values keep ``sparse_values``' dtype (TVM converts them to int64) and
every empty row is marked (TVM marks only the first of a run of empty rows)."""
from __future__ import annotations

from ..errors import TepadError
from ..target import Target
from ..tensor import Tensor
from ..tensor.extern import extern
from ..tensor.operation import thread_axis
from ..tir import ir_builder
from ..tir.expr import const
from .utils import get_const_tuple

I64 = "int64"


def sparse_fill_empty_rows(sparse_indices, sparse_values, dense_shape, default_value,
                           new_sparse_indices_shape, new_sparse_values_shape,
                           empty_row_indicator_shape):
    """See the module doc."""
    for t, what in ((sparse_indices, "sparse_indices"), (sparse_values, "sparse_values"),
                    (dense_shape, "dense_shape"), (default_value, "default_value")):
        if not isinstance(t, Tensor):
            raise TepadError(f"topi.sparse_fill_empty_rows: {what} must be a te.Tensor, got "
                             f"{t!r}")
    nnz, ndim = get_const_tuple(sparse_indices.shape)
    out_n, out_d = (int(v) for v in get_const_tuple(new_sparse_indices_shape))
    vals_shape = tuple(int(v) for v in get_const_tuple(new_sparse_values_shape))
    rows_shape = tuple(int(v) for v in get_const_tuple(empty_row_indicator_shape))
    if out_d != ndim or vals_shape != (out_n,) or len(rows_shape) != 1 or out_n < nnz:
        raise TepadError(f"topi.sparse_fill_empty_rows: output shapes must be (M, {ndim}), "
                         f"(M,) with M >= {nnz}, and (rows,); got ({out_n}, {out_d}), "
                         f"{list(vals_shape)}, {list(rows_shape)}")
    tgt = Target.current()
    gpu = tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)
    vdt = sparse_values.dtype

    def body(ins, outs):
        ib = ir_builder.create()
        if gpu:
            for tag in ("blockIdx.x", "threadIdx.x"):
                ib.scope_attr(thread_axis(tag), "thread_extent", 1)
        idx, vals, shape, dflt = (ib.buffer_ptr(b) for b in ins)
        o_idx, o_vals, empty = (ib.buffer_ptr(b) for b in outs)
        pos = ib.allocate(I64, (1,), name="pos", scope="local")
        nxt = ib.allocate(I64, (1,), name="next_row", scope="local")
        pos[0] = const(0, I64)
        nxt[0] = const(0, I64)

        def fill_up_to(stop):
            with ib.for_range(nxt[0], stop, name="r", dtype=I64) as r:
                o_idx[pos[0] * ndim] = r.astype(o_idx.dtype)
                for k in range(1, ndim):
                    o_idx[pos[0] * ndim + k] = const(0, o_idx.dtype)
                o_vals[pos[0]] = dflt[0].astype(vdt)
                empty[r] = const(1, I64)
                pos[0] = pos[0] + const(1, I64)

        with ib.for_range(0, nnz, name="i") as i:
            row = idx[i * ndim].astype(I64)
            fill_up_to(row)
            for k in range(ndim):
                o_idx[pos[0] * ndim + k] = idx[i * ndim + k]
            o_vals[pos[0]] = vals[i]
            empty[row] = const(0, I64)
            pos[0] = pos[0] + const(1, I64)
            with ib.if_scope(row + const(1, I64) > nxt[0]):
                nxt[0] = row + const(1, I64)
        fill_up_to(shape[0].astype(I64))
        return ib.get()

    return extern([(out_n, ndim), vals_shape, rows_shape],
                  [sparse_indices, sparse_values, dense_shape, default_value], body,
                  name="sparse_fill_empty_rows", dtype=[sparse_indices.dtype, vdt, I64],
                  tag="sparse_fill_empty_rows")


__all__ = ["sparse_fill_empty_rows"]
