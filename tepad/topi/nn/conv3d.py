"""``topi.nn.conv3d_ncdhw``: 3-D convolution of NCDHW data with an OIDHW filter (grouped
when ``groups`` > 1: output channel ``f`` reads input-channel group ``f // (O // groups)``).
Padding: see ``get_pad_tuple3d``; a padded input is its own ``pad_temp`` stage."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from .group_conv2d import _groups
from .pad import pad
from .utils import const_extents, get_pad_tuple3d, ints


def conv3d_ncdhw(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups=1,
                 out_dtype=None):
    """Stage ``conv3d_ncdhw`` (tag ``conv3d_ncdhw``), shape (N, O, out_d, out_h, out_w).
    ``stride`` / ``dilation``: an int or 3 ints; ``Filter`` (O, C // groups, KD, KH, KW)."""
    name = "conv3d_ncdhw"
    for t, what in ((Input, "Input"), (Filter, "Filter")):
        if not isinstance(t, Tensor) or len(t.shape) != 5:
            raise TepadError(f"{name}: {what} must be a 5-d te.Tensor, got {t!r}")
    out_dtype = out_dtype or Input.dtype
    n = Input.shape[0]
    C, D, H, W = const_extents(Input.shape[1:], name, ("C", "D", "H", "W"))
    O, CI, KD, KH, KW = const_extents(Filter.shape, name, ("O", "CI", "KD", "KH", "KW"))
    og = _groups(name, C, CI, O, groups)
    sd, sh, sw = ints(stride, 3, f"{name}: stride")
    dd, dh, dw = ints(dilation, 3, f"{name}: dilation")
    ek = [(KD - 1) * dd + 1, (KH - 1) * dh + 1, (KW - 1) * dw + 1]
    pads = get_pad_tuple3d(padding, ek)
    outs = [(x + pads[i] + pads[i + 3] - ek[i]) // s + 1
            for i, (x, s) in enumerate(((D, sd), (H, sh), (W, sw)))]
    if min(outs) <= 0:
        raise TepadError(f"{name}: a {KD}x{KH}x{KW} kernel (dilation {dd, dh, dw}) does not "
                         f"fit the {D}x{H}x{W} input padded by {pads}")
    src = Input
    if any(pads):
        src = pad(Input, [0, 0, *pads[:3]], [0, 0, *pads[3:]], 0.0, name="pad_temp")
    rc = reduce_axis((0, CI), name="rc")
    rz = reduce_axis((0, KD), name="rz")
    ry = reduce_axis((0, KH), name="ry")
    rx = reduce_axis((0, KW), name="rx")
    return compute(
        (n, O, *outs),
        lambda b, f, z, y, x: te_op.sum(
            src[b, (f // og) * CI + rc if groups > 1 else rc, z * sd + rz * dd,
                y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype) *
            Filter[f, rc, rz, ry, rx].astype(out_dtype), axis=[rc, rz, ry, rx]),
        name=name, tag=name)


def conv3d_ndhwc(Input: Tensor, Filter: Tensor, stride, padding, dilation, groups=1,
                 out_dtype="float32", auto_scheduler_rewritten_layout="",
                 meta_schedule_origin_shape=None):
    """3-D convolution of NDHWC ``Input`` with a DHWIO ``Filter`` (KD, KH, KW, C // groups,
    O): stage ``conv3d_ndhwc`` (tag ``conv3d_ndhwc``), shape (N, out_d, out_h, out_w, O).
    The auto-scheduler / meta-schedule layout arguments of TVM's signature are accepted and
    must be left empty."""
    name = "conv3d_ndhwc"
    for t, what in ((Input, "Input"), (Filter, "Filter")):
        if not isinstance(t, Tensor) or len(t.shape) != 5:
            raise TepadError(f"{name}: {what} must be a 5-d te.Tensor, got {t!r}")
    if auto_scheduler_rewritten_layout or meta_schedule_origin_shape:
        raise TepadError(f"{name}: rewritten layouts (auto_scheduler_rewritten_layout, "
                         "meta_schedule_origin_shape) are not supported; pass the DHWIO "
                         "filter as is")
    out_dtype = out_dtype or Input.dtype
    n = Input.shape[0]
    D, H, W, C = const_extents(Input.shape[1:], name, ("D", "H", "W", "C"))
    KD, KH, KW, CI, O = const_extents(Filter.shape, name, ("KD", "KH", "KW", "CI", "O"))
    og = _groups(name, C, CI, O, groups)
    sd, sh, sw = ints(stride, 3, f"{name}: stride")
    dd, dh, dw = ints(dilation, 3, f"{name}: dilation")
    ek = [(KD - 1) * dd + 1, (KH - 1) * dh + 1, (KW - 1) * dw + 1]
    pads = get_pad_tuple3d(padding, ek)
    outs = [(x + pads[i] + pads[i + 3] - ek[i]) // s + 1
            for i, (x, s) in enumerate(((D, sd), (H, sh), (W, sw)))]
    if min(outs) <= 0:
        raise TepadError(f"{name}: a {KD}x{KH}x{KW} kernel (dilation {dd, dh, dw}) does not "
                         f"fit the {D}x{H}x{W} input padded by {pads}")
    src = Input
    if any(pads):
        src = pad(Input, [0, *pads[:3], 0], [0, *pads[3:], 0], 0.0, name="PaddedInput")
    rc = reduce_axis((0, CI), name="rc")
    rz = reduce_axis((0, KD), name="rz")
    ry = reduce_axis((0, KH), name="ry")
    rx = reduce_axis((0, KW), name="rx")
    return compute(
        (n, *outs, O),
        lambda b, z, y, x, f: te_op.sum(
            src[b, z * sd + rz * dd, y * sh + ry * dh, x * sw + rx * dw,
                (f // og) * CI + rc if groups > 1 else rc].astype(out_dtype) *
            Filter[rz, ry, rx, rc, f].astype(out_dtype), axis=[rz, ry, rx, rc]),
        name=name, tag=name)


__all__ = ["conv3d_ncdhw", "conv3d_ndhwc"]
