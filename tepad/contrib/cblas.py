"""TVM's ``tvm.contrib.cblas``: ``matmul(lhs, rhs, transa=False, transb=False)`` and
``batch_matmul(lhs, rhs, transa, transb, iterative=False)``, extern stages computed by the
BLAS numpy ships (``tepad.contrib.blas``); the packed functions
``tvm.contrib.cblas.matmul`` / ``batch_matmul`` are registered on import."""
from .blas import blas_face

PREFIX = "tvm.contrib.cblas"
matmul, batch_matmul = blas_face(PREFIX)

__all__ = ["matmul", "batch_matmul"]
