"""TVM's ``tvm.contrib.cudnn``: NVIDIA's cuDNN library as extern stages.

tepad does not link cuDNN (its CUDA kernels are generated from TE, and run through the
emulator or ptxas), so ``exists()`` is False and every cuDNN entry point raises a
``TepadError`` naming the call and the alternative: the TE convolutions of ``topi.nn`` with a
``topi.cuda`` schedule. Programs that test ``cudnn.exists()`` before using it, as TVM's own
tests do, take their non-cuDNN path."""
from __future__ import annotations

from ..errors import TepadError

#: TVM's algorithm names, by the conv direction they apply to (kept for programs that list them)
_FWD_ALGOS = ["CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM",
              "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM",
              "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT",
              "CUDNN_CONVOLUTION_FWD_ALGO_FFT", "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING",
              "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD",
              "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", "CUDNN_CONVOLUTION_FWD_ALGO_COUNT"]


def exists() -> bool:
    """Whether cuDNN can be called: always False on tepad (it does not link cuDNN)."""
    return False


def _unavailable(name):
    def call(*args, **kwargs):
        raise TepadError(f"tvm.contrib.cudnn.{name}: tepad does not link NVIDIA cuDNN "
                         "(cudnn.exists() is False); use the TE operators of topi.nn (e.g. "
                         "topi.nn.conv2d_nchw) with a topi.cuda schedule instead")
    call.__name__ = name
    call.__doc__ = f"TVM's ``cudnn.{name}``: raises a TepadError (cuDNN is not linked)."
    return call


def algo_to_index(algo_type, algo_name):
    """Index of cuDNN algorithm ``algo_name`` for ``algo_type`` "fwd" (TVM's list order)."""
    if algo_type != "fwd":
        raise TepadError(f"cudnn.algo_to_index: algo_type {algo_type!r}: tepad lists only "
                         "the 'fwd' algorithms (cuDNN is not linked)")
    if algo_name not in _FWD_ALGOS:
        raise TepadError(f"cudnn.algo_to_index: unknown algorithm {algo_name!r}; valid: "
                         f"{', '.join(_FWD_ALGOS)}")
    return _FWD_ALGOS.index(algo_name)


conv_forward = _unavailable("conv_forward")
conv_backward_data = _unavailable("conv_backward_data")
conv_backward_filter = _unavailable("conv_backward_filter")
conv_output_shape = _unavailable("conv_output_shape")
conv_find_algo = _unavailable("conv_find_algo")
softmax = _unavailable("softmax")
log_softmax = _unavailable("log_softmax")

__all__ = ["exists", "algo_to_index", "conv_forward", "conv_backward_data",
           "conv_backward_filter", "conv_output_shape", "conv_find_algo", "softmax",
           "log_softmax"]
