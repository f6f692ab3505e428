"""conv2d NCHW, stride 1, padding 1 (fp32): 1x64x56x56 input, 64 filters 3x3 by default.

Schedule (Halide's x-vectorized conv, the fastest peer schedule on this machine kind):

* the zero-padding stage ``Xp`` is computed once at the root, in parallel over channels (a
  58x58 plane per channel; no bounds test in the hot loop);
* output tiles are (4 output channels) x (one row of W pixels); ``fuse(k.outer, y)`` gives
  K/4 * H independent tiles that run in parallel;
* each tile accumulates in a cache_write stage (4 x W floats) with the reduction (rc, ry, rx)
  outside and (4 channels unrolled) x (the row vectorized) inside: 4 x ceil(W/16) zmm
  accumulators, one unaligned row load per (rc, ry, rx) shared by the 4 channels.
"""
from tepad import te, tir

SHAPE = dict(c=8, k=8, h=10, w=12)   # small default size; the benchmark uses 64, 64, 56, 56
KB = 4                               # output channels per register tile


def schedule(c=SHAPE["c"], k=SHAPE["k"], h=SHAPE["h"], w=SHAPE["w"], kb=KB):
    X = te.placeholder((1, c, h, w), "float32", name="X")
    Wt = te.placeholder((k, c, 3, 3), "float32", name="W")
    Xp = te.compute((1, c, h + 2, w + 2),
                    lambda n, ci, y, x: tir.if_then_else(
                        tir.all(y >= 1, y <= h, x >= 1, x <= w), X[n, ci, y - 1, x - 1],
                        tir.const(0.0, "float32")), name="Xp")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    Y = te.compute((1, k, h, w),
                   lambda n, f, y, x: te.sum(Xp[n, rc, y + ry, x + rx] * Wt[f, rc, ry, rx],
                                             axis=[rc, ry, rx]), name="Y")
    s = te.create_schedule(Y.op)
    YC = s.cache_write(Y, "global")
    n, f, y, x = Y.op.axis
    fo, fi = s[Y].split(f, factor=kb)
    s[Y].reorder(n, fo, y, fi, x)
    t = s[Y].fuse(fo, y)
    s[Y].parallel(t)
    s[Y].vectorize(x)
    s[YC].compute_at(s[Y], t)
    nc, fc, yc, xc = s[YC].op.axis
    rc_, ry_, rx_ = s[YC].op.reduce_axis
    s[YC].reorder(nc, yc, rc_, ry_, rx_, fc, xc)
    s[YC].unroll(rx_)
    s[YC].unroll(fc)
    s[YC].vectorize(xc)
    s[Xp].parallel(s[Xp].op.axis[1])
    s[Xp].vectorize(s[Xp].op.axis[3])
    return s, [X, Wt, Y]


def inputs(c=SHAPE["c"], k=SHAPE["k"], h=SHAPE["h"], w=SHAPE["w"], **_):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.random((1, c, h, w), dtype="float32") - 0.5,
            rng.random((k, c, 3, 3), dtype="float32") - 0.5]
