"""Grouped 2-D convolutions (TVM's ``topi.nn.group_conv2d_nchw`` / ``group_conv2d_nhwc``):
the C input channels and O output channels split into ``groups`` equal parts; output
channel ``f`` reads the input channels of group ``f // (O // groups)`` only."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from .conv2d import _check, _geometry, _padded
from .utils import const_extents


def _groups(name, c, ci, o, groups):
    if not isinstance(groups, int) or groups < 1:
        raise TepadError(f"{name}: groups must be a positive int, got {groups!r}")
    if c % groups or o % groups:
        raise TepadError(f"{name}: {c} input and {o} output channels must both divide into "
                         f"{groups} groups")
    if ci * groups != c:
        raise TepadError(f"{name}: the filter has {ci} input channels per group but the data "
                         f"has {c} channels in {groups} groups (expected {c // groups})")
    return o // groups


def group_conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups,
                      out_dtype=None):
    """NCHW ``Input``, ``Filter`` (O, C // groups, KH, KW): stage ``group_conv2d_nchw``
    (tag ``group_conv2d_nchw``), shape (N, O, out_h, out_w)."""
    name = "group_conv2d_nchw"
    _check(name, Input, Filter)
    out_dtype = out_dtype or Input.dtype
    n = Input.shape[0]
    C, H, W = const_extents(Input.shape[1:], name, ("C", "H", "W"))
    O, CI, KH, KW = const_extents(Filter.shape, name, ("O", "CI", "KH", "KW"))
    og = _groups(name, C, CI, O, groups)
    (sh, sw), (dh, dw), pads, oh, ow = _geometry(name, stride, padding, dilation, KH, KW, H, W)
    src = _padded(Input, 2, 3, pads, "pad_temp")
    rc = reduce_axis((0, CI), name="rc")
    ry = reduce_axis((0, KH), name="ry")
    rx = reduce_axis((0, KW), name="rx")
    return compute(
        (n, O, oh, ow),
        lambda b, f, y, x: te_op.sum(
            src[b, (f // og) * CI + rc, y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype) *
            Filter[f, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        name=name, tag=name)


def group_conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups,
                      out_dtype=None):
    """NHWC ``Input``, ``Filter`` (KH, KW, C // groups, O): stage ``group_conv2d_nhwc``
    (tag ``group_conv2d_nhwc``), shape (N, out_h, out_w, O)."""
    name = "group_conv2d_nhwc"
    _check(name, Input, Filter)
    out_dtype = out_dtype or Input.dtype
    n = Input.shape[0]
    H, W, C = const_extents(Input.shape[1:], name, ("H", "W", "C"))
    KH, KW, CI, O = const_extents(Filter.shape, name, ("KH", "KW", "CI", "O"))
    og = _groups(name, C, CI, O, groups)
    (sh, sw), (dh, dw), pads, oh, ow = _geometry(name, stride, padding, dilation, KH, KW, H, W)
    src = _padded(Input, 1, 2, pads, "pad_temp")
    rc = reduce_axis((0, CI), name="rc")
    ry = reduce_axis((0, KH), name="ry")
    rx = reduce_axis((0, KW), name="rx")
    return compute(
        (n, oh, ow, O),
        lambda b, y, x, f: te_op.sum(
            src[b, y * sh + ry * dh, x * sw + rx * dw, (f // og) * CI + rc].astype(out_dtype) *
            Filter[ry, rx, rc, f].astype(out_dtype), axis=[rc, ry, rx]),
        name=name, tag=name)


__all__ = ["group_conv2d_nchw", "group_conv2d_nhwc"]
