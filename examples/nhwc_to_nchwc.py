"""RFC 0039's NHWC -> NCHWc layout with an axis separator (the "global.texture" layout).

``B`` is computed in NHWC logical axes (``B = relu(A) * 2``) and stored as
``[n, c // 4, h, AXIS_SEPARATOR, w, c % 4]``: 5 physical axes, flattened into a 2-d buffer
(``n * C/4 * h``, ``w * 4``). The loops over ``B`` follow the new layout; the innermost
``c % 4`` loop is vectorized. ``B`` is passed in the physical shape ``(1, C/4, H, W, 4)`` (or
the grouped 2-d shape).
"""
from tepad import te, tir

SHAPE = (1, 6, 5, 8)    # n, h, w, c


def layout(n, h, w, c):
    return [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]


def schedule(shape=SHAPE):
    A = te.placeholder(shape, "float32", name="A")
    B = te.compute(shape, lambda n, h, w, c: tir.max(A[n, h, w, c], tir.const(0.0, "float32"))
                   * 2.0, name="B")
    s = te.create_schedule(B.op)
    ax = s[B].transform_layout(layout)
    s[B].vectorize(ax[-1])
    return s, [A, B]
