"""``topi.nn.pool_grad``: the gradient of 2-d max / average pooling with respect to its
input, as TVM defines it. Each input cell sums, over the pooling windows that cover it, the
window's output gradient: all of it for max pooling when the cell is the window's first
maximum (an ``argmax`` stage over the padded input picks it), a share
``1 / window count`` for average pooling."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, reduce_axis
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import const, floordiv, select
from .pad import pad
from .pooling import _spatial
from .utils import const_extents, ints


def _argmax_window(data, hx, wx, kh, kw, sh, sw, out_h, out_w, before, after):
    """Per output window, the row-major position (``dh * kw + dw``) of its first maximum,
    over the input padded with the dtype's minimum."""
    pb, pa = [0] * len(data.shape), [0] * len(data.shape)
    pb[hx], pb[wx], pa[hx], pa[wx] = before[0], before[1], after[0], after[1]
    padded = pad(data, pb, pa, pad_value=tirop.min_value(data.dtype), name="pad_temp")

    def combine(x, y):
        take_y = (y[1] > x[1]) | ((y[1] == x[1]) & (y[0] < x[0]))
        return (select(take_y, y[0], x[0]), select(take_y, y[1], x[1]))
    reducer = te_op.comm_reducer(combine, lambda t0, t1: (const(-1, t0), tirop.min_value(t1)),
                                 name="argmax")
    rh, rw = reduce_axis((0, kh), name="rh"), reduce_axis((0, kw), name="rw")
    shape = list(data.shape)
    shape[hx], shape[wx] = out_h, out_w

    def body(*i):
        src = list(i)
        src[hx], src[wx] = i[hx] * sh + rh, i[wx] * sw + rw
        return reducer((rh.var * kw + rw.var, padded[tuple(src)]), axis=[rh, rw])
    pair = compute(tuple(shape), body, name="maxpool_grad_argmax", tag="comm_reduce_idx")
    return pair[0]


def pool_grad(grads: Tensor, data: Tensor, kernel, stride, padding, pool_type,
              ceil_mode=False, count_include_pad=True, layout="NCHW") -> Tensor:
    """The gradient of ``pool2d(data, kernel, stride, (1, 1), padding, pool_type, ceil_mode,
    layout, count_include_pad)`` given ``grads``, the gradient of its output; the result
    has ``data``'s shape. Average pooling divides by the window's cells inside the padded
    input (``count_include_pad``) or inside ``data`` itself."""
    if not isinstance(grads, Tensor) or not isinstance(data, Tensor):
        raise TepadError(f"pool_grad: grads and data must be te.Tensors, got {grads!r}, "
                         f"{data!r}")
    if pool_type not in ("max", "avg"):
        raise TepadError(f"pool_grad: pool_type must be 'max' or 'avg', got {pool_type!r}")
    hx, wx = _spatial(layout, data, "pool_grad", ("H", "W"))
    kh, kw = ints(kernel, 2, "pool_grad: kernel")
    sh, sw = ints(stride, 2, "pool_grad: stride")
    pt, pl, pbm, pr = ints(padding, 4, "pool_grad: padding")
    ih, iw = const_extents([data.shape[hx], data.shape[wx]], "pool_grad", ("H", "W"))
    oh, ow = const_extents([grads.shape[hx], grads.shape[wx]], "pool_grad", ("H", "W"))
    ph, pw = ih + pt + pbm, iw + pl + pr            # extents of the padded input
    if pool_type == "max":
        # windows may hang past the padding in ceil mode: pad far enough for all of them
        extra_h = max(0, (oh - 1) * sh + kh - ph)
        extra_w = max(0, (ow - 1) * sw + kw - pw)
        arg = _argmax_window(data, hx, wx, kh, kw, sh, sw, oh, ow, (pt, pl),
                             (pbm + extra_h, pr + extra_w))
    rh = reduce_axis((0, (kh + sh - 1) // sh), name="rh")
    rw = reduce_axis((0, (kw + sw - 1) // sw), name="rw")
    dtype = grads.dtype

    def count(i, j):
        if count_include_pad:
            h = tirop.min(i * sh + kh, ph) - i * sh
            w = tirop.min(j * sw + kw, pw) - j * sw
        else:
            h = tirop.min(i * sh + kh, pt + ih) - tirop.max(i * sh, pt)
            w = tirop.min(j * sw + kw, pl + iw) - tirop.max(j * sw, pl)
        return tirop.max(tirop.max(h, 0) * tirop.max(w, 0), 1)

    def body(*idx):
        y, x = idx[hx] + pt, idx[wx] + pl          # position in the padded input
        i, j = floordiv(y, sh) - rh, floordiv(x, sw) - rw
        dh, dw = y - i * sh, x - j * sw
        covers = tirop.all(i >= 0, i < oh, j >= 0, j < ow, dh < kh, dw < kw)
        si = tirop.min(tirop.max(i, 0), oh - 1)
        sj = tirop.min(tirop.max(j, 0), ow - 1)
        at = list(idx)
        at[hx], at[wx] = si, sj
        g = grads[tuple(at)]
        if pool_type == "max":
            share = tirop.if_then_else(arg[tuple(at)] == dh * kw + dw, g, const(0, dtype))
        else:
            share = g / count(si, sj).astype(dtype)
        return te_op.sum(tirop.if_then_else(covers, share, const(0, dtype)), axis=[rh, rw])
    return compute(data.shape, body, name="T_pool_grad", tag="pool_grad")


__all__ = ["pool_grad"]
