"""Deformable 2-D convolutions (TVM's ``topi.nn.deformable_conv2d_nchw`` / ``_nhwc``,
https://arxiv.org/abs/1703.06211): each kernel tap reads the input at its regular window
position moved by a learned fractional (dy, dx) ``offset``, sampled bilinearly.

``offset`` holds, per output position, ``deformable_groups * KH * KW`` pairs (dy, dx): the
pair of tap (kh, kw) for input channel c is at channel index
``(c // (C / deformable_groups)) * KH * KW * 2 + (kh * KW + kw) * 2`` (+1 for dx). A sample
point outside ``[0, H) x [0, W)`` reads 0; inside, each of its four neighbours that falls
outside the input contributes 0. The sampled input is one stage (``data_deform``) and the
convolution reduces over it."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import cast, const
from .conv2d import _geometry
from .utils import const_extents


def _bilinear(read, h, w, H, W, dtype):
    """``read(y, x)`` sampled at the fractional (h, w) (see the module doc)."""
    zero = const(0, dtype)
    y0 = cast("int32", tirop.floor(h))
    x0 = cast("int32", tirop.floor(w))
    fy = h - cast(dtype, y0)
    fx = w - cast(dtype, x0)
    val = None
    for yy, wy in ((y0, 1.0 - fy), (y0 + 1, fy)):
        for xx, wx in ((x0, 1.0 - fx), (x0 + 1, fx)):
            ok = tirop.all(yy >= 0, yy < H, xx >= 0, xx < W)
            ys = tirop.max(tirop.min(yy, H - 1), 0)
            xs = tirop.max(tirop.min(xx, W - 1), 0)
            term = tirop.if_then_else(ok, wy * wx * read(ys, xs), zero)
            val = term if val is None else val + term
    outside = tirop.any(h < 0, w < 0, h >= float(H), w >= float(W))
    return tirop.if_then_else(outside, zero, val)


def _check(name, data, offset, kernel, deformable_groups, groups):
    for t, what in ((data, "data"), (offset, "offset"), (kernel, "kernel")):
        if not isinstance(t, Tensor) or len(t.shape) != 4:
            raise TepadError(f"{name}: {what} must be a 4-d te.Tensor, got {t!r}")
    if groups != 1:
        raise TepadError(f"{name}: groups must be 1 (grouped deformable convolution is not "
                         f"supported, as in TVM), got {groups!r}")
    if not isinstance(deformable_groups, int) or deformable_groups < 1:
        raise TepadError(f"{name}: deformable_groups must be a positive int, got "
                         f"{deformable_groups!r}")


def _deformable(name, layout, data, offset, kernel, strides, padding, dilation,
                deformable_groups, groups, out_dtype):
    _check(name, data, offset, kernel, deformable_groups, groups)
    out_dtype = out_dtype or data.dtype
    if layout == "NCHW":
        N, C, H, W = const_extents(data.shape, name, ("N", "C", "H", "W"))
        O, KC, KH, KW = const_extents(kernel.shape, name, ("O", "KC", "KH", "KW"))
        _, OC2, OH, OW = const_extents(offset.shape, name, ("N", "2*taps", "OH", "OW"))
    else:
        N, H, W, C = const_extents(data.shape, name, ("N", "H", "W", "C"))
        KH, KW, KC, O = const_extents(kernel.shape, name, ("KH", "KW", "KC", "O"))
        _, OH, OW, OC2 = const_extents(offset.shape, name, ("N", "OH", "OW", "2*taps"))
    if KC != C:
        raise TepadError(f"{name}: {data.name} has {C} channels but {kernel.name} expects {KC}")
    if C % deformable_groups:
        raise TepadError(f"{name}: {C} channels do not divide into {deformable_groups} "
                         "deformable groups")
    if OC2 != deformable_groups * KH * KW * 2:
        raise TepadError(f"{name}: {offset.name} must have deformable_groups * KH * KW * 2 = "
                         f"{deformable_groups * KH * KW * 2} offset channels, got {OC2}")
    (sh, sw), (dh, dw), (pt, pl, _, _), oh, ow = _geometry(name, strides, padding, dilation,
                                                          KH, KW, H, W)
    if (oh, ow) != (OH, OW):
        raise TepadError(f"{name}: {offset.name} is {OH}x{OW} per channel but the output is "
                         f"{oh}x{ow}")
    cpg = C // deformable_groups
    dt = data.dtype

    def off(n, c, kh, kw, y, x, k):
        ch = (c // cpg) * (KH * KW * 2) + (kh * KW + kw) * 2 + k
        return offset[n, ch, y, x] if layout == "NCHW" else offset[n, y, x, ch]

    def sample(n, c, kh, kw, y, x):
        h = cast(dt, y * sh - pt + kh * dh) + off(n, c, kh, kw, y, x, 0)
        w = cast(dt, x * sw - pl + kw * dw) + off(n, c, kh, kw, y, x, 1)
        read = (lambda yy, xx: data[n, c, yy, xx]) if layout == "NCHW" else \
            (lambda yy, xx: data[n, yy, xx, c])
        return _bilinear(read, h, w, H, W, dt)
    ry = reduce_axis((0, KH), name="ry")
    rx = reduce_axis((0, KW), name="rx")
    rc = reduce_axis((0, C), name="rc")
    if layout == "NCHW":
        deform = compute((N, C, KH, KW, OH, OW), sample, name="data_deform", tag="data_deform")
        return compute(
            (N, O, OH, OW),
            lambda n, f, y, x: te_op.sum(
                deform[n, rc, ry, rx, y, x].astype(out_dtype) *
                kernel[f, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
            name=name, tag=name)
    deform = compute((N, OH, OW, KH, KW, C),
                     lambda n, y, x, kh, kw, c: sample(n, c, kh, kw, y, x),
                     name="data_deform", tag="data_deform")
    return compute(
        (N, OH, OW, O),
        lambda n, y, x, f: te_op.sum(
            deform[n, y, x, ry, rx, rc].astype(out_dtype) *
            kernel[ry, rx, rc, f].astype(out_dtype), axis=[ry, rx, rc]),
        name=name, tag=name)


def deformable_conv2d_nchw(data: Tensor, offset: Tensor, kernel: Tensor, strides, padding,
                           dilation, deformable_groups, groups, out_dtype):
    """NCHW ``data``, ``offset`` (N, deformable_groups * KH * KW * 2, out_h, out_w), OIHW
    ``kernel``: stage ``deformable_conv2d_nchw`` (N, O, out_h, out_w). ``groups`` must be 1."""
    return _deformable("deformable_conv2d_nchw", "NCHW", data, offset, kernel, strides,
                       padding, dilation, deformable_groups, groups, out_dtype)


def deformable_conv2d_nhwc(data: Tensor, offset: Tensor, kernel: Tensor, strides, padding,
                           dilation, deformable_groups, groups, out_dtype):
    """NHWC ``data``, ``offset`` (N, out_h, out_w, deformable_groups * KH * KW * 2), HWIO
    ``kernel``: stage ``deformable_conv2d_nhwc`` (N, out_h, out_w, O)."""
    return _deformable("deformable_conv2d_nhwc", "NHWC", data, offset, kernel, strides,
                       padding, dilation, deformable_groups, groups, out_dtype)


__all__ = ["deformable_conv2d_nchw", "deformable_conv2d_nhwc"]
