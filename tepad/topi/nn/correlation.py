"""``topi.nn.correlation_nchw``: FlowNet's correlation layer. Each output channel ``q`` is a
displacement ``(dy, dx)`` of a (2r+1) x (2r+1) grid (``r = max_displacement // stride2``,
steps of ``stride2``); the value at (i, j) compares the ``kernel_size`` x ``kernel_size``
patch of ``data1`` at ``(i, j) * stride1 + max_displacement`` with the displaced patch of
``data2`` (product or absolute difference), summed over channels and patch, divided by
``kernel_size^2 * channels``."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const, floordiv, floormod
from ..utils import get_const_tuple
from .pad import pad
from .utils import get_pad_tuple


def correlation_nchw(data1: Tensor, data2: Tensor, kernel_size, max_displacement, stride1,
                     stride2, padding, is_multiply):
    """Stage ``correlation_nchw`` (the sums) and the division stage; output (N, (2r+1)^2,
    ceil((H + pads - 2 * border) / stride1), likewise for W) with ``border =
    max_displacement + (kernel_size - 1) // 2``. ``padding``: an int, (h, w) or (top, left,
    bottom, right)."""
    name = "correlation_nchw"
    for t in (data1, data2):
        if not isinstance(t, Tensor) or len(t.shape) != 4:
            raise TepadError(f"{name}: data1 and data2 must be 4-d te.Tensors, got {t!r}")
    shape = get_const_tuple(data1.shape)
    if get_const_tuple(data2.shape) != shape:
        raise TepadError(f"{name}: data1 {shape} and data2 {get_const_tuple(data2.shape)} "
                         "must have the same shape")
    k, md, s1, s2 = (int(v) for v in (kernel_size, max_displacement, stride1, stride2))
    if k <= 0 or k % 2 == 0:
        raise TepadError(f"{name}: kernel_size must be a positive odd number, got {k}")
    if s1 < 1 or s2 < 1 or md < 0:
        raise TepadError(f"{name}: strides must be >= 1 and max_displacement >= 0, got "
                         f"{s1}, {s2}, {md}")
    if isinstance(padding, str):
        raise TepadError(f"{name}: padding must be an int, 2 or 4 ints, got {padding!r}")
    pt, pl, pb, pr = get_pad_tuple(padding, (1, 1))
    n, c, h, w = shape
    border = md + (k - 1) // 2
    rad = md // s2
    size = 2 * rad + 1
    oh = (h + pt + pb - 2 * border + s1 - 1) // s1
    ow = (w + pl + pr - 2 * border + s1 - 1) // s1
    if oh <= 0 or ow <= 0:
        raise TepadError(f"{name}: the border {border} leaves no output of the {h}x{w} input "
                         f"padded by {(pt, pl, pb, pr)}")
    p1 = pad(data1, [0, 0, pt, pl], [0, 0, pb, pr], 0.0, name="pad_data1")
    p2 = pad(data2, [0, 0, pt, pl], [0, 0, pb, pr], 0.0, name="pad_data2")
    rc = reduce_axis((0, c), name="rc")
    ry = reduce_axis((0, k), name="ry")
    rx = reduce_axis((0, k), name="rx")

    def body(b, q, i, j):
        y1, x1 = i * s1 + md, j * s1 + md
        y2 = y1 + (floordiv(q, size) - rad) * s2
        x2 = x1 + (floormod(q, size) - rad) * s2
        a, bb = p1[b, rc, y1 + ry, x1 + rx], p2[b, rc, y2 + ry, x2 + rx]
        return te_op.sum(a * bb if is_multiply else tirop.abs(a - bb), axis=[rc, ry, rx])

    corr = compute((n, size * size, oh, ow), body, name=name, tag=name)
    scale = float(k * k * c)
    return compute(corr.shape, lambda *i: corr[i] / const(scale, corr.dtype),
                   name="T_divide", tag="elemwise")


__all__ = ["correlation_nchw"]
