"""W1 on a GPU: fused elementwise ``max(A * B + 1, 0)`` (fp32), one pass over memory.

The two axes are fused into one; each thread handles 4 consecutive floats (a 128-bit vector
load and store), 256 threads a block, as many blocks as it takes. Memory bound: three streams.
"""
from tepad import te, tir

N = 256          # small default size; the GPU benchmark uses 8192
FULL = {"n": 8192}


def schedule(n=N, m=None, threads=256, vec=4):
    m = n if m is None else m
    A = te.placeholder((n, m), "float32", name="A")
    B = te.placeholder((n, m), "float32", name="B")
    C = te.compute((n, m), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    fused = s[C].fuse(*C.op.axis)
    xo, xi = s[C].split(fused, factor=vec)
    bx, tx = s[C].split(xo, factor=threads)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].vectorize(xi)
    return s, [A, B, C]


def inputs(n=N, m=None, **_):
    import numpy as np
    m = n if m is None else m
    rng = np.random.default_rng(0)
    return [rng.random((n, m), dtype="float32") - 0.5, rng.random((n, m), dtype="float32")]


def reference(a, b):
    import numpy as np
    return np.maximum(a * b + 1.0, 0.0)


def bytes_moved(n=N, m=None, **_):
    m = n if m is None else m
    return 3 * 4 * n * m
