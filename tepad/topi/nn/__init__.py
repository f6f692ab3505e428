"""Neural-network operators (TVM's ``topi.nn``): padding and dilation, convolutions (NCHW,
NHWC, HWCN, depthwise, transposed), dense / matmul / batch_matmul, activations, softmax and
log_softmax, pooling (1-d, 2-d, global, adaptive), upsampling, lrn, batch_norm, flatten,
bias_add. Each is ordinary ``te.compute`` stages named as TVM names them (a padded input is
a ``pad_temp`` stage, a pooling result a ``tensor`` stage), so TVM schedules written against
those stages apply unchanged."""
from .batch_space import batch_to_space_nd, space_to_batch_nd
from .bitserial_conv2d import (bitserial_conv2d_legalize, bitserial_conv2d_nchw,
                               bitserial_conv2d_nhwc, spatial_pack_nchw, spatial_pack_nhwc)
from .bitserial_dense import bitserial_dense, bitserial_dense_default
from .bnn import binarize_pack, binary_dense
from .conv1d_transpose import conv1d_transpose_ncw
from .group_conv2d import group_conv2d_nchw, group_conv2d_nhwc
from .correlation import correlation_nchw
from .conv3d import conv3d_ncdhw
from .conv1d import conv1d, conv1d_ncw, conv1d_nwc, group_conv1d_ncw, group_conv1d_nwc
from .conv2d import conv2d, conv2d_hwcn, conv2d_nchw, conv2d_nhwc
from .conv2d_transpose import conv2d_transpose_nchw
from .dense import (batch_matmul, batch_matmul_default, batch_matmul_legalize, dense,
                    dense_alter_layout, dense_default, dense_legalize, dense_pack, logger,
                    matmul, matmul_legalize)
from .qnn import (SQNN_CODE_TO_DTYPE, SQNN_DISABLE, SQNN_DTYPE_TO_CODE, SQNN_INT8,
                  SQNN_INT32, SQNN_UINT8, add_alter_layout, bias_add_legalize,
                  qnn_conv2d_alter_layout, qnn_dense_alter_layout, qnn_requantize_alter_layout,
                  simulated_dequantize, simulated_quantize)
from .depthwise_conv2d import (depthwise_conv2d_NCHWc, depthwise_conv2d_nchw,
                               depthwise_conv2d_nhwc)
from .mapping import scale_shift_nchw, scale_shift_nchwc, scale_shift_nhwc
from .elemwise import bias_add, flatten, leaky_relu, prelu, relu
from .fifo_buffer import fifo_buffer
from .layer_norms import group_norm, instance_norm, layer_norm, rms_norm
from .loss import nll_loss
from .lstm import lstm
from .normalization import batch_norm, lrn
from .pad import dilate, mirror_pad, pad
from .pooling import (POOL_TYPE_CODE, adaptive_pool, adaptive_pool1d, adaptive_pool3d, global_pool, pool,
                      pool1d, pool2d, pool3d)
from .pooling_grad import pool_grad
from .space_depth import depth_to_space, space_to_depth
from .softmax import fast_softmax, log_softmax, softmax, softmax_common
from .sparse import (csr_transpose_ir, sparse_add, sparse_conv2d, sparse_dense, sparse_dense_alter_layout,
                     sparse_dense_sp_lhs, sparse_dense_sp_rhs, sparse_transpose,
                     try_get_conv2d_sparse_input, try_get_sparse_input)
from .upsampling import upsampling, upsampling3d
from .utils import get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d

__all__ = ["bitserial_conv2d_legalize", "bitserial_conv2d_nchw", "bitserial_conv2d_nhwc",
           "spatial_pack_nchw", "spatial_pack_nhwc", "bitserial_dense",
           "bitserial_dense_default", "binarize_pack", "binary_dense", "lstm",
           "batch_matmul_default", "batch_matmul_legalize", "dense_alter_layout",
           "dense_default", "dense_legalize", "dense_pack", "logger", "matmul_legalize",
           "SQNN_CODE_TO_DTYPE", "SQNN_DISABLE", "SQNN_DTYPE_TO_CODE", "SQNN_INT8", "SQNN_INT32",
           "SQNN_UINT8", "add_alter_layout", "bias_add_legalize", "qnn_conv2d_alter_layout",
           "qnn_dense_alter_layout", "qnn_requantize_alter_layout", "simulated_dequantize",
           "simulated_quantize", "mirror_pad", "POOL_TYPE_CODE", "softmax_common",
           "csr_transpose_ir", "space_to_batch_nd", "batch_to_space_nd", "correlation_nchw", "conv3d_ncdhw", "get_pad_tuple3d", "group_conv2d_nchw", "group_conv2d_nhwc", "conv1d_transpose_ncw", "conv1d", "conv1d_ncw", "conv1d_nwc", "group_conv1d_ncw", "group_conv1d_nwc",
           "pad", "dilate", "conv2d", "conv2d_nchw", "conv2d_nhwc", "conv2d_hwcn",
           "conv2d_transpose_nchw", "depthwise_conv2d_nchw", "depthwise_conv2d_nhwc", "dense",
           "matmul", "batch_matmul", "relu", "leaky_relu", "prelu", "bias_add", "flatten",
           "softmax", "log_softmax", "fast_softmax", "pool", "pool1d", "pool2d", "global_pool",
           "adaptive_pool", "adaptive_pool1d", "adaptive_pool3d", "pool3d", "pool_grad",
           "upsampling", "upsampling3d", "lrn", "batch_norm", "layer_norm", "instance_norm", "rms_norm",
           "group_norm", "nll_loss", "depth_to_space", "space_to_depth",
           "fifo_buffer", "get_pad_tuple", "get_pad_tuple1d",
           "sparse_dense", "sparse_dense_sp_rhs", "sparse_dense_sp_lhs", "sparse_transpose",
           "sparse_add", "sparse_conv2d", "sparse_dense_alter_layout", "try_get_sparse_input",
           "try_get_conv2d_sparse_input", "depthwise_conv2d_NCHWc",
           "scale_shift_nchw", "scale_shift_nhwc", "scale_shift_nchwc"]
# the convolution family's blocked, transposed, deformable, winograd and generic forms
from .conv2d import Workload  # noqa: E402
from .conv3d import conv3d_ndhwc  # noqa: E402
from .conv_generic import conv  # noqa: E402
from .conv_transpose_nd import *  # noqa: E402,F401,F403
from .conv_transpose_nd import __all__ as _conv_transpose_nd
from .conv2d_nchwc import *  # noqa: E402,F401,F403
from .conv2d_nchwc import __all__ as _conv2d_nchwc
from .deformable_conv2d import deformable_conv2d_nchw, deformable_conv2d_nhwc  # noqa: E402
from .depthwise_conv2d_grad import (depthwise_conv2d_backward_input_nhwc,  # noqa: E402
                                    depthwise_conv2d_backward_weight_nhwc)
from .winograd import *  # noqa: E402,F401,F403
from .winograd import __all__ as _winograd
from .relay_hooks import *  # noqa: E402,F401,F403
from .relay_hooks import __all__ as _relay_hooks

__all__ += ["Workload", "conv3d_ndhwc", "conv", "deformable_conv2d_nchw",
            "deformable_conv2d_nhwc", "depthwise_conv2d_backward_input_nhwc",
            "depthwise_conv2d_backward_weight_nhwc"] + _conv_transpose_nd + _conv2d_nchwc + \
    _winograd + _relay_hooks
