"""Neural-network operators (TVM's ``topi.nn``): pad, pool2d, relu, conv2d_nchw, dense,
softmax. Each is ordinary ``te.compute`` stages named as TVM names them (a padded input is a
``pad_temp`` stage, a pooling result a ``tensor`` stage), so TVM schedules written against
those stages apply unchanged."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir import op as tirop
from ..tir.expr import IntImm, PrimExpr, const


def _ints(v, n, what):
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) != n or not all(isinstance(x, int) for x in v):
        raise TepadError(f"{what} must be an int or {n} ints, got {v!r}")
    return v


def pad(data: Tensor, pad_before, pad_after=None, pad_value=0.0, name="PadInput") -> Tensor:
    """``data`` with ``pad_before[k]`` / ``pad_after[k]`` elements of ``pad_value`` added on
    each side of axis k (``pad_after`` defaults to ``pad_before``)."""
    n = len(data.shape)
    before = _ints(pad_before, n, "pad: pad_before")
    after = _ints(pad_after if pad_after is not None else pad_before, n, "pad: pad_after")
    shape = [s + b + a for s, b, a in zip(data.shape, before, after)]
    fill = pad_value if isinstance(pad_value, PrimExpr) else const(pad_value, data.dtype)

    def body(*idx):
        conds, src = [], []
        for i, s, b in zip(idx, data.shape, before):
            if b:
                conds.append(i >= b)
            if b or not isinstance(s, IntImm):
                conds.append(i < s + b)
            src.append(i - b if b else i)
        if not conds:
            return data[tuple(src)]
        return tirop.if_then_else(tirop.all(*conds), data[tuple(src)], fill)
    return compute(tuple(shape), body, name=name, tag="injective,pad")


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


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise."""
    return compute(x.shape, lambda *i: tirop.max(x[i], const(0, x.dtype)), name="compute",
                   tag="elemwise")


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


def dense(data: Tensor, weight: Tensor, bias: Tensor | None = None, out_dtype=None):
    """``data @ weight.T`` (+ ``bias``): data (batch, in), weight (out, in)."""
    out_dtype = out_dtype or data.dtype
    batch, in_dim = data.shape
    out_dim = weight.shape[0]
    k = reduce_axis((0, in_dim), name="k")
    mat = compute((batch, out_dim), lambda i, j: te_op.sum(
        data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_matmul_NT", tag="dense")
    if bias is None:
        return mat
    return compute((batch, out_dim), lambda i, j: mat[i, j] + bias[j].astype(out_dtype),
                   name="T_add", tag="broadcast")


def softmax(x: Tensor, axis=-1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (four stages, as TVM's)."""
    n = len(x.shape)
    if not -n <= axis < n:
        raise TepadError(f"softmax: axis {axis} is out of range for {x.name} ({n} dims)")
    axis %= n
    reduced = [s for k, s in enumerate(x.shape) if k != axis]
    k1 = reduce_axis((0, x.shape[axis]), name="k1")
    k2 = reduce_axis((0, x.shape[axis]), name="k2")

    def at(idx, v):
        full = list(idx[:axis]) + [v] + list(idx[axis:])
        return tuple(full)

    maxelem = compute(tuple(reduced), lambda *i: te_op.max(x[at(i, k1)], axis=k1),
                      name="T_softmax_maxelem")
    ex = compute(x.shape, lambda *i: tirop.exp(x[i] - maxelem[i[:axis] + i[axis + 1:]]),
                 name="T_softmax_exp")
    expsum = compute(tuple(reduced), lambda *i: te_op.sum(ex[at(i, k2)], axis=k2),
                     name="T_softmax_expsum")
    return compute(x.shape, lambda *i: ex[i] / expsum[i[:axis] + i[axis + 1:]],
                   name="T_softmax_norm", tag="softmax_output")


__all__ = ["pad", "pool2d", "relu", "conv2d_nchw", "dense", "softmax"]
