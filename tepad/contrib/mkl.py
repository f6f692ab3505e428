"""TVM's ``tvm.contrib.mkl``: the same ``matmul`` / ``batch_matmul`` as ``tepad.contrib.cblas``
(tepad has no MKL: numpy's BLAS computes them, ``tepad.contrib.blas``), under the packed
function names ``tvm.contrib.mkl.matmul`` / ``batch_matmul``, registered on import."""
from .blas import blas_face

PREFIX = "tvm.contrib.mkl"
matmul, batch_matmul = blas_face(PREFIX)

__all__ = ["matmul", "batch_matmul"]
