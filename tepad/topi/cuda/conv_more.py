"""GPU schedules (TVM's ``topi.cuda``) of the rest of the convolution family, and the
computes TVM's cuda dispatch tables pair them with: one output element per thread for the
convolutions (their reductions serial in the thread), and for winograd every transform
stage its own kernel with the constant matrices inlined."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import compute
from ..nn import conv2d_NCHWc_int8 as _nchwc_int8
from .. import nn as _nn
from ..nn import winograd as _wino
from ..nn.conv2d import _check
from ..nn.utils import const_extents
from ..x86.conv_more import winograd_schedule
from .schedules import _bind_spatial, _schedule_direct


def _tile_size(out_size: int) -> int:
    """TVM's cuda choice: F(4x4) tiles when the output is large enough, else F(2x2)."""
    return 4 if out_size >= 8 else 2


def conv2d_nchw_winograd(data, kernel, strides, padding, dilation, out_dtype):
    """Winograd NCHW convolution of an OIHW ``kernel`` (square, stride 1; a dilation
    dilates the kernel first), tiles F(4x4) or, for outputs under 8 wide, F(2x2): stage
    ``conv2d_winograd`` (tag ``conv2d_nchw_winograd``)."""
    _check("conv2d_nchw_winograd", data, kernel)
    w = const_extents(data.shape[3:], "conv2d_nchw_winograd", ("W",))[0]
    return _wino.conv2d_winograd_nchw_impl(data, kernel, strides, padding, dilation, out_dtype,
                                           _tile_size(w), tag="conv2d_nchw_winograd")


def winograd_cuda(cfg, data, kernel, strides, padding, dilation, out_dtype, pre_computed):
    """TVM's ``topi.cuda.conv2d_winograd.winograd_cuda``: the NCHW winograd compute behind
    the cuda strategy, with TVM's tile rule (F(4x4) when the input height is a multiple of
    8, else F(2x2)). ``kernel`` is OIHW, or with ``pre_computed`` the transformed
    (alpha, alpha, CI, CO). ``cfg`` (an autotvm config, or None) gets the flop count."""
    _check("winograd_cuda", data, kernel)
    h = const_extents(data.shape[2:3], "winograd_cuda", ("H",))[0]
    tile = 4 if h % 8 == 0 else 2
    out = _wino.conv2d_winograd_nchw_impl(data, kernel, strides, padding, dilation, out_dtype,
                                          tile, pre_computed=bool(pre_computed),
                                          tag="conv2d_nchw_winograd")
    if cfg is not None and hasattr(cfg, "add_flop"):
        n, co, oh, ow = const_extents(out.shape, "winograd_cuda", ("N", "CO", "OH", "OW"))
        ci = const_extents(data.shape[1:2], "winograd_cuda", ("CI",))[0]
        if pre_computed:
            alpha = const_extents(kernel.shape[:1], "winograd_cuda", ("alpha",))[0]
            kk = (alpha + 1 - tile) ** 2
        else:
            kh, kw = const_extents(kernel.shape[2:], "winograd_cuda", ("KH", "KW"))
            kk = kh * kw
        cfg.add_flop(2 * n * co * oh * ow * ci * kk)
    return out


def conv2d_nchw_winograd_without_weight_transform(data, kernel, strides, padding, dilation,
                                                  out_dtype):
    """Winograd NCHW convolution of a kernel transformed by
    ``nn.conv2d_winograd_weight_transform`` ((alpha, alpha, CO, CI)); the tile size follows
    from alpha and a 3x3 kernel."""
    alpha = const_extents(kernel.shape[:1], "conv2d_nchw_winograd", ("alpha",))[0]
    return _wino.conv2d_winograd_nchw_impl(data, kernel, strides, padding, dilation, out_dtype,
                                           alpha - 2, pre_computed=True, kernel_layout="pre_OI",
                                           tag="conv2d_nchw_winograd")


def schedule_conv2d_nchw_winograd(outs):
    """Every winograd stage its own kernel, one element per thread."""
    return winograd_schedule(outs, _bind_spatial)


schedule_conv2d_nchw_winograd_without_weight_transform = schedule_conv2d_nchw_winograd
schedule_conv2d_winograd = schedule_conv2d_nchw_winograd


