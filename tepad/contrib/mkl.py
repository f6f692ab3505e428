"""TVM's ``tvm.contrib.mkl``: the same ``matmul`` / ``batch_matmul`` as ``tepad.contrib.cblas``
(tepad has no MKL: numpy's BLAS computes them, ``tepad.contrib.blas``), under the packed
function names ``tvm.contrib.mkl.matmul`` / ``batch_matmul``, registered on import."""
from .blas import batch_matmul_op, matmul_op, register_blas

PREFIX = "tvm.contrib.mkl"
register_blas(PREFIX)


def matmul(lhs, rhs, transa=False, transb=False, **kwargs):
    """``C = op(lhs) @ op(rhs)`` (2-d), a ``te.extern`` tensor."""
    return matmul_op(PREFIX, lhs, rhs, transa, transb, **kwargs)


def batch_matmul(lhs, rhs, transa=False, transb=False, iterative=False, **kwargs):
    """``C[b] = op(lhs[b]) @ op(rhs[b])`` (3-d), a ``te.extern`` tensor."""
    return batch_matmul_op(PREFIX, lhs, rhs, transa, transb, iterative, **kwargs)


__all__ = ["matmul", "batch_matmul"]
