"""Two chained 3x3 max-pools with a rolling buffer (TVM's rolling_buffer, apache/tvm #13033).

``C`` (8 x 8) is tiled 4 x 4; the first pool ``B`` is computed per tile of ``C`` (a 6 x 6
window, overlapping its neighbours by 2 rows and 2 columns). ``rolling_buffer()`` folds ``B``
along the outermost tile loop whose consecutive iterations overlap: ``B`` becomes a ``[6, 10]``
circular buffer indexed ``% 6``, and the producer skips the rows and columns the previous tile
already computed (``i.outer < 1 or i >= 2``).
"""
from tepad import te

SIZE, TILE = 12, 4


def maxpool(X, name, k=3):
    r0 = te.reduce_axis((0, k), name + "_r0")
    r1 = te.reduce_axis((0, k), name + "_r1")
    h, w = (int(d) - k + 1 for d in X.shape)
    return te.compute((h, w), lambda i, j: te.max(X[i + r0, j + r1], axis=[r0, r1]), name=name)


def maxpool_nhwc(X, name):
    """3x3 max-pool of an NHWC tensor (the benchmark's W6 stage)."""
    r0 = te.reduce_axis((0, 3), name + "_ry")
    r1 = te.reduce_axis((0, 3), name + "_rx")
    n, h, w, c = (int(x) for x in X.shape)
    return te.compute((n, h - 2, w - 2, c),
                      lambda b, y, x, ch: te.max(X[b, y + r0, x + r1, ch], axis=[r0, r1]),
                      name=name)


def vectorize_fused(stage, x, c, reduce_axes, extent, most=32):
    """fuse(x, c), split by the widest power of two <= ``most`` dividing ``extent`` (no
    partial vector), the reduction inside, the lanes vectorized."""
    lanes = most
    while lanes > 1 and extent % lanes:
        lanes //= 2
    xc = stage.fuse(x, c)
    xo, xi = stage.split(xc, factor=lanes)
    stage.reorder(xo, *reduce_axes, xi)
    stage.vectorize(xi)


def schedule(size=SIZE, tile=TILE):
    A = te.placeholder((size, size), "int8", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    yo, xo, yi, xi = s[C].tile(C.op.axis[0], C.op.axis[1], tile, tile)
    s[B].compute_at(s[C], xo)
    s[B].rolling_buffer()
    return s, [A, C]


def without_rolling(size=SIZE, tile=TILE):
    """The same schedule without rolling_buffer (to compare with ``tepad lower``)."""
    A = te.placeholder((size, size), "int8", name="A")
    B = maxpool(A, "B")
    C = maxpool(B, "C")
    s = te.create_schedule(C.op)
    yo, xo, yi, xi = s[C].tile(C.op.axis[0], C.op.axis[1], tile, tile)
    s[B].compute_at(s[C], xo)
    return s, [A, C]


def inputs(size=SIZE, **_):
    import numpy as np
    return [np.random.default_rng(0).integers(-128, 128, (size, size)).astype("int8")]
