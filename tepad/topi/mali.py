"""TVM's ``topi.mali`` (ARM Mali GPUs through OpenCL).

tepad does not generate code for that target, so each schedule here is ``topi.generic``'s
(the current target's schedule); see ``topi.foreign_targets``."""
import sys as _sys

from .nn import conv2d_nchw, dense, depthwise_conv2d_nchw  # noqa: F401 - TVM's table entries
from .nn import conv2d_nhwc as _conv2d_nhwc
from .nn import depthwise_conv2d_nhwc as _depthwise_conv2d_nhwc
from .foreign_targets import populate as _populate


def conv2d_nhwc_spatial_pack(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC data, HWIO kernel: ``nn.conv2d_nhwc`` (TVM's Mali spatial-pack strategy)."""
    return _conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype)


def depthwise_conv2d_nhwc(data, kernel, strides, padding, dilation, out_dtype=None):
    """NHWC depthwise convolution, HWOI kernel: ``nn.depthwise_conv2d_nhwc``."""
    return _depthwise_conv2d_nhwc(data, kernel, strides, padding, dilation,
                                  out_dtype=out_dtype)


__all__ = _populate(_sys.modules[__name__], "mali") + [
    "conv2d_nchw", "dense", "depthwise_conv2d_nchw", "conv2d_nhwc_spatial_pack",
    "schedule_conv2d_nhwc_spatial_pack", "depthwise_conv2d_nhwc"]
schedule_conv2d_nhwc_spatial_pack = schedule_conv2d_nhwc  # noqa: F821 - set by _populate
# TVM's mali winograd entry: the F(4x4) NCHW winograd compute with the CPU schedule (no
# code for Mali GPUs)
from .x86.conv_more import conv2d_nchw_winograd, schedule_conv2d_nchw_winograd  # noqa: E402,F401

__all__ += ["conv2d_nchw_winograd", "schedule_conv2d_nchw_winograd"]
