"""Depthwise 2-D convolutions (TVM's ``topi.nn.depthwise_conv2d_nchw`` / ``_nhwc``): each
input channel convolved with its own ``channel_multiplier`` filters."""
from __future__ import annotations

from collections import namedtuple

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import dtype as dt
from ...tir.expr import floordiv, floormod
from .conv2d import _channels_match, _check, _geometry, _padded
from .utils import const_extents

#: TVM's depthwise workload record (``topi.nn.depthwise_conv2d.Workload``)
Workload = namedtuple("Workload", [
    "in_dtype", "out_dtype", "height", "width", "in_filter", "out_filter", "kernel_h",
    "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w", "stride_h",
    "stride_w"])


def _is_dtype(x) -> bool:
    if not isinstance(x, str):
        return False
    try:
        dt.parse(x)
    except TepadError:      # not a dtype: reported as a bad kernel_layout
        return False
    return True


def _const(t, what):
    return const_extents(t.shape, what, [f"{t.name} axis {i}" for i in range(len(t.shape))])


def _get_workload(data, kernel, stride, padding, dilation, out_dtype, data_layout="NCHW"):
    """The ``Workload`` of a depthwise convolution: ``data_layout`` "NCHW" (filter
    (C, multiplier, kh, kw)), "NHWC" (filter (kh, kw, C, multiplier)) or "NCHWc" (data
    (N, C/cb, H, W, cb), filter (OC/ob, 1, kh, kw, 1, ob)); out_filter is C * multiplier,
    the padding resolved against the dilated kernel. TVM's
    ``topi.nn.depthwise_conv2d._get_workload``."""
    what = "depthwise_conv2d _get_workload"
    if data_layout == "NCHW":
        _check(what, data, kernel)
        (_, c, h, w), (fc, m, kh, kw) = _const(data, what), _const(kernel, what)
    elif data_layout == "NHWC":
        _check(what, data, kernel)
        (_, h, w, c), (kh, kw, fc, m) = _const(data, what), _const(kernel, what)
    elif data_layout == "NCHWc":
        if len(data.shape) != 5 or len(kernel.shape) != 6:
            raise TepadError(f"{what}: NCHWc takes 5-d data and a 6-d filter, got "
                             f"{len(data.shape)}-d {data.name} and {len(kernel.shape)}-d "
                             f"{kernel.name}")
        (_, cc, h, w, cb), (oc_chunk, mc, kh, kw, mb, ob) = \
            _const(data, what), _const(kernel, what)
        c, out_c = cc * cb, oc_chunk * ob
        if out_c % c:
            raise TepadError(f"{what}: {kernel.name} has {out_c} output channels, not a "
                             f"multiple of the {c} channels of {data.name}")
        fc, m = c, out_c // c
    else:
        raise TepadError(f"{what}: data_layout {data_layout!r} is not supported; use "
                         "'NCHW', 'NHWC' or 'NCHWc'")
    if fc != c:
        raise TepadError(f"{what}: {data.name} has {c} channels but {kernel.name} expects "
                         f"{fc}")
    if data.dtype != kernel.dtype and not (data.dtype == "uint8" and kernel.dtype == "int8"):
        raise TepadError(f"{what}: {data.name} is {data.dtype} but {kernel.name} is "
                         f"{kernel.dtype}; they must agree (or uint8 data with int8 kernel)")
    (sh, sw), (dh, dw), (pt, pl, pb, pr), _, _ = _geometry(what, stride, padding, dilation,
                                                          kh, kw, h, w)
    return Workload(data.dtype, out_dtype, h, w, c, c * m, kh, kw, pt, pl, pb, pr, dh, dw,
                    sh, sw)


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
    """NHWC ``Input``, ``Filter`` (kh, kw, in_channel, channel_multiplier) ("HWOI", or
    (kh, kw, channel_multiplier, in_channel) with ``kernel_layout="HWIO"``): stage
    ``DepthwiseConv2d`` (tag ``depthwise_conv2d_nhwc``), shape
    (N, out_h, out_w, in_channel * channel_multiplier). A dtype in the ``kernel_layout``
    slot (``f(..., dilation, "float32")``, the argument order of other convolutions) is
    taken as ``out_dtype``."""
    _check("depthwise_conv2d_nhwc", Input, Filter)
    if kernel_layout not in ("HWOI", "HWIO") and out_dtype is None and _is_dtype(kernel_layout):
        kernel_layout, out_dtype = "HWOI", kernel_layout
    if kernel_layout not in ("HWOI", "HWIO"):
        raise TepadError(f"depthwise_conv2d_nhwc: kernel_layout {kernel_layout!r} is not "
                         "supported; use 'HWOI' (kh, kw, in_channel, multiplier) or 'HWIO' "
                         "(kh, kw, multiplier, in_channel)")
    out_dtype = out_dtype or Input.dtype
    n, h, w, c = Input.shape
    if kernel_layout == "HWOI":
        kh, kw, fc, m = Filter.shape
    else:
        kh, kw, m, fc = Filter.shape
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
            (Filter[di, dj, floordiv(ch, M), floormod(ch, M)] if kernel_layout == "HWOI" else
             Filter[di, dj, floormod(ch, M), floordiv(ch, M)]).astype(out_dtype),
            axis=[di, dj]),
        name="DepthwiseConv2d", tag="depthwise_conv2d_nhwc")


