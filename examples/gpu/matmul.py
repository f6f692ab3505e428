"""W2 on a GPU: fp32 matrix product ``C = A @ B`` with shared- and register-tiling.

A block computes a 128 x 128 tile of ``C`` with 16 x 16 threads, 8 x 8 outputs a thread, held
in registers (``CL``, scope local). The k axis advances 8 at a time: the 128 x 8 panel of ``A``
and the 8 x 128 panel of ``B`` are copied into shared memory by all 256 threads together
(``AA``, ``BB``); for each of the 8 k steps a thread copies its 8 values of each panel into
registers (``AL``, ``BL``) and does 64 fused multiply-adds. Barriers between the copy and the
use are placed by lowering (thread_sync). The sizes must divide the tiles only for speed:
guards keep other sizes correct.
"""
from tepad import te

N = 256          # small default size; the GPU benchmark uses 4096
FULL = {"n": 4096}


def schedule(n=N, m=None, k=None, threads=16, per_thread=8, step=8):
    m = n if m is None else m
    k = n if k is None else k
    A = te.placeholder((n, k), "float32", name="A")
    B = te.placeholder((k, m), "float32", name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    AL = s.cache_read(AA, "local", [C])
    BL = s.cache_read(BB, "local", [C])
    CL = s.cache_write(C, "local")

    tile = threads * per_thread
    block_x, block_y = te.thread_axis("blockIdx.x"), te.thread_axis("blockIdx.y")
    thread_x = te.thread_axis((0, threads), "threadIdx.x")
    thread_y = te.thread_axis((0, threads), "threadIdx.y")

    by, yi = s[C].split(C.op.axis[0], factor=tile)
    bx, xi = s[C].split(C.op.axis[1], factor=tile)
    ty, yi = s[C].split(yi, nparts=threads)
    tx, xi = s[C].split(xi, nparts=threads)
    s[C].reorder(by, bx, ty, tx, yi, xi)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)

    s[CL].compute_at(s[C], tx)
    yc, xc = s[CL].op.axis
    ko, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=step)
    s[CL].reorder(ko, ki, yc, xc)
    s[CL].unroll(yc)
    s[CL].unroll(xc)

    for shared in (AA, BB):
        s[shared].compute_at(s[CL], ko)
        fused = s[shared].fuse(*s[shared].op.axis)
        _, inner = s[shared].split(fused, factor=threads * threads)
        fy, fx = s[shared].split(inner, nparts=threads)
        s[shared].bind(fy, thread_y)
        s[shared].bind(fx, thread_x)
    for local in (AL, BL):
        s[local].compute_at(s[CL], ki)
    return s, [A, B, C]


def inputs(n=N, m=None, k=None, **_):
    import numpy as np
    m = n if m is None else m
    k = n if k is None else k
    rng = np.random.default_rng(0)
    return [rng.random((n, k), dtype="float32") - 0.5, rng.random((k, m), dtype="float32") - 0.5]


def reference(a, b):
    return a @ b


def flops(n=N, m=None, k=None, **_):
    m = n if m is None else m
    k = n if k is None else k
    return 2.0 * n * m * k
