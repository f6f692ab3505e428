"""Convolutions in TVM's blocked layouts (``topi.nn.conv2d_NCHWc``, ``conv2d_NCHWc_int8``,
``unpack_NCHWc_to_nchw``; TVM 0.6 called the first two ``conv2d_NCHWc_compute`` /
``conv2d_NCHWc_int8_compute``) and ``nn.layout_transform`` (a permutation between two
layouts of the same axes).

``NCHW{cb}c`` data is (N, C // cb, H, W, cb): channel ``c`` at ``[c // cb, ..., c % cb]``.
A conv2d_NCHWc kernel is (O // ob, C // groups // ib, KH, KW, ib, ob); a conv2d_NCHWc_int8
kernel splits ``ib`` once more, (O // ob, C // groups // ib, KH, KW, ib // n, ob, n), so ``n``
consecutive int8 input channels meet one output channel in the innermost axis (the layout of
dot-product instructions)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import floordiv, floormod
from .conv2d import _geometry, _padded
from .utils import const_extents


def _shapes(name, data, kernel, kdim):
    if not isinstance(data, Tensor) or len(data.shape) != 5:
        raise TepadError(f"{name}: data must be a 5-d te.Tensor (N, C // cb, H, W, cb), got "
                         f"{data!r}")
    if not isinstance(kernel, Tensor) or len(kernel.shape) != kdim:
        raise TepadError(f"{name}: kernel must be a {kdim}-d te.Tensor, got {kernel!r}")
    ds = const_extents(data.shape, name, [f"{data.name} axis {i}" for i in range(5)])
    ks = const_extents(kernel.shape, name, [f"{kernel.name} axis {i}" for i in range(kdim)])
    return ds, ks


def _groups_of(name, in_channel, kernel_in, ic_bn, kernel_ic_bn):
    if kernel_in == 0 or in_channel % kernel_in:
        raise TepadError(f"{name}: the kernel's {kernel_in} input channels do not divide the "
                         f"data's {in_channel}")
    if kernel_ic_bn != ic_bn:
        raise TepadError(f"{name}: the kernel's input block {kernel_ic_bn} must equal the "
                         f"data's channel block {ic_bn}")
    return in_channel // kernel_in


def conv2d_NCHWc(data: Tensor, kernel: Tensor, stride, padding, dilation, layout, out_layout,
                 out_dtype="float32"):
    """Convolution of ``data`` (N, C // ib, H, W, ib) with ``kernel``
    (O // ob, C // groups // ib, KH, KW, ib, ob): stage ``conv2d_NCHWc`` (tag
    ``conv2d_NCHWc``), shape (N, O // ob, out_h, out_w, ob). ``layout`` / ``out_layout``
    ("NCHW{ib}c" / "NCHW{ob}c") are recorded as TVM keeps them; a padded input is stage
    ``data_pad``."""
    name = "conv2d_NCHWc"
    (n, ic_chunk, ih, iw, ic_bn), (oc_chunk, kic_chunk, kh, kw, kic_bn, oc_bn) = \
        _shapes(name, data, kernel, 6)
    in_channel = ic_chunk * ic_bn
    groups = _groups_of(name, in_channel, kic_chunk * kic_bn, ic_bn, kic_bn)
    if oc_chunk % groups:
        raise TepadError(f"{name}: {oc_chunk} output channel blocks do not divide into "
                         f"{groups} groups")
    out_dtype = out_dtype or data.dtype
    (sh, sw), (dh, dw), pads, oh, ow = _geometry(name, stride, padding, dilation, kh, kw,
                                                 ih, iw)
    src = _padded(data, 2, 3, pads, "data_pad")
    ic = reduce_axis((0, in_channel // groups), name="ic")
    rkh = reduce_axis((0, kh), name="kh")
    rkw = reduce_axis((0, kw), name="kw")
    per_group = oc_chunk // groups
    cg = ic_chunk // groups

    def body(b, occ, y, x, ocb):
        base = floordiv(occ, per_group) * cg if groups > 1 else 0
        return te_op.sum(
            src[b, base + floordiv(ic, ic_bn), y * sh + rkh * dh, x * sw + rkw * dw,
                floormod(ic, ic_bn)].astype(out_dtype) *
            kernel[occ, floordiv(ic, ic_bn), rkh, rkw, floormod(ic, ic_bn),
                   ocb].astype(out_dtype), axis=[ic, rkh, rkw])
    out = compute((n, oc_chunk, oh, ow, oc_bn), body, name=name, tag=name)
    out.op.attrs["layout"] = layout
    out.op.attrs["out_layout"] = out_layout
    return out


def conv2d_NCHWc_int8(data: Tensor, kernel: Tensor, stride, padding, dilation, layout,
                      out_layout, out_dtype="int32", n_elems=4):
    """Integer convolution of ``data`` (N, C // ib, H, W, ib) with ``kernel``
    (O // ob, C // groups // ib, KH, KW, ib // n_elems, ob, n_elems), accumulated in
    ``out_dtype``: stage ``conv2d_NCHWc_int8`` (tag ``conv2d_NCHWc_int8``), shape
    (N, O // ob, out_h, out_w, ob)."""
    name = "conv2d_NCHWc_int8"
    (n, ic_chunk, ih, iw, ic_bn), ks = _shapes(name, data, kernel, 7)
    oc_chunk, kic_chunk, kh, kw, ic_f, oc_bn, ne = ks
    if ne != n_elems or ic_f * ne != ic_bn:
        raise TepadError(f"{name}: kernel axes 4 and 6 must be ({ic_bn // max(n_elems, 1)}, "
                         f"{n_elems}) (the data's channel block {ic_bn} split by n_elems "
                         f"{n_elems}), got ({ic_f}, {ne})")
    if ic_chunk % kic_chunk:
        raise TepadError(f"{name}: the kernel's {kic_chunk} input channel blocks do not divide "
                         f"the data's {ic_chunk}")
    groups = ic_chunk // kic_chunk
    if oc_chunk % groups:
        raise TepadError(f"{name}: {oc_chunk} output channel blocks do not divide into "
                         f"{groups} groups")
    (sh, sw), (dh, dw), pads, oh, ow = _geometry(name, stride, padding, dilation, kh, kw,
                                                 ih, iw)
    src = _padded(data, 2, 3, pads, "data_pad")
    rkh = reduce_axis((0, kh), name="kh")
    rkw = reduce_axis((0, kw), name="kw")
    ic_outer = reduce_axis((0, kic_chunk), name="ic_outer")
    ic_f_inner = reduce_axis((0, ic_f), name="ic_f_inner")
    ic_s_inner = reduce_axis((0, ne), name="ic_s_inner")
    per_group = oc_chunk // groups

    def body(b, occ, y, x, ocb):
        chunk = floordiv(occ, per_group) * kic_chunk + ic_outer if groups > 1 else ic_outer
        return te_op.sum(
            src[b, chunk, y * sh + rkh * dh, x * sw + rkw * dw,
                ic_f_inner * ne + ic_s_inner].astype(out_dtype) *
            kernel[occ, ic_outer, rkh, rkw, ic_f_inner, ocb, ic_s_inner].astype(out_dtype),
            axis=[rkh, rkw, ic_outer, ic_f_inner, ic_s_inner])
    out = compute((n, oc_chunk, oh, ow, oc_bn), body, name=name, tag=name,
                  attrs={"schedule_rule": "conv2d_NCHWc_int8"})
    out.op.attrs["layout"] = layout
    out.op.attrs["out_layout"] = out_layout
    return out


def unpack_NCHWc_to_nchw(packed_out: Tensor, out_dtype):
    """``packed_out`` (N, C // cb, H, W, cb) as NCHW ``out_dtype``: stage
    ``output_unpack`` (tag ``injective,unpack_nchwc``)."""
    name = "unpack_NCHWc_to_nchw"
    if not isinstance(packed_out, Tensor) or len(packed_out.shape) != 5:
        raise TepadError(f"{name}: packed_out must be a 5-d te.Tensor, got {packed_out!r}")
    n, cc, h, w, cb = const_extents(packed_out.shape, name, ("N", "C/cb", "H", "W", "cb"))
    return compute((n, cc * cb, h, w),
                   lambda b, c, y, x: packed_out[b, floordiv(c, cb), y, x,
                                                 floormod(c, cb)].astype(out_dtype),
                   name="output_unpack", tag="injective,unpack_nchwc")


def layout_transform(tensor: Tensor, current_layout: str, desired_layout: str):
    """``tensor`` (in ``current_layout``, e.g. "NCHW") with its axes permuted into
    ``desired_layout`` (e.g. "CNHW"): both layouts name the same axes (TVM's helper of the
    same name acts on relay expressions; this one on a te.Tensor). For blocked layouts use
    ``topi.layout_transform``."""
    name = "nn.layout_transform"
    if not isinstance(current_layout, str) or not isinstance(desired_layout, str) or \
            sorted(current_layout) != sorted(desired_layout) or \
            len(set(current_layout)) != len(current_layout):
        raise TepadError(f"{name}: {current_layout!r} and {desired_layout!r} must name the "
                         "same axes, each once (blocked layouts: topi.layout_transform)")
    if not isinstance(tensor, Tensor) or len(tensor.shape) != len(current_layout):
        raise TepadError(f"{name}: tensor must be a {len(current_layout)}-d te.Tensor for "
                         f"layout {current_layout!r}, got {tensor!r}")
    if current_layout == desired_layout:
        return tensor
    perm = [current_layout.index(c) for c in desired_layout]
    shape = [tensor.shape[i] for i in perm]

    def body(*idx):
        src = [None] * len(perm)
        for out_pos, in_pos in enumerate(perm):
            src[in_pos] = idx[out_pos]
        return tensor[tuple(src)]
    return compute(shape, body, name="T_transpose", tag="injective")


def conv2d_NCHWc_compute(data, kernel, strides, padding, dilation, layout, out_layout,
                         out_dtype="float32"):
    """TVM 0.6's name (and ``strides`` keyword) of ``conv2d_NCHWc``."""
    return conv2d_NCHWc(data, kernel, strides, padding, dilation, layout, out_layout, out_dtype)


def conv2d_NCHWc_int8_compute(data, kernel, strides, padding, dilation, layout, out_layout,
                              out_dtype="int32"):
    """TVM 0.6's name (and ``strides`` keyword) of ``conv2d_NCHWc_int8`` (blocks of 4)."""
    return conv2d_NCHWc_int8(data, kernel, strides, padding, dilation, layout, out_layout,
                             out_dtype)

__all__ = ["conv2d_NCHWc", "conv2d_NCHWc_int8", "conv2d_NCHWc_compute",
           "conv2d_NCHWc_int8_compute", "unpack_NCHWc_to_nchw", "layout_transform"]
