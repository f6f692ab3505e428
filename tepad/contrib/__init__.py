"""TVM's ``tvm.contrib`` helpers that TE programs use: ``cc`` (link object files into a
shared library), ``utils`` (temporary directories), ``cblas`` / ``mkl`` (matrix products as
extern stages on numpy's BLAS), ``clang`` (C/C++ to LLVM IR for ``pragma("import_llvm")``)
``nvcc`` (CUDA compute-capability helpers and the nvcc driver), ``random`` (random tensors as
extern stages), ``pickle_memoize``, ``tedd`` (a schedule's graphs as Graphviz DOT text), ``cudnn`` (``exists()`` is False: cuDNN is not linked), ``ndk`` (linking with ``$TVM_NDK_CC``) and ``spirv`` (``optimize`` through SPIRV-Tools' spirv-opt). ``util`` is TVM 0.6's name of ``utils`` (warns once)."""
from ..errors import warn_deprecated
from . import cc, utils, blas, cblas, mkl, clang, nvcc, random, pickle_memoize, tedd, sparse, cudnn, ndk, spirv


def __getattr__(name):
    if name == "util":
        warn_deprecated("tvm.contrib.util", "tvm.contrib.utils")
        return utils
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["cc", "utils", "blas", "cblas", "mkl", "clang", "nvcc", "random",
           "pickle_memoize", "tedd", "sparse", "cudnn", "ndk", "spirv"]
