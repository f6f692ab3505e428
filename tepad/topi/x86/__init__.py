"""TVM's ``topi.x86``: CPU schedules that read the target (vector lanes, vector registers)
and, for the dispatch tables, the computes they pair with (``x86.conv2d_nchw`` is
``nn.conv2d_nchw``). ``conv2d_avx_common`` / ``conv2d_avx_1x1`` / ``depthwise_conv2d`` hold
the AutoTVM fallback configs (``_fallback_schedule``) and the schedules that apply them;
``depthwise_conv2d_NCHWc`` is the configured blocked depthwise convolution."""
from ..nn import (batch_matmul, conv2d_nchw, conv2d_nhwc, dense,  # noqa: F401
                  depthwise_conv2d_nchw)
from ..nn import conv2d_transpose_nchw, conv3d_ncdhw  # noqa: F401
from .schedules import *  # noqa: F401,F403
from .sparse import schedule_sparse_dense  # noqa: F401
from ..vision.rcnn import roi_align_nchw  # noqa: F401 - TVM's x86 entry: the same compute
from .bitserial import *  # noqa: F401,F403
from .bitserial import __all__ as _bitserial
from .schedules import __all__ as _sched
from . import conv2d_avx_1x1, conv2d_avx_common, depthwise_conv2d  # noqa: F401
from .depthwise_conv2d import depthwise_conv2d_NCHWc, schedule_depthwise_conv2d_NCHWc

# the schedule packs the weight; one compute serves all three of TVM's x86 dense strategies
dense_nopack = dense_pack = dense_dynamic = dense
schedule_dense_dynamic = schedule_dense  # noqa: F405 - from .schedules

__all__ = list(_sched) + ["conv2d_nchw", "conv2d_nhwc", "dense", "dense_nopack", "dense_pack",
                          "dense_dynamic", "schedule_dense_dynamic", "conv2d_transpose_nchw", "conv3d_ncdhw", "depthwise_conv2d_nchw",
                          "batch_matmul", "schedule_sparse_dense", "depthwise_conv2d_NCHWc",
                          "schedule_depthwise_conv2d_NCHWc", "conv2d_avx_common",
                          "conv2d_avx_1x1", "depthwise_conv2d"] + list(_bitserial) + ["roi_align_nchw"]

from ..vision.schedule import *  # noqa: F401,F403,E402 - extern kernels: the plain schedule
from ..vision.schedule import __all__ as _vision_sched  # noqa: E402


def schedule_multibox_prior(outs):
    """``vision.ssd.multibox_prior``: a plain compute, scheduled as an injective op."""
    return schedule_injective(outs)  # noqa: F405 - from .schedules


__all__ += list(_vision_sched) + ["schedule_multibox_prior"]
# the rest of the convolution family: schedules and the computes TVM's x86 tables name
from ..nn import (conv2d_NCHWc, conv2d_NCHWc_int8, conv3d_ndhwc,  # noqa: F401,E402
                  conv3d_transpose_ncdhw, deformable_conv2d_nchw, deformable_conv2d_nhwc,
                  group_conv1d_transpose_ncw, group_conv2d_transpose_nchw)
from .conv_more import *  # noqa: F401,F403,E402
from .conv_more import __all__ as _conv_more

__all__ += list(_conv_more) + ["conv2d_NCHWc", "conv2d_NCHWc_int8", "conv3d_ndhwc",
                               "conv3d_transpose_ncdhw", "deformable_conv2d_nchw",
                               "deformable_conv2d_nhwc", "group_conv1d_transpose_ncw",
                               "group_conv2d_transpose_nchw"]
