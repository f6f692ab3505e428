"""TVM's ``tvm.contrib`` helpers that TE programs use: ``cc`` (link object files into a
shared library), ``utils`` (temporary directories), ``cblas`` / ``mkl`` (matrix products as
extern stages on numpy's BLAS), ``clang`` (C/C++ to LLVM IR for ``pragma("import_llvm")``)
and ``nvcc`` (CUDA compute-capability helpers and the nvcc driver)."""
from . import cc, utils, blas, cblas, mkl, clang, nvcc

__all__ = ["cc", "utils", "blas", "cblas", "mkl", "clang", "nvcc"]
