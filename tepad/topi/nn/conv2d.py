"""``topi.nn.conv2d_nchw``: direct 2-D convolution."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir.expr import IntImm
from .pad import pad
from .utils import ints as _ints


def conv2d_nchw(Input: Tensor, Filter: Tensor, stride, padding, dilation, out_dtype=None):
    """2-D convolution, NCHW input, OIHW filter. ``padding``: an int, (h, w) or
    (top, left, bottom, right); ``stride``/``dilation``: an int or (h, w)."""
    out_dtype = out_dtype or Input.dtype
    sh, sw = _ints(stride, 2, "conv2d_nchw: stride")
    dh, dw = _ints(dilation, 2, "conv2d_nchw: dilation")
    p = [padding] * 4 if isinstance(padding, int) else list(padding)
    if len(p) == 2:
        p = [p[0], p[1], p[0], p[1]]
    pt, pl, pb, pr = _ints(p, 4, "conv2d_nchw: padding")
    n, c, h, w = Input.shape
    o, ci, kh, kw = Filter.shape
    for s in (h, w, kh, kw):
        if not isinstance(s, IntImm):
            raise TepadError("conv2d_nchw: spatial sizes must be constants")
    out_h = (h.value + pt + pb - ((kh.value - 1) * dh + 1)) // sh + 1
    out_w = (w.value + pl + pr - ((kw.value - 1) * dw + 1)) // sw + 1
    src = Input
    if pt or pl or pb or pr:
        src = pad(Input, [0, 0, pt, pl], [0, 0, pb, pr], 0.0, name="pad_temp")
    rc = reduce_axis((0, ci), name="rc")
    ry = reduce_axis((0, kh), name="ry")
    rx = reduce_axis((0, kw), name="rx")
    return compute(
        (n, o, out_h, out_w),
        lambda nn, ff, yy, xx: te_op.sum(
            src[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw].astype(out_dtype) *
            Filter[ff, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx]),
        name="conv2d_nchw", tag="conv2d_nchw")


__all__ = ["conv2d_nchw"]
