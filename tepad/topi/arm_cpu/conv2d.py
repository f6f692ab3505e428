"""TVM's ARM CPU convolution strategies (``topi.arm_cpu``), by their TVM names.

TVM gives ARM its own computes (a spatially packed data and kernel; an im2col "hybrid" GEMM)
tuned for NEON. On tepad each strategy computes the same convolution as the plain ``topi.nn``
compute of its layout and is scheduled by ``topi.x86``'s CPU schedules, which read the vector
width from the target (NEON's 128 bits under an ARM target), so the results are TVM's and the
kernels are built for any LLVM CPU target. Strategies that exist only as scalable-vector or
matrix-extension kernels (SVE, SME) or as ``tir.Schedule`` functions raise a TepadError."""
from __future__ import annotations

from ...errors import TepadError
from ..nn import conv2d_nhwc as _conv2d_nhwc
from ..nn import depthwise_conv2d_nchw, depthwise_conv2d_nhwc  # noqa: F401
from ..x86.schedules import (schedule_conv2d_nhwc, schedule_depthwise_conv2d_nchw,
                             schedule_depthwise_conv2d_nhwc)


def conv2d_nhwc_spatial_pack(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC data, HWIO kernel: ``nn.conv2d_nhwc`` (TVM's spatial-pack strategy)."""
    return _conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype)


def compute_conv2d_NHWC_hybrid(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC data, HWIO kernel: ``nn.conv2d_nhwc`` (TVM's im2col GEMM "hybrid" strategy)."""
    return _conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype)


def compute_conv2d_NHWC_hybrid_SVE(data, kernel, strides, padding, dilation, out_dtype=None):
    """The SVE strategy's compute: the same convolution (``nn.conv2d_nhwc``); only its
    schedule is SVE-specific (``schedule_conv2d_NHWC_hybrid_SVE`` raises)."""
    return _conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype)


def depthwise_conv2d_nchw_spatial_pack(data, kernel, strides, padding, dilation,
                                       out_dtype=None):
    """NCHW depthwise convolution: ``nn.depthwise_conv2d_nchw`` (TVM's spatial pack)."""
    return depthwise_conv2d_nchw(data, kernel, strides, padding, dilation, out_dtype)


def compute_depthwise_conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC depthwise convolution, HWOI kernel: ``nn.depthwise_conv2d_nhwc``."""
    return depthwise_conv2d_nhwc(data, kernel, strides, padding, dilation,
                                 out_dtype=out_dtype)


def _refused(name, why):
    def refuse(*args, **kwargs):
        raise TepadError(f"topi.arm_cpu.{name}: {why}; use topi.arm_cpu."
                         "compute_conv2d_NHWC_hybrid / schedule_conv2d_NHWC_hybrid (or "
                         "topi.nn.conv2d_nhwc with topi.x86.schedule_conv2d_nhwc)")
    refuse.__name__ = name
    refuse.__doc__ = f"TVM's ``arm_cpu.{name}``: raises a TepadError ({why})."
    return refuse


schedule_conv2d_nhwc_spatial_pack = schedule_conv2d_nhwc
schedule_conv2d_NHWC_hybrid = schedule_conv2d_nhwc
schedule_depthwise_conv2d_nchw_spatial_pack = schedule_depthwise_conv2d_nchw
schedule_conv2d_NHWC_hybrid_SVE = _refused(
    "schedule_conv2d_NHWC_hybrid_SVE", "tepad's targets have fixed-width vectors, not SVE's "
    "scalable ones")
schedule_conv2d_NHWC_hybrid_TIR = _refused(
    "schedule_conv2d_NHWC_hybrid_TIR", "it schedules a tir.Schedule, which tepad does not "
    "have (TE schedules only)")
compute_conv2d_NHWC_hybrid_SME = _refused(
    "compute_conv2d_NHWC_hybrid_SME", "SME kernels need ARM's scalable matrix intrinsics and "
    "a tir.Schedule")

__all__ = ["conv2d_nhwc_spatial_pack", "schedule_conv2d_nhwc_spatial_pack",
           "compute_conv2d_NHWC_hybrid", "schedule_conv2d_NHWC_hybrid",
           "compute_conv2d_NHWC_hybrid_SVE", "schedule_conv2d_NHWC_hybrid_SVE",
           "schedule_conv2d_NHWC_hybrid_TIR", "compute_conv2d_NHWC_hybrid_SME",
           "depthwise_conv2d_nchw_spatial_pack", "schedule_depthwise_conv2d_nchw_spatial_pack",
           "compute_depthwise_conv2d_nhwc", "schedule_depthwise_conv2d_nhwc"]
