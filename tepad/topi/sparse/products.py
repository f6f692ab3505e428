"""CSR products of TVM's ``topi.sparse``: ``csrmv`` (sparse matrix times a vector),
``csrmm`` (times a dense matrix) and ``dense`` (a dense layer with a sparse input or a sparse
weight). The sparse operand is a ``tvm.contrib.sparse.placeholder`` (its ``data``,
``indices`` and ``indptr`` placeholders); each product is one reduction over a row's stored
entries, whose count is read from ``indptr`` at run time."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op


def _is_csr(a) -> bool:
    return getattr(a, "stype", None) == "csr" and all(
        isinstance(getattr(a, n, None), Tensor) for n in ("data", "indices", "indptr"))


def _row(a, row):
    start = a.indptr[row]
    e = reduce_axis((0, a.indptr[row + 1] - start), name="elem_idx")
    return start + e, e


def _check(fn, a, weight, bias, wdims):
    if not _is_csr(a):
        raise TepadError(f"topi.sparse.{fn}: the sparse operand must be a "
                         f"contrib.sparse.placeholder (CSR), got {type(a).__name__}")
    if not isinstance(weight, Tensor) or len(weight.shape) != wdims:
        raise TepadError(f"topi.sparse.{fn}: weight must be a {wdims}-d te.Tensor")
    if a.data.dtype != weight.dtype:
        raise TepadError(f"topi.sparse.{fn}: the sparse data ({a.data.dtype}) and weight "
                         f"({weight.dtype}) must have the same dtype")
    if bias is not None and (not isinstance(bias, Tensor) or len(bias.shape) != 1):
        raise TepadError(f"topi.sparse.{fn}: bias must be a 1-d te.Tensor or None")


def csrmv(a, x, y=None):
    """``a @ x (+ y)``: ``a`` a CSR placeholder ``(m, k)``, ``x`` ``(k, 1)``, ``y`` an
    optional ``(m,)`` bias added to every row; the result is ``(m, 1)``."""
    _check("csrmv", a, x, y, 2)
    m = a.indptr.shape[0] - 1

    def f(row, col):
        elem, e = _row(a, row)
        return te_op.sum(a.data[elem] * x[a.indices[elem], col], axis=e)

    out = compute((m, 1), f, name="csrmv", tag="csrmv")
    if y is None:
        return out
    return compute((m, 1), lambda i, j: out[i, j] + y[i], name="csrmv_bias", tag="broadcast")


def csrmm(a, b, c=None):
    """``a @ b (+ c)``: ``a`` a CSR placeholder ``(m, k)``, ``b`` ``(k, n)``, ``c`` an
    optional ``(m,)`` bias added along each row; the result is ``(m, n)``."""
    _check("csrmm", a, b, c, 2)
    m = a.indptr.shape[0] - 1

    def f(row, col):
        elem, e = _row(a, row)
        return te_op.sum(a.data[elem] * b[a.indices[elem], col], axis=e)

    out = compute((m, b.shape[1]), f, name="csrmm", tag="csrmm")
    if c is None:
        return out
    return compute(out.shape, lambda i, j: out[i, j] + c[i], name="csrmm_bias",
                   tag="broadcast")


def dense(data, weight, bias=None):
    """A dense layer ``data @ weight.T (+ bias)`` where ``data`` ``(batch, in_dim)`` or
    ``weight`` ``(out_dim, in_dim)`` is a CSR placeholder (not both); ``bias`` ``(out_dim,)``
    is added to every row."""
    if _is_csr(data) and isinstance(weight, Tensor):
        _check("dense", data, weight, bias, 2)

        def f(row, j):
            elem, e = _row(data, row)
            return te_op.sum(data.data[elem] * weight[j, data.indices[elem]], axis=e)

        out = compute((data.indptr.shape[0] - 1, weight.shape[0]), f, name="dense",
                      tag="dense_csrmm")
    elif isinstance(data, Tensor) and _is_csr(weight):
        _check("dense", weight, data, bias, 2)

        def f(i, row):
            elem, e = _row(weight, row)
            return te_op.sum(weight.data[elem] * data[i, weight.indices[elem]], axis=e)

        out = compute((data.shape[0], weight.indptr.shape[0] - 1), f, name="dense",
                      tag="dense_csrmm")
    else:
        raise TepadError("topi.sparse.dense: exactly one of data and weight must be a "
                         "contrib.sparse.placeholder (CSR), the other a 2-d te.Tensor")
    if bias is None:
        return out
    return compute(out.shape, lambda i, j: out[i, j] + bias[j], name="dense_bias",
                   tag="broadcast")
