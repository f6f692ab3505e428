"""TVM's ``topi.cuda``: thread-binding schedules for CUDA targets (run them on the CPU with
``TEPAD_CUDA=emulate``) and, for the dispatch tables, the computes they pair with."""
from ..nn import batch_matmul, conv2d_nchw, dense, depthwise_conv2d_nchw  # noqa: F401
from ..nn import conv1d_transpose_ncw, conv2d_transpose_nchw  # noqa: F401
from ..nn import correlation_nchw  # noqa: F401
from ..nn import conv3d_ncdhw, group_conv2d_nchw, group_conv2d_nhwc  # noqa: F401
from ..nn import (conv1d_ncw, conv1d_nwc, conv2d_hwcn, group_conv1d_ncw,  # noqa: F401
                  group_conv1d_nwc)
from .schedules import *  # noqa: F401,F403
from .sparse import (pad_sparse_matrix, schedule_sparse_dense,  # noqa: F401
                     schedule_sparse_dense_padded, sparse_dense, sparse_dense_padded)
from .schedules import __all__ as _sched


def dense_int8(data, weight, bias=None, out_dtype=None):
    """TVM's int8 dense strategy: ``nn.dense`` of int8 operands accumulated in
    ``out_dtype`` (TVM's dp4a dot-product tensorization is not used; the products widen to
    ``out_dtype`` before the sum, which gives the same integers)."""
    return dense(data, weight, bias, out_dtype)


schedule_dense_int8 = schedule_dense  # noqa: F405 - from .schedules


def batch_matmul_int8(x, y, out_shape=None, out_dtype=None):
    """TVM's int8 batch_matmul strategy: ``nn.batch_matmul`` (y transposed) of int8
    operands accumulated in ``out_dtype`` (no dp4a tensorization)."""
    return batch_matmul(x, y, out_shape, out_dtype)


schedule_batch_matmul_int8 = schedule_batch_matmul  # noqa: F405 - from .schedules
# TVM's cuda scan / searchsorted are extern kernels; tepad's are reductions, bound as such
schedule_extern = schedule_scan  # noqa: F405 - from .schedules
from ..sort import argsort, sort, topk  # noqa: E402 - TVM's topi.cuda ones: the same computes
from ..scan import cumprod, cumsum, searchsorted  # noqa: E402
from ..unique import unique  # noqa: E402
from ..scatter import scatter_nd  # noqa: E402
from ..argwhere import argwhere  # noqa: E402
from ..cuda_externs import dft, scanop, scatter_elements, sparse_reshape, stft  # noqa: E402

__all__ = list(_sched) + ["sparse_dense", "schedule_sparse_dense", "sparse_dense_padded",
                          "schedule_sparse_dense_padded", "pad_sparse_matrix", "conv1d_ncw", "conv1d_nwc", "group_conv1d_ncw", "group_conv1d_nwc",
                          "conv2d_hwcn", "conv2d_transpose_nchw", "conv1d_transpose_ncw",
                          "group_conv2d_nchw", "group_conv2d_nhwc", "conv3d_ncdhw", "correlation_nchw",
                          "conv2d_nchw", "dense", "dense_int8", "schedule_dense_int8",
                          "batch_matmul", "batch_matmul_int8", "schedule_batch_matmul_int8",
                          "unique", "sort", "argsort", "topk", "cumsum", "cumprod",
                          "searchsorted", "schedule_extern", "scatter_nd", "argwhere",
                          "depthwise_conv2d_nchw", "dft", "stft", "scanop",
                          "scatter_elements", "sparse_reshape"]

# the object-detection operators: their kernels bind GPU threads themselves (see
# topi.vision._kernel); these are the generic computes built for a CUDA target
from ..vision.schedule import *  # noqa: F401,F403,E402
from ..vision.schedule import __all__ as _vision_sched  # noqa: E402
from ..cuda_externs import _for_gpu  # noqa: E402
from .. import vision as _vision  # noqa: E402

get_valid_counts = _for_gpu(_vision.get_valid_counts)
non_max_suppression = _for_gpu(_vision.non_max_suppression)
all_class_non_max_suppression = _for_gpu(_vision.all_class_non_max_suppression)
multibox_prior = _for_gpu(_vision.multibox_prior)
multibox_transform_loc = _for_gpu(_vision.multibox_transform_loc)
multibox_detection = _for_gpu(_vision.multibox_detection)
proposal = _for_gpu(_vision.proposal)


def schedule_multibox_prior(outs):
    """``vision.ssd.multibox_prior``: a plain compute, scheduled as an injective op."""
    return schedule_injective(outs)  # noqa: F405 - from .schedules


__all__ += list(_vision_sched) + [
    "schedule_multibox_prior", "get_valid_counts", "non_max_suppression",
    "all_class_non_max_suppression", "multibox_prior", "multibox_transform_loc",
    "multibox_detection", "proposal"]
# the rest of the convolution family: schedules and the computes TVM's cuda tables name
from ..nn import (conv3d_ndhwc, conv3d_transpose_ncdhw, deformable_conv2d_nchw,  # noqa: E402
                  deformable_conv2d_nhwc, group_conv1d_transpose_ncw,
                  group_conv2d_transpose_nchw, conv2d_NCHWc)
from .conv_more import *  # noqa: F401,F403,E402
from .conv_more import __all__ as _conv_more

__all__ += list(_conv_more) + ["conv3d_ndhwc", "conv3d_transpose_ncdhw",
                               "deformable_conv2d_nchw", "deformable_conv2d_nhwc",
                               "group_conv1d_transpose_ncw", "group_conv2d_transpose_nchw",
                               "conv2d_NCHWc"]
# tensor-core (wmma) dense / batch_matmul: float16 operands, 16 x 16 x 16 fragments
from . import tensor_intrin  # noqa: F401,E402
from .tensorcore import *  # noqa: F401,F403,E402
from .tensorcore import __all__ as _tensorcore

__all__ += list(_tensorcore)
