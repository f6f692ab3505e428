"""CPU schedules (TVM's ``topi.x86``) of the rest of the convolution family: 3-D NDHWC and
transposed, grouped transposed, deformable, blocked NCHWc (float and int8), the depthwise
gradients and winograd. Each convolution stage is register-tiled by ``tile_reduction`` (see
``schedules``' module doc) along its innermost contiguous output axis; winograd's transform
stages run parallel and vectorized with the constant matrices inlined."""
from __future__ import annotations

from ...schedule import create_schedule
from ...tensor import ComputeOp
from ..schedule_utils import as_outs, compute_stages, inline_injective
from ..nn.winograd import conv2d_winograd_nchw_impl
from .schedules import _schedule_contraction, parallel_vectorize, tile_reduction


def schedule_conv3d_ndhwc(outs):
    """NDHWC convolution: output channels vectorized, a block of output columns per tile."""
    return _schedule_contraction(outs, ("conv3d_ndhwc",), 4, 3)


def schedule_conv3d_transpose_ncdhw(outs):
    """Transposed NCDHW convolution (plain or grouped): output width vectorized, a block of
    output channels per tile; the dilated, padded input computed at the root."""
    return _schedule_contraction(outs, ("conv3d_transpose_ncdhw",
                                        "group_conv3d_transpose_ncdhw"), 4, 1)


def schedule_group_conv2d_transpose_nchw(outs):
    """Grouped transposed NCHW convolution: output width vectorized."""
    return _schedule_contraction(outs, ("group_conv2d_transpose_nchw",
                                        "conv2d_transpose_nchw"), 3, 1)


def schedule_group_conv1d_transpose_ncw(outs):
    """Grouped transposed NCW convolution: output width vectorized."""
    return _schedule_contraction(outs, ("group_conv1d_transpose_ncw",
                                        "conv1d_transpose_ncw"), 2, 1)


def schedule_deformable_conv2d_nchw(outs):
    """Deformable NCHW convolution: the sampled input (``data_deform``) parallel and
    vectorized at the root, the convolution tiled with output width vectorized."""
    return _schedule_contraction(outs, ("deformable_conv2d_nchw",), 3, 1)


def schedule_deformable_conv2d_nhwc(outs):
    """Deformable NHWC convolution: output channels vectorized."""
    return _schedule_contraction(outs, ("deformable_conv2d_nhwc",), 3, 2)


def schedule_conv2d_NCHWc(outs):
    """NCHWc convolution: the output channel block vectorized, a block of output columns
    per tile (TVM's x86 schedule shape, without an AutoTVM config)."""
    return _schedule_contraction(outs, ("conv2d_NCHWc",), 4, 3)


def schedule_conv2d_NCHWc_int8(outs):
    """int8 NCHWc convolution: as ``schedule_conv2d_NCHWc`` on the int32 accumulators."""
    return _schedule_contraction(outs, ("conv2d_NCHWc_int8",), 4, 3)


def schedule_depthwise_conv2d_backward_input_nhwc(outs):
    """Input gradient of the NHWC depthwise convolution: channels vectorized."""
    return _schedule_contraction(outs, ("depthwise_conv2d_backward_input_nhwc",), 3, 2)


def schedule_depthwise_conv2d_backward_weight_nhwc(outs):
    """Weight gradient of the NHWC depthwise convolution: the multiplier axis vectorized
    when wide enough, a block of channels per tile."""
    return _schedule_contraction(outs, ("depthwise_conv2d_backward_weight_nhwc",), 3, 2)


def winograd_schedule(outs, parallel_vectorize_stage, tile_bgemm=None):
    """The shared winograd schedule: constant matrices and the tile gather inlined, the
    padded input at the root, ``tile_bgemm(s, t)`` for the batched matrix product when
    given, every other stage ``parallel_vectorize_stage(s, t)``."""
    outs = as_outs(outs)
    s = create_schedule([t.op for t in outs])
    inline_injective(s, outs, keep=("pad",))
    out_ops = {t.op for t in outs}
    for st in list(s.stages):
        op = st.op
        if isinstance(op, ComputeOp) and op not in out_ops and \
                (op.attrs.get("const_matrix") or op.name == "input_tile"):
            st.compute_inline()
    for st in compute_stages(s):
        t = st.op.output(0)
        if st.op.name == "bgemm" and tile_bgemm is not None:
            tile_bgemm(s, t)
        else:
            parallel_vectorize_stage(s, t)
    return s


def schedule_conv2d_winograd(outs):
    """Winograd convolution (any of ``nn.conv2d_winograd_*``): the batched product over
    input channels tiled (tiles along the tile axis, vectorized), the transforms parallel
    and vectorized."""
    return winograd_schedule(outs, parallel_vectorize,
                             lambda s, t: tile_reduction(s, t, 3, 2))


schedule_conv2d_nchw_winograd = schedule_conv2d_winograd


def conv2d_nchw_winograd(data, kernel, strides, padding, dilation, out_dtype):
    """The CPU winograd entry of TVM's arm_cpu / mali tables: NCHW ``data``, OIHW
    ``kernel`` (a dilation dilates it first), F(4x4) tiles, stage ``conv2d_winograd`` (tag
    ``conv2d_nchw_winograd``); schedule with ``schedule_conv2d_nchw_winograd``."""
    return conv2d_winograd_nchw_impl(data, kernel, strides, padding, dilation, out_dtype, 4,
                                     tag="conv2d_nchw_winograd")
schedule_conv2d_nhwc_winograd = schedule_conv2d_winograd

__all__ = ["schedule_conv3d_ndhwc", "schedule_conv3d_transpose_ncdhw",
           "schedule_group_conv2d_transpose_nchw", "schedule_group_conv1d_transpose_ncw",
           "schedule_deformable_conv2d_nchw", "schedule_deformable_conv2d_nhwc",
           "schedule_conv2d_NCHWc", "schedule_conv2d_NCHWc_int8",
           "schedule_depthwise_conv2d_backward_input_nhwc",
           "schedule_depthwise_conv2d_backward_weight_nhwc", "schedule_conv2d_winograd",
           "schedule_conv2d_nchw_winograd", "schedule_conv2d_nhwc_winograd",
           "winograd_schedule"]
