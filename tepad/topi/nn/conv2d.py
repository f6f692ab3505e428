"""2-D convolutions (TVM's ``topi.nn.conv2d`` and its layouts): ``conv2d_nchw`` (OIHW
filter), ``conv2d_nhwc`` (HWIO filter), ``conv2d_hwcn`` (HWIO filter, HWCN data) and the
generic ``conv2d`` choosing by ``data_layout``. Padding: see ``get_pad_tuple``; a padded
input is its own injective stage (``pad_temp`` / ``PaddedInput``, as TVM names them)."""
from __future__ import annotations

from collections import namedtuple

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import IntImm
from .pad import pad
from .utils import const_extents, get_pad_tuple, ints

#: TVM's conv2d workload record (``topi.nn.conv2d.Workload``): what a fallback or tuned
#: config is chosen for. ``groups`` is in_filter // the filter's input channels.
Workload = namedtuple("Workload", [
    "in_dtype", "out_dtype", "height", "width", "in_filter", "groups", "out_filter",
    "kernel_h", "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w",
    "stride_h", "stride_w"])

_WORKLOAD_LAYOUTS = {"NCHW": ((1, 2, 3), (0, 1, 2, 3)), "NHWC": ((3, 1, 2), (3, 2, 0, 1)),
                     "HWCN": ((2, 0, 1), (3, 2, 0, 1))}


def _get_workload(data, kernel, stride, padding, dilation, out_dtype, data_layout="NCHW"):
    """The ``Workload`` of a 2-D convolution of ``data`` (``data_layout`` "NCHW" with an OIHW
    ``kernel``, "NHWC" or "HWCN" with an HWIO one) by ``kernel``: constant sizes, the
    padding resolved against the dilated kernel as ``conv2d`` pads, strides and dilations as
    (h, w). TVM's ``topi.nn.conv2d._get_workload``; x86's ``_fallback_schedule`` reads it."""
    if data_layout not in _WORKLOAD_LAYOUTS:
        raise TepadError(f"conv2d _get_workload: data_layout {data_layout!r} is not "
                         f"supported; use one of {sorted(_WORKLOAD_LAYOUTS)}")
    _check("conv2d _get_workload", data, kernel)
    (dc, dh, dw), (ko, ki, kh, kw) = _WORKLOAD_LAYOUTS[data_layout]
    ds = const_extents(data.shape, "conv2d _get_workload", [f"{data.name} axis {i}"
                                                            for i in range(4)])
    ks = const_extents(kernel.shape, "conv2d _get_workload", [f"{kernel.name} axis {i}"
                                                              for i in range(4)])
    ci, ih, iw = ds[dc], ds[dh], ds[dw]
    co, cig, KH, KW = ks[ko], ks[ki], ks[kh], ks[kw]
    if ci % cig:
        raise TepadError(f"conv2d _get_workload: {data.name} has {ci} channels, not a "
                         f"multiple of the {cig} input channels of {kernel.name}")
    if data.dtype != kernel.dtype and not (data.dtype == "uint8" and kernel.dtype == "int8"):
        raise TepadError(f"conv2d _get_workload: {data.name} is {data.dtype} but "
                         f"{kernel.name} is {kernel.dtype}; they must agree (or uint8 data "
                         "with an int8 kernel)")
    (sh, sw), (dlh, dlw), (pt, pl, pb, pr), _, _ = _geometry(
        "conv2d _get_workload", stride, padding, dilation, KH, KW, ih, iw)
    return Workload(data.dtype, out_dtype, ih, iw, ci, ci // cig, co, KH, KW, pt, pl, pb, pr,
                    dlh, dlw, sh, sw)


def _check(name, data, kernel, ndim=4):
    for t, what in ((data, "Input"), (kernel, "Filter")):
        if not isinstance(t, Tensor) or len(t.shape) != ndim:
            raise TepadError(f"{name}: {what} must be a {ndim}-d te.Tensor, got {t!r}")


def _channels_match(name, data, c, kernel, ci, what="input channels"):
    """The data's channels ``c`` and the filter's ``ci`` agree when both are constants."""
    if isinstance(c, IntImm) and isinstance(ci, IntImm) and c.value != ci.value:
        raise TepadError(f"{name}: {data.name} has {c.value} channels but {kernel.name} "
                         f"expects {ci.value} {what}")


def _geometry(name, stride, padding, dilation, kh, kw, h, w):
    sh, sw = ints(stride, 2, f"{name}: stride")
    dh, dw = ints(dilation, 2, f"{name}: dilation")
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    pt, pl, pb, pr = get_pad_tuple(padding, (ekh, ekw))
    oh = (h + pt + pb - ekh) // sh + 1
    ow = (w + pl + pr - ekw) // sw + 1
    if oh <= 0 or ow <= 0:
        raise TepadError(f"{name}: a {kh}x{kw} kernel (dilation {dh}x{dw}) does not fit the "
                         f"{h}x{w} input padded by {(pt, pl, pb, pr)}")
    return (sh, sw), (dh, dw), (pt, pl, pb, pr), oh, ow


def _padded(data, hx, wx, pads, name):
    pt, pl, pb, pr = pads
    if not (pt or pl or pb or pr):
        return data
    before, after = [0] * len(data.shape), [0] * len(data.shape)
    before[hx], before[wx], after[hx], after[wx] = pt, pl, pb, pr
    return pad(data, before, after, 0.0, name=name)


def conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation, out_dtype=None):
    """2-D convolution of NCHW ``Input`` with an OIHW ``Filter``: stage ``conv2d_nchw``
    (tag ``conv2d_nchw``), shape (N, O, out_h, out_w). ``stride`` / ``dilation``: an int or
    (h, w); ``padding``: an int, (h, w), (top, left, bottom, right), "SAME" or "VALID"."""
    _check("conv2d_nchw", Input, Filter)
    out_dtype = out_dtype or Input.dtype
    n, c, h, w = Input.shape
    o, ci, kh, kw = Filter.shape
    _channels_match("conv2d_nchw", Input, c, Filter, ci)
    H, W, KH, KW = const_extents((h, w, kh, kw), "conv2d_nchw", ("H", "W", "KH", "KW"))
    (sh, sw), (dh, dw), pads, oh, ow = _geometry("conv2d_nchw", stride, padding, dilation,
                                                 KH, KW, H, W)
    src = _padded(Input, 2, 3, pads, "pad_temp")
    rc = reduce_axis((0, ci), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (n, o, oh, ow),
        lambda nn, ff, yy, xx: te_op.sum(
            src[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw].astype(out_dtype) *
            Filter[ff, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        name="conv2d_nchw", tag="conv2d_nchw")


def conv2d_nhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation, out_dtype=None,
                kernel_layout="HWIO"):
    """2-D convolution of NHWC ``Input`` with an HWIO (or, by ``kernel_layout``, OHWI)
    ``Filter``: stage ``Conv2dOutput`` (tag ``conv2d_nhwc``), shape (N, out_h, out_w, O)."""
    _check("conv2d_nhwc", Input, Filter)
    if kernel_layout not in ("HWIO", "OHWI"):
        raise TepadError(f"conv2d_nhwc: kernel_layout {kernel_layout!r} is not supported; "
                         "use 'HWIO' or 'OHWI'")
    out_dtype = out_dtype or Input.dtype
    n, h, w, c = Input.shape
    if kernel_layout == "HWIO":
        kh, kw, ci, o = Filter.shape
    else:
        o, kh, kw, ci = Filter.shape
    _channels_match("conv2d_nhwc", Input, c, Filter, ci)
    H, W, KH, KW = const_extents((h, w, kh, kw), "conv2d_nhwc", ("H", "W", "KH", "KW"))
    (sh, sw), (dh, dw), pads, oh, ow = _geometry("conv2d_nhwc", stride, padding, dilation,
                                                 KH, KW, H, W)
    src = _padded(Input, 1, 2, pads, "PaddedInput")
    rc = reduce_axis((0, ci), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (n, oh, ow, o),
        lambda nn, yy, xx, ff: te_op.sum(
            src[nn, yy * sh + ry * dh, xx * sw + rx * dw, rc].astype(out_dtype) *
            (Filter[ry, rx, rc, ff] if kernel_layout == "HWIO" else
             Filter[ff, ry, rx, rc]).astype(out_dtype), axis=[ry, rx, rc]),
        name="Conv2dOutput", tag="conv2d_nhwc")


def conv2d_hwcn(Input: Tensor, Filter: Tensor, stride, padding, dilation, out_dtype=None):
    """2-D convolution of HWCN ``Input`` with an HWIO ``Filter``: stage ``Conv2dOutput``
    (tag ``conv2d_hwcn``), shape (out_h, out_w, O, N)."""
    _check("conv2d_hwcn", Input, Filter)
    out_dtype = out_dtype or Input.dtype
    h, w, c, n = Input.shape
    kh, kw, ci, o = Filter.shape
    _channels_match("conv2d_hwcn", Input, c, Filter, ci)
    H, W, KH, KW = const_extents((h, w, kh, kw), "conv2d_hwcn", ("H", "W", "KH", "KW"))
    (sh, sw), (dh, dw), pads, oh, ow = _geometry("conv2d_hwcn", stride, padding, dilation,
                                                 KH, KW, H, W)
    src = _padded(Input, 0, 1, pads, "PaddedInput")
    rc = reduce_axis((0, ci), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (oh, ow, o, n),
        lambda yy, xx, ff, nn: te_op.sum(
            src[yy * sh + ry * dh, xx * sw + rx * dw, rc, nn].astype(out_dtype) *
            Filter[ry, rx, rc, ff].astype(out_dtype), axis=[ry, rx, rc]),
        name="Conv2dOutput", tag="conv2d_hwcn")


def conv2d(input, filter, strides, padding, dilation, data_layout="NCHW", kernel_layout="",
           out_dtype=None, layout=None):
    """TVM's generic 2-D convolution: ``data_layout`` "NCHW" (OIHW filter), "NHWC" (HWIO)
    or "HWCN" (HWIO); ``kernel_layout`` may name the filter layout the data layout implies
    (NHWC data also takes an "OHWI" filter). ``layout=`` is TVM 0.6's keyword for
    ``data_layout``."""
    if layout is not None:
        data_layout = layout
    impl = {"NCHW": (conv2d_nchw, ("OIHW",)), "NHWC": (conv2d_nhwc, ("HWIO", "OHWI")),
            "HWCN": (conv2d_hwcn, ("HWIO",))}
    if data_layout not in impl:
        raise TepadError(f"conv2d: data_layout {data_layout!r} is not supported; use "
                         "'NCHW', 'NHWC' or 'HWCN'")
    fn, klayouts = impl[data_layout]
    if kernel_layout and kernel_layout not in klayouts:
        raise TepadError(f"conv2d: data_layout {data_layout!r} takes a "
                         f"{' or '.join(klayouts)} filter, got kernel_layout {kernel_layout!r}")
    if fn is conv2d_nhwc and kernel_layout:
        return fn(input, filter, strides, padding, dilation, out_dtype=out_dtype,
                  kernel_layout=kernel_layout)
    return fn(input, filter, strides, padding, dilation, out_dtype=out_dtype)


__all__ = ["conv2d", "conv2d_nchw", "conv2d_nhwc", "conv2d_hwcn", "Workload"]
