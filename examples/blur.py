"""Two-stage 3x3 box blur (Halide's classic): ``Bx`` (horizontal) computed at ``By``'s tile.

``By`` is tiled 32 rows x 256 columns; tiles of rows run in parallel; ``Bx`` is computed for
each tile (34 x 256 floats = 34 KiB, stays in L1/L2) right where ``By`` needs it, so the full
intermediate never touches memory. Both stages are vectorized along the row.
Input ``A`` is (n, n); output ``By`` is (n - 2, n - 2) (valid region, as in the peers).
"""
from tepad import te

N = 130          # small default size; the benchmark uses 4096
THIRD = 1.0 / 3.0


def schedule(n=N, ty=32, tx=256):
    A = te.placeholder((n, n), "float32", name="A")
    Bx = te.compute((n, n - 2), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) * THIRD,
                    name="Bx")
    By = te.compute((n - 2, n - 2), lambda y, x: (Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x]) * THIRD,
                    name="By")
    s = te.create_schedule(By.op)
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], ty, tx)
    s[By].parallel(yo)
    s[By].vectorize(xi)
    s[Bx].compute_at(s[By], xo)
    s[Bx].vectorize(s[Bx].op.axis[1])
    return s, [A, By]


def inputs(n=N, **_):
    import numpy as np
    return [np.random.default_rng(0).random((n, n), dtype="float32")]
