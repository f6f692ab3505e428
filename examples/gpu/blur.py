"""W3 on a GPU: two-stage 3x3 box blur; ``Bx`` staged through shared memory per block.

Each block computes a 32 x 64 tile of ``By`` with 8 x 64 threads (4 rows a thread). The rows
of ``Bx`` that tile needs (34 x 64) are computed cooperatively into shared memory first, then
every thread reads its column of three ``Bx`` rows from there. Input ``A`` is (n, n); output
``By`` is (n - 2, n - 2).
"""
from tepad import te

N = 130          # small default size; the GPU benchmark uses 8192
FULL = {"n": 8192}
THIRD = 1.0 / 3.0


def schedule(n=N, ty=32, tx=64, rows_per_thread=4):
    A = te.placeholder((n, n), "float32", name="A")
    Bx = te.compute((n, n - 2), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) * THIRD,
                    name="Bx")
    By = te.compute((n - 2, n - 2), lambda y, x: (Bx[y, x] + Bx[y + 1, x] + Bx[y + 2, x]) * THIRD,
                    name="By")
    s = te.create_schedule(By.op)
    s[Bx].set_scope("shared")
    yo, xo, yi, xi = s[By].tile(By.op.axis[0], By.op.axis[1], ty, tx)
    yt, yr = s[By].split(yi, factor=rows_per_thread)
    s[By].reorder(yo, xo, yt, xi, yr)
    s[By].bind(yo, te.thread_axis("blockIdx.y"))
    s[By].bind(xo, te.thread_axis("blockIdx.x"))
    thread_y = te.thread_axis((0, ty // rows_per_thread), "threadIdx.y")
    thread_x = te.thread_axis((0, tx), "threadIdx.x")
    s[By].bind(yt, thread_y)
    s[By].bind(xi, thread_x)
    s[Bx].compute_at(s[By], xo)
    by, bxx = s[Bx].op.axis
    byo, byi = s[Bx].split(by, nparts=ty // rows_per_thread)
    _, bxi = s[Bx].split(bxx, factor=tx)    # a bound axis starts at 0: split off the offset
    s[Bx].reorder(byo, bxi, byi)
    s[Bx].bind(byo, thread_y)
    s[Bx].bind(bxi, thread_x)
    return s, [A, By]


def inputs(n=N, **_):
    import numpy as np
    return [np.random.default_rng(0).random((n, n), dtype="float32")]


def reference(a):
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * THIRD
    return (bx[:-2] + bx[1:-1] + bx[2:]) * THIRD


def bytes_moved(n=N, **_):
    return 4 * (n * n + (n - 2) * (n - 2))
