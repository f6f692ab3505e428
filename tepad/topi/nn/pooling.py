"""``topi.nn.pooling.pool2d``: max/avg pooling over the H and W axes of NCHW/NHWC data
(a ``tensor`` stage reading a padded input)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import IntImm, const
from .pad import pad
from .utils import ints as _ints


def pool2d(data: Tensor, kernel, stride, dilation, padding, pool_type, ceil_mode=False,
           layout="NCHW", count_include_pad=True) -> Tensor:
    """2-D max or average pooling over the H and W axes of ``layout``.

    ``padding`` is (top, left, bottom, right); padded cells hold the reduction's identity for
    max and 0 for avg. ``ceil_mode`` rounds the output size up (the last window may hang
    over the bottom/right edge). Average pooling divides by the window size
    (``count_include_pad``) or by the number of real input cells in the window."""
    if pool_type not in ("max", "avg"):
        raise TepadError(f"pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    kh, kw = _ints(kernel, 2, "pool2d: kernel")
    sh, sw = _ints(stride, 2, "pool2d: stride")
    dh, dw = _ints(dilation, 2, "pool2d: dilation")
    pt, pl, pb, pr = _ints(padding, 4, "pool2d: padding")
    if len(layout) != len(data.shape):
        raise TepadError(f"pool2d: layout {layout!r} has {len(layout)} axes but {data.name} "
                         f"has {len(data.shape)} dimensions")
    hx, wx = layout.index("H"), layout.index("W")
    H, W = data.shape[hx], data.shape[wx]
    for s, nm in ((H, "H"), (W, "W")):
        if not isinstance(s, IntImm):
            raise TepadError(f"pool2d: {nm} of {data.name} must be a constant, got {s}")
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if ceil_mode:
        pb += sh - 1
        pr += sw - 1
    out_h = (H.value + pt + pb - ekh) // sh + 1
    out_w = (W.value + pl + pr - ekw) // sw + 1
    if out_h <= 0 or out_w <= 0:
        raise TepadError(f"pool2d: a {kh}x{kw} window does not fit {data.name}'s "
                         f"{H.value}x{W.value} (with padding {padding})")
    padded = data
    if pt or pl or pb or pr:
        before = [0] * len(data.shape)
        after = [0] * len(data.shape)
        before[hx], before[wx], after[hx], after[wx] = pt, pl, pb, pr
        fill = tirop.min_value(data.dtype) if pool_type == "max" else const(0, data.dtype)
        padded = pad(data, before, after, pad_value=fill, name="pad_temp")
    out_shape = list(data.shape)
    out_shape[hx], out_shape[wx] = out_h, out_w
    rh, rw = reduce_axis((0, kh), name="rv0"), reduce_axis((0, kw), name="rv1")

    def window(idx):
        src = list(idx)
        src[hx] = idx[hx] * sh + rh * dh
        src[wx] = idx[wx] * sw + rw * dw
        return padded[tuple(src)]

    if pool_type == "max":
        return compute(tuple(out_shape), lambda *idx: te_op.max(window(idx), axis=[rh, rw]),
                       name="tensor", tag="pool_max")
    total = compute(tuple(out_shape), lambda *idx: te_op.sum(window(idx), axis=[rh, rw]),
                    name="tensor", tag="pool_sum")

    def average(*idx):
        if count_include_pad:
            return total[idx] / const(kh * kw, data.dtype)
        h0, w0 = idx[hx] * sh - pt, idx[wx] * sw - pl
        hs = tirop.max(h0, 0)
        ws = tirop.max(w0, 0)
        he = tirop.min(h0 + ekh, H.value)
        we = tirop.min(w0 + ekw, W.value)
        count = ((he - hs + dh - 1) // dh) * ((we - ws + dw - 1) // dw)
        return total[idx] / tirop.max(count, 1).astype(data.dtype)
    return compute(tuple(out_shape), average, name="tensor", tag="elemwise")


__all__ = ["pool2d"]
