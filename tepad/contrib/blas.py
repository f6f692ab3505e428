"""Matrix products as extern stages run by the BLAS numpy ships (OpenBLAS in numpy's
wheels): what ``tepad.contrib.cblas`` and ``tepad.contrib.mkl`` share.

``matmul_op(prefix, A, B, transa, transb)`` is a ``te.extern`` stage whose body is
``tir.call_packed(prefix + ".matmul", A, B, C, transa, transb)``; the packed functions are
registered here (``register_blas(prefix)``) and compute ``C = op(A) @ op(B)`` with
``numpy.matmul`` writing straight into the kernel's output buffer (float32 / float64 go
through BLAS; other dtypes through numpy's own loops)."""
from __future__ import annotations

import numpy as np

from ..errors import TepadError
from ..runtime.registry import register_func
from ..tensor import extern
from ..tir.expr import IntImm, Max
from ..tir.op import call_packed


def _view(x, what: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim not in (2, 3):
        raise TepadError(f"{what}: expected a 2-d or 3-d array, got shape {a.shape}")
    return a


def _op(a: np.ndarray, trans) -> np.ndarray:
    return np.swapaxes(a, -1, -2) if trans else a


def _product(name):
    def run(a, b, c, transa=0, transb=0):
        a, b, c = _view(a, name), _view(b, name), _view(c, name)
        lhs, rhs = _op(a, transa), _op(b, transb)
        if lhs.shape[-1] != rhs.shape[-2]:
            raise TepadError(f"{name}: inner dimensions differ: {lhs.shape} @ {rhs.shape}")
        np.matmul(lhs, rhs, out=c)
        return 0
    return run


def register_blas(prefix: str) -> None:
    """Register ``<prefix>.matmul``, ``<prefix>.batch_matmul`` and
    ``<prefix>.batch_matmul_iterative`` (the same product, batch by batch)."""
    for suffix in ("matmul", "batch_matmul", "batch_matmul_iterative"):
        name = f"{prefix}.{suffix}"
        register_func(name, _product(name), override=True)


def _dim(x):
    return int(x.value) if isinstance(x, IntImm) else x


def _check(what, lhs, rhs, ndim):
    for t, nm in ((lhs, "lhs"), (rhs, "rhs")):
        if len(t.shape) != ndim:
            raise TepadError(f"{what}: {nm} {t.name} must be {ndim}-d, got shape "
                             f"{[_dim(d) for d in t.shape]}")
    if lhs.dtype != rhs.dtype:
        raise TepadError(f"{what}: lhs and rhs dtypes differ ({lhs.dtype} vs {rhs.dtype})")


def matmul_op(prefix: str, lhs, rhs, transa=False, transb=False, **kwargs):
    """``C[n, m] = op(lhs) @ op(rhs)``: ``lhs`` is ``(n, k)`` (``(k, n)`` when ``transa``),
    ``rhs`` ``(k, m)`` (``(m, k)`` when ``transb``). ``kwargs`` go to ``te.extern``."""
    _check(f"{prefix}.matmul", lhs, rhs, 2)
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    kwargs.setdefault("name", "C")
    return extern((n, m), [lhs, rhs],
                  lambda ins, outs: call_packed(f"{prefix}.matmul", ins[0], ins[1], outs[0],
                                                bool(transa), bool(transb)), **kwargs)


def batch_matmul_op(prefix: str, lhs, rhs, transa=False, transb=False, iterative=False,
                    **kwargs):
    """``C[b, n, m] = op(lhs[b]) @ op(rhs[b])`` over batches ``b`` (a batch of 1 broadcasts,
    as TVM's ``max(lhs.shape[0], rhs.shape[0])``)."""
    _check(f"{prefix}.batch_matmul", lhs, rhs, 3)
    b0, b1 = lhs.shape[0], rhs.shape[0]
    if isinstance(b0, IntImm) and isinstance(b1, IntImm):
        b = max(b0.value, b1.value)
    else:
        b = Max(b0, b1)
    n = lhs.shape[2] if transa else lhs.shape[1]
    m = rhs.shape[1] if transb else rhs.shape[2]
    fname = f"{prefix}.batch_matmul_iterative" if iterative else f"{prefix}.batch_matmul"
    kwargs.setdefault("name", "C")
    return extern((b, n, m), [lhs, rhs],
                  lambda ins, outs: call_packed(fname, ins[0], ins[1], outs[0], bool(transa),
                                                bool(transb)), **kwargs)


def blas_face(prefix: str):
    """``(matmul, batch_matmul)`` under the packed-function names ``prefix.matmul`` /
    ``prefix.batch_matmul`` (registered now): TVM's ``tvm.contrib.cblas`` / ``mkl`` API."""
    register_blas(prefix)

    def matmul(lhs, rhs, transa=False, transb=False, **kwargs):
        """``C = op(lhs) @ op(rhs)`` (2-d), a ``te.extern`` tensor."""
        return matmul_op(prefix, lhs, rhs, transa, transb, **kwargs)

    def batch_matmul(lhs, rhs, transa=False, transb=False, iterative=False, **kwargs):
        """``C[b] = op(lhs[b]) @ op(rhs[b])`` (3-d), a ``te.extern`` tensor."""
        return batch_matmul_op(prefix, lhs, rhs, transa, transb, iterative, **kwargs)
    return matmul, batch_matmul


__all__ = ["register_blas", "matmul_op", "batch_matmul_op", "blas_face"]