def conv3d_ncdhw_winograd(data, kernel, strides, padding, dilation, groups, out_dtype):
    """TVM's cuda 3-D winograd: NCDHW ``data``, OIDHW ``kernel`` (stride 1, ``groups`` 1):
    all three axes tiled when 2 < KD < 8 and KD == KH == KW, else height and width (see
    ``nn.winograd.conv3d_winograd_ncdhw_impl``); F(4) tiles, F(2) for outputs under 8."""
    if groups != 1:
        raise TepadError(f"cuda conv3d_ncdhw_winograd: groups must be 1, got {groups!r}")
    h = const_extents(data.shape[3:4], "conv3d_ncdhw_winograd", ("H",))[0]
    return _wino.conv3d_winograd_ncdhw_impl(data, kernel, strides, padding, dilation,
                                            out_dtype, _tile_size(h))


schedule_conv3d_ncdhw_winograd = schedule_conv2d_nchw_winograd


def conv2d_NCHWc_int8(data, kernel, stride, padding, dilation, layout, out_dtype):
    """TVM's cuda int8 convolution: NCHW int8 ``data`` and OIHW ``kernel`` packed into
    blocks of 4 channels (stages ``packed_data`` / ``packed_kernel``) and convolved by
    ``nn.conv2d_NCHWc_int8`` (products widened to ``out_dtype``; no dp4a instruction).
    The result is NCHW4c (N, O // 4, out_h, out_w, 4). ``layout`` must be "NCHW"."""
    name = "conv2d_NCHWc_int8"
    if layout != "NCHW":
        raise TepadError(f"cuda {name}: layout must be 'NCHW' (packed here), got {layout!r}")
    _check(name, data, kernel)
    n, c, h, w = const_extents(data.shape, name, ("N", "C", "H", "W"))
    o, ci, kh, kw = const_extents(kernel.shape, name, ("O", "CI", "KH", "KW"))
    if c % 4 or o % 4 or ci % 4:
        raise TepadError(f"cuda {name}: channels must be multiples of 4, got C={c}, O={o}")
    pd = compute((n, c // 4, h, w, 4), lambda b, cc, y, x, k: data[b, cc * 4 + k, y, x],
                 name="packed_data", tag="injective")
    pk = compute((o // 4, ci // 4, kh, kw, 1, 4, 4),
                 lambda oc, icc, y, x, f, ob, ib: kernel[oc * 4 + ob, icc * 4 + ib, y, x],
                 name="packed_kernel", tag="injective")
    return _nchwc_int8(pd, pk, stride, padding, dilation, "NCHW4c", "NCHW4c",
                       out_dtype=out_dtype, n_elems=4)


def conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype=None,
                          output_padding=(0, 0), groups=1):
    """TVM 0.18's cuda entry: ``nn.conv2d_transpose_nchw``, or with ``groups`` > 1
    ``nn.group_conv2d_transpose_nchw`` (kernel (C, O // groups, KH, KW))."""
    if groups == 1:
        return _nn.conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype,
                                         output_padding)
    return _nn.group_conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype,
                                           output_padding, groups)


schedule_conv2d_NCHWc_int8 = _schedule_direct
schedule_conv3d_ndhwc = _schedule_direct
schedule_conv3d_transpose_ncdhw = _schedule_direct
schedule_group_conv2d_transpose_nchw = _schedule_direct
schedule_group_conv1d_transpose_ncw = _schedule_direct
schedule_deformable_conv2d_nchw = _schedule_direct
schedule_deformable_conv2d_nhwc = _schedule_direct
schedule_conv2d_NCHWc = _schedule_direct
schedule_depthwise_conv2d_backward_input_nhwc = _schedule_direct
schedule_depthwise_conv2d_backward_weight_nhwc = _schedule_direct

__all__ = ["winograd_cuda", "conv3d_ncdhw_winograd", "schedule_conv3d_ncdhw_winograd", "conv2d_transpose_nchw", "conv2d_nchw_winograd", "conv2d_nchw_winograd_without_weight_transform",
           "schedule_conv2d_nchw_winograd",
           "schedule_conv2d_nchw_winograd_without_weight_transform",
           "schedule_conv2d_winograd", "conv2d_NCHWc_int8", "schedule_conv2d_NCHWc_int8",
           "schedule_conv3d_ndhwc", "schedule_conv3d_transpose_ncdhw",
           "schedule_group_conv2d_transpose_nchw", "schedule_group_conv1d_transpose_ncw",
           "schedule_deformable_conv2d_nchw", "schedule_deformable_conv2d_nhwc",
           "schedule_conv2d_NCHWc", "schedule_depthwise_conv2d_backward_input_nhwc",
           "schedule_depthwise_conv2d_backward_weight_nhwc"]
