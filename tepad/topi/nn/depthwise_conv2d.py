"""Depthwise 2-D convolutions (TVM's ``topi.nn.depthwise_conv2d_nchw`` / ``_nhwc``): each
input channel convolved with its own ``channel_multiplier`` filters."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import floordiv, floormod
from .conv2d import _channels_match, _check, _geometry, _padded
from .utils import const_extents


def depthwise_conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation,
                          out_dtype=None):
    """NCHW ``Input``, ``Filter`` (in_channel, channel_multiplier, kh, kw): stage
    ``DepthwiseConv2d`` (tag ``depthwise_conv2d_nchw``), shape
    (N, in_channel * channel_multiplier, out_h, out_w); output channel ``c`` reads input
    channel ``c // channel_multiplier``."""
    _check("depthwise_conv2d_nchw", Input, Filter)
    out_dtype = out_dtype or Input.dtype
    n, c, h, w = Input.shape
    fc, m, kh, kw = Filter.shape
    _channels_match("depthwise_conv2d_nchw", Input, c, Filter, fc)
    H, W, KH, KW, M = const_extents((h, w, kh, kw, m), "depthwise_conv2d_nchw",
                                    ("H", "W", "KH", "KW", "channel_multiplier"))
    (sh, sw), (dh, dw), pads, oh, ow = _geometry("depthwise_conv2d_nchw", stride, padding,
                                                 dilation, KH, KW, H, W)
    src = _padded(Input, 2, 3, pads, "PaddedInput")
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")
    return compute(
        (n, c * M, oh, ow),
        lambda b, ch, i, j: te_op.sum(
            src[b, floordiv(ch, M), i * sh + di * dh, j * sw + dj * dw].astype(out_dtype) *
            Filter[floordiv(ch, M), floormod(ch, M), di, dj].astype(out_dtype),
            axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nchw")


def depthwise_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation,
                          kernel_layout="HWOI", out_dtype=None):
    """NHWC ``Input``, ``Filter`` (kh, kw, in_channel, channel_multiplier) ("HWOI"): stage
    ``DepthwiseConv2d`` (tag ``depthwise_conv2d_nhwc``), shape
    (N, out_h, out_w, in_channel * channel_multiplier)."""
    _check("depthwise_conv2d_nhwc", Input, Filter)
    if kernel_layout != "HWOI":
        raise TepadError(f"depthwise_conv2d_nhwc: kernel_layout {kernel_layout!r} is not "
                         "supported; the filter is HWOI (kh, kw, in_channel, multiplier)")
    out_dtype = out_dtype or Input.dtype
    n, h, w, c = Input.shape
    kh, kw, fc, m = Filter.shape
    _channels_match("depthwise_conv2d_nhwc", Input, c, Filter, fc)
    H, W, KH, KW, M = const_extents((h, w, kh, kw, m), "depthwise_conv2d_nhwc",
                                    ("H", "W", "KH", "KW", "channel_multiplier"))
    (sh, sw), (dh, dw), pads, oh, ow = _geometry("depthwise_conv2d_nhwc", stride, padding,
                                                 dilation, KH, KW, H, W)
    src = _padded(Input, 1, 2, pads, "PaddedInput")
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")
    return compute(
        (n, oh, ow, c * M),
        lambda b, i, j, ch: te_op.sum(
            src[b, i * sh + di * dh, j * sw + dj * dw, floordiv(ch, M)].astype(out_dtype) *
            Filter[di, dj, floordiv(ch, M), floormod(ch, M)].astype(out_dtype),
            axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nhwc")


__all__ = ["depthwise_conv2d_nchw", "depthwise_conv2d_nhwc"]
