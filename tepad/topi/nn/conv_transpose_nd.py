"""Transposed (fractionally strided) convolutions over 1, 2 or 3 spatial axes, plain and
grouped (TVM's ``topi.nn.group_conv1d_transpose_ncw``, ``conv2d_transpose_nchw_preprocess`` /
``declaration_conv2d_transpose_impl`` / ``group_conv2d_transpose_nchw``,
``conv3d_transpose_ncdhw`` and its ``_preprocess`` / ``declaration_..._impl`` /
``group_conv3d_transpose_ncdhw``).

A transposed convolution of channel-first ``data`` (N, C, *S) with ``kernel``
(C, O // groups, *K) is the ordinary convolution of ``data`` dilated by the strides and padded
by ``K - 1 - pad`` before (``K - 1 - pad + output_padding`` after) with the kernel flipped
along every spatial axis and its two channel axes swapped. As TVM computes it, the dilated,
padded input is one injective stage ``data_pad`` and the reduction reads it at unit stride.
Output spatial size: ``(S - 1) * stride - pad_before - pad_after + K + output_padding``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod
from .utils import const_extents, get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d, ints


def _pads(padding, ks, name):
    """(before, after) pads per spatial axis, by the TVM padding forms of that rank."""
    d = len(ks)
    if d == 1:
        p = get_pad_tuple1d(padding, ks)
    elif d == 2:
        p = get_pad_tuple(padding, ks)
    else:
        p = get_pad_tuple3d(padding, ks)
    before, after = list(p[:d]), list(p[d:])
    if min(p) < 0:
        raise TepadError(f"{name}: padding {padding!r} must not be negative")
    return before, after


def _tensor(name, t, what, ndim):
    if not isinstance(t, Tensor) or len(t.shape) != ndim:
        raise TepadError(f"{name}: {what} must be a {ndim}-d te.Tensor, got {t!r}")


def _dilate_pad(data, strides, before, sizes, name="data_pad"):
    """``data`` (N, C, *S) dilated by ``strides`` along its spatial axes and placed at offset
    ``before`` in a zero array of spatial ``sizes``: one injective stage."""
    d = len(strides)
    dil = [(int(s) - 1) * st + 1 for s, st in zip(data.shape[2:], strides)]
    zero = const(0, data.dtype)

    def body(b, c, *xs):
        shifted = [x - bf for x, bf in zip(xs, before)]
        conds = []
        for x, n, st in zip(shifted, dil, strides):
            conds += [x >= 0, x < n]
            if st > 1:
                conds.append(floormod(x, st) == 0)
        src = [floordiv(x, st) if st > 1 else x for x, st in zip(shifted, strides)]
        return tirop.if_then_else(tirop.all(*conds), data[(b, c, *src)], zero)
    if d and all(bf == 0 for bf in before) and all(st == 1 for st in strides) and \
            list(sizes) == dil:
        return data
    return compute((data.shape[0], data.shape[1], *sizes), body, name=name,
                   tag="injective,pad")


def _preprocess(name, data, kernel, strides, padding, output_padding, d):
    """``(data_pad, kernel_transform)`` of a transposed convolution with ``d`` spatial
    axes: the dilated, padded input and the kernel as (O, C, *K), flipped spatially."""
    _tensor(name, data, "data", d + 2)
    _tensor(name, kernel, "kernel", d + 2)
    C, *S = const_extents(data.shape[1:], name, ["C", "D", "H", "W"][:1] + ["D", "H", "W"][3 - d:])
    KC, O, *K = const_extents(kernel.shape, name, ["KC", "O", "KD", "KH", "KW"][:2] +
                              ["KD", "KH", "KW"][3 - d:])
    if C != KC:
        raise TepadError(f"{name}: {data.name} has {C} channels but {kernel.name} expects "
                         f"{KC} input channels")
    st = ints(strides, d, f"{name}: strides")
    op = ints(output_padding, d, f"{name}: output_padding")
    if min(st) < 1 or any(not 0 <= o < s for o, s in zip(op, st)):
        raise TepadError(f"{name}: strides must be >= 1 and each output_padding in "
                         f"[0, stride); got strides {st}, output_padding {op}")
    before, after = _pads(padding, K, name)
    bb = [k - 1 - p for k, p in zip(K, before)]
    ba = [k - 1 - p + o for k, p, o in zip(K, after, op)]
    if min(bb + ba) < 0:
        raise TepadError(f"{name}: padding {padding!r} exceeds kernel - 1 (kernel {K})")
    sizes = [(s - 1) * t + 1 + b + a for s, t, b, a in zip(S, st, bb, ba)]
    data_pad = _dilate_pad(data, st, bb, sizes)
    kernel_transform = compute(
        (O, C, *K),
        lambda o, c, *ks: kernel[(c, o, *[k - 1 - x for k, x in zip(K, ks)])],
        name="kernel_transform")
    return data_pad, kernel_transform


def _transposed(name, data, kernel, strides, padding, out_dtype, output_padding, groups, d,
                tag):
    """The grouped transposed convolution (module doc); ``kernel`` (C, O // groups, *K)."""
    _tensor(name, data, "data", d + 2)
    _tensor(name, kernel, "kernel", d + 2)
    if not isinstance(groups, int) or groups < 1:
        raise TepadError(f"{name}: groups must be a positive int, got {groups!r}")
    out_dtype = out_dtype or data.dtype
    C = const_extents(data.shape[1:2], name, ["C"])[0]
    if C % groups:
        raise TepadError(f"{name}: {C} input channels do not divide into {groups} groups")
    data_pad, _ = _preprocess(name, data, kernel, strides, padding, output_padding, d)
    og, *K = const_extents(kernel.shape[1:], name, ["O/groups", "KD", "KH", "KW"][:1] +
                           ["KD", "KH", "KW"][3 - d:])
    cg = C // groups
    sizes = [int(s) - k + 1 for s, k in zip(data_pad.shape[2:], K)]
    dc = reduce_axis((0, cg), name="dc")
    rk = [reduce_axis((0, k), name=nm) for k, nm in zip(K, ["dd", "dh", "dw"][3 - d:])]

    def body(b, f, *xs):
        cin = floordiv(f, og) * cg + dc if groups > 1 else dc
        fo = floormod(f, og) if groups > 1 else f
        return te_op.sum(
            data_pad[(b, cin, *[x + r for x, r in zip(xs, rk)])].astype(out_dtype) *
            kernel[(cin, fo, *[k - 1 - r for k, r in zip(K, rk)])].astype(out_dtype),
            axis=[dc, *rk])
    return compute((data.shape[0], og * groups, *sizes), body, name=tag, tag=tag)


def group_conv1d_transpose_ncw(data: Tensor, kernel: Tensor, stride, padding, out_dtype,
                               output_padding, groups):
    """Grouped transposed 1-D convolution: ``data`` (N, C, W), ``kernel``
    (C, O // groups, K); output (N, O, out_w), stage ``group_conv1d_transpose_ncw``."""
    return _transposed("group_conv1d_transpose_ncw", data, kernel, stride, padding, out_dtype,
                       output_padding, groups, 1, "group_conv1d_transpose_ncw")


def conv2d_transpose_nchw_preprocess(data: Tensor, kernel: Tensor, strides, padding,
                                     out_dtype, output_padding):
    """``(data_pad, kernel_transform)``: NCHW ``data`` dilated by ``strides`` and padded
    (stage ``data_pad``), the IOHW ``kernel`` flipped to OIHW (stage ``kernel_transform``)."""
    return _preprocess("conv2d_transpose_nchw_preprocess", data, kernel, strides, padding,
                       output_padding, 2)


def declaration_conv2d_transpose_impl(data: Tensor, kernel: Tensor, strides, padding,
                                      out_dtype, output_padding):
    """The transposed NCHW convolution as its preprocess stages plus a unit-stride
    convolution of ``data_pad`` with ``kernel_transform`` (stage and tag
    ``conv2d_transpose_nchw``)."""
    return _impl("conv2d_transpose_nchw", data, kernel, strides, padding, out_dtype,
                 output_padding, 2)


def group_conv2d_transpose_nchw(data: Tensor, kernel: Tensor, stride, padding, out_dtype,
                                output_padding, groups):
    """Grouped transposed NCHW convolution: ``kernel`` (C, O // groups, KH, KW); output
    (N, O, out_h, out_w), stage ``group_conv2d_transpose_nchw``."""
    return _transposed("group_conv2d_transpose_nchw", data, kernel, stride, padding, out_dtype,
                       output_padding, groups, 2, "group_conv2d_transpose_nchw")


def conv3d_transpose_ncdhw_preprocess(data: Tensor, kernel: Tensor, strides, padding,
                                      out_dtype, output_padding):
    """``(data_pad, kernel_transform)`` of the transposed NCDHW convolution (see the 2-D
    one); ``padding`` an int, 3 or 6 ints, "SAME" or "VALID"."""
    return _preprocess("conv3d_transpose_ncdhw_preprocess", data, kernel, strides, padding,
                       output_padding, 3)


def declaration_conv3d_transpose_impl(data: Tensor, kernel: Tensor, strides, padding,
                                      out_dtype, output_padding):
    """The transposed NCDHW convolution as its preprocess stages plus a unit-stride
    convolution (stage and tag ``conv3d_transpose_ncdhw``)."""
    return _impl("conv3d_transpose_ncdhw", data, kernel, strides, padding, out_dtype,
                 output_padding, 3)


def conv3d_transpose_ncdhw(Input: Tensor, Filter: Tensor, strides, padding, out_dtype,
                           output_padding):
    """Transposed NCDHW convolution: ``Filter`` (C, O, KD, KH, KW); output
    (N, O, out_d, out_h, out_w), stage ``conv3d_transpose_ncdhw``."""
    return _transposed("conv3d_transpose_ncdhw", Input, Filter, strides, padding, out_dtype,
                       output_padding, 1, 3, "conv3d_transpose_ncdhw")


def group_conv3d_transpose_ncdhw(data: Tensor, kernel: Tensor, strides, padding, out_dtype,
                                 output_padding, groups):
    """Grouped transposed NCDHW convolution: ``kernel`` (C, O // groups, KD, KH, KW)."""
    return _transposed("group_conv3d_transpose_ncdhw", data, kernel, strides, padding,
                       out_dtype, output_padding, groups, 3, "group_conv3d_transpose_ncdhw")


def _impl(name, data, kernel, strides, padding, out_dtype, output_padding, d):
    out_dtype = out_dtype or data.dtype
    data_pad, kt = _preprocess(name, data, kernel, strides, padding, output_padding, d)
    O, C, *K = const_extents(kt.shape, name, ["O", "C", "KD", "KH", "KW"][:2] +
                             ["KD", "KH", "KW"][3 - d:])
    sizes = [int(s) - k + 1 for s, k in zip(data_pad.shape[2:], K)]
    dc = reduce_axis((0, C), name="dc")
    rk = [reduce_axis((0, k), name=nm) for k, nm in zip(K, ["dd", "dh", "dw"][3 - d:])]
    return compute(
        (data.shape[0], O, *sizes),
        lambda b, f, *xs: te_op.sum(
            data_pad[(b, dc, *[x + r for x, r in zip(xs, rk)])].astype(out_dtype) *
            kt[(f, dc, *rk)].astype(out_dtype), axis=[dc, *rk]),
        name=name, tag=name)


__all__ = ["group_conv1d_transpose_ncw", "conv2d_transpose_nchw_preprocess",
           "declaration_conv2d_transpose_impl", "group_conv2d_transpose_nchw",
           "conv3d_transpose_ncdhw_preprocess", "declaration_conv3d_transpose_impl",
           "conv3d_transpose_ncdhw", "group_conv3d_transpose_ncdhw"]
