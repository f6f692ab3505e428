"""TVM's ``topi.arm_cpu``: schedules for ARM CPUs (``llvm -device=arm_cpu``,
``-mtriple=aarch64-...``). They are the CPU schedules of ``topi.x86``, which read the
vector width from the target they run under (NEON's 128-bit registers on an ARM target),
so they apply to any LLVM CPU target. ``compute_matmul_sme`` is the SME strategy's compute;
schedules built on ARM-only intrinsics (SME, dot-product tensorization) raise a TepadError."""
from ..nn import conv2d_nchw, conv2d_nhwc, dense, depthwise_conv2d_nchw  # noqa: F401
from ..nn import conv2d_transpose_nchw  # noqa: F401
from ..x86.schedules import (schedule_adaptive_pool, schedule_batch_matmul,  # noqa: F401
                             schedule_broadcast, schedule_concatenate, schedule_conv2d_nchw,
                             schedule_conv2d_nhwc, schedule_conv2d_transpose_nchw,
                             schedule_dense, schedule_depthwise_conv2d_nchw,
                             schedule_depthwise_conv2d_nhwc, schedule_elemwise,
                             schedule_injective, schedule_injective_from_existing,
                             schedule_matmul, schedule_pool, schedule_reduce, schedule_softmax)
from . import conv2d, matmul
from ..x86.bitserial import (bitserial_conv2d_nchw, bitserial_conv2d_nhwc,  # noqa: F401
                             bitserial_dense, schedule_bitserial_conv2d_nchw,
                             schedule_bitserial_conv2d_nhwc, schedule_bitserial_dense)
from .conv2d import *  # noqa: F401,F403 - the ARM convolution strategies by TVM's names
from .conv2d import __all__ as _conv2d
from .matmul import compute_matmul_sme, tir_schedule_matmul_sme  # noqa: F401

__all__ = ["conv2d_nchw", "conv2d_transpose_nchw", "conv2d_nhwc", "dense", "depthwise_conv2d_nchw",
           "schedule_adaptive_pool", "schedule_batch_matmul", "schedule_broadcast",
           "schedule_concatenate", "schedule_conv2d_nchw", "schedule_conv2d_nhwc",
           "schedule_conv2d_transpose_nchw", "schedule_dense", "schedule_depthwise_conv2d_nchw",
           "schedule_depthwise_conv2d_nhwc", "schedule_elemwise", "schedule_injective",
           "schedule_injective_from_existing", "schedule_matmul", "schedule_pool",
           "schedule_reduce", "schedule_softmax", "matmul", "compute_matmul_sme",
           "tir_schedule_matmul_sme", "conv2d", "bitserial_conv2d_nchw",
           "bitserial_conv2d_nhwc", "bitserial_dense", "schedule_bitserial_conv2d_nchw",
           "schedule_bitserial_conv2d_nhwc", "schedule_bitserial_dense"] + list(_conv2d)
# TVM's arm_cpu winograd entry: the F(4x4) NCHW winograd compute with the CPU schedule
from ..x86.conv_more import conv2d_nchw_winograd, schedule_conv2d_nchw_winograd  # noqa: E402

__all__ += ["conv2d_nchw_winograd", "schedule_conv2d_nchw_winograd"]
