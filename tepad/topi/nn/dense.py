"""``topi.nn.dense``: data @ weight.T (+ bias)."""
from __future__ import annotations

from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op


def dense(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype=None):
    """``data @ weight.T`` (+ ``bias``): data (batch, in), weight (out, in)."""
    out_dtype = out_dtype or data.dtype
    batch, in_dim = data.shape
    out_dim = weight.shape[0]
    k = reduce_axis((0, in_dim), name="k")
    mat = compute((batch, out_dim), lambda i, j: te_op.sum(
        data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_matmul_NT", tag="dense")
    if bias is None:
        return mat
    return compute((batch, out_dim), lambda i, j: mat[i, j] + bias[j].astype(out_dtype),
                   name="T_add", tag="broadcast")


__all__ = ["dense"]