def depthwise_conv2d_NCHWc(Input: Tensor, Filter: Tensor, stride, padding, dilation, layout,
                           out_layout, out_dtype=None):
    """Depthwise convolution in blocked layouts: ``Input`` (N, C/cb, H, W, cb) in
    ``layout`` "NCHW{cb}c", ``Filter`` (OC/ob, 1, kh, kw, 1, ob), output
    (N, OC/ob, out_h, out_w, ob) in ``out_layout`` "NCHW{ob}c"; output channel ``oc`` reads
    input channel ``oc // (OC / C)``. Stage ``DepthwiseConv2d`` (tag
    ``depthwise_conv2d_NCHWc``)."""
    name = "depthwise_conv2d_NCHWc"
    if not isinstance(Input, Tensor) or len(Input.shape) != 5:
        raise TepadError(f"{name}: Input must be a 5-d te.Tensor (N, C/cb, H, W, cb), got "
                         f"{Input!r}")
    if not isinstance(Filter, Tensor) or len(Filter.shape) != 6:
        raise TepadError(f"{name}: Filter must be a 6-d te.Tensor (OC/ob, 1, kh, kw, 1, ob), "
                         f"got {Filter!r}")
    out_dtype = out_dtype or Input.dtype
    n, cc, h, w, cb = _const(Input, name)
    oc_chunk, mc, kh, kw, mb, ob = _const(Filter, name)
    for lay, block, what in ((layout, cb, "layout"), (out_layout, ob, "out_layout")):
        if lay != f"NCHW{block}c":
            raise TepadError(f"{name}: {what} {lay!r} does not match the tensors' block "
                             f"{block}: expected 'NCHW{block}c'")
    if mc != 1 or mb != 1:
        raise TepadError(f"{name}: the filter's axes 1 and 4 must be 1 (the multiplier is "
                         f"folded into the output channels), got {mc} and {mb}")
    c, out_c = cc * cb, oc_chunk * ob
    if out_c % c:
        raise TepadError(f"{name}: {out_c} output channels are not a multiple of the {c} "
                         "input channels")
    M = out_c // c
    (sh, sw), (dh, dw), pads, oh, ow = _geometry(name, stride, padding, dilation, kh, kw, h, w)
    src = _padded(Input, 2, 3, pads, "PaddedInput")
    di = reduce_axis((0, kh), name="di")
    dj = reduce_axis((0, kw), name="dj")

    def body(b, oco, i, j, oci):
        ic = floordiv(oco * ob + oci, M)
        return te_op.sum(
            src[b, floordiv(ic, cb), i * sh + di * dh, j * sw + dj * dw,
                floormod(ic, cb)].astype(out_dtype) *
            Filter[oco, 0, di, dj, 0, oci].astype(out_dtype), axis=[di, dj])
    return compute((n, oc_chunk, oh, ow, ob), body, name="DepthwiseConv2d",
                   tag="depthwise_conv2d_NCHWc")


__all__ = ["depthwise_conv2d_nchw", "depthwise_conv2d_nhwc", "depthwise_conv2d_NCHWc",
           "Workload"]
