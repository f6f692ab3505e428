"""TVM's ``tvm.contrib.cblas``: ``matmul(lhs, rhs, transa=False, transb=False)`` and
``batch_matmul(lhs, rhs, transa, transb, iterative=False)``, extern stages computed by the
BLAS numpy ships (``tepad.contrib.blas``); the packed functions
``tvm.contrib.cblas.matmul`` / ``batch_matmul`` are registered on import."""
from .blas import batch_matmul_op, matmul_op, register_blas

PREFIX = "tvm.contrib.cblas"
register_blas(PREFIX)


def matmul(lhs, rhs, transa=False, transb=False, **kwargs):
    """``C = op(lhs) @ op(rhs)`` (2-d), a ``te.extern`` tensor."""
    return matmul_op(PREFIX, lhs, rhs, transa, transb, **kwargs)


def batch_matmul(lhs, rhs, transa=False, transb=False, iterative=False, **kwargs):
    """``C[b] = op(lhs[b]) @ op(rhs[b])`` (3-d), a ``te.extern`` tensor."""
    return batch_matmul_op(PREFIX, lhs, rhs, transa, transb, iterative, **kwargs)


__all__ = ["matmul", "batch_matmul"]
