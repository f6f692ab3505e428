"""Fused elementwise ``max(A * B + 1, 0)`` (fp32): one pass over memory.

Rows are split into strips of 16 that run in parallel; the row is vectorized (the vectorizer
emits 64-lane bodies that LLVM lowers to four zmm operations). Memory bound: three streams
(A, B read; C written).
"""
from tepad import te, tir

N = 256          # small default size; the benchmark uses 4096


def schedule(n=N, m=None, strip=16):
    m = n if m is None else m
    A = te.placeholder((n, m), "float32", name="A")
    B = te.placeholder((n, m), "float32", name="B")
    C = te.compute((n, m), lambda i, j: tir.max(A[i, j] * B[i, j] + 1.0, 0.0), name="C")
    s = te.create_schedule(C.op)
    i, j = C.op.axis
    io, ii = s[C].split(i, factor=strip)
    s[C].parallel(io)
    s[C].vectorize(j)
    return s, [A, B, C]


def inputs(n=N, m=None, **_):
    import numpy as np
    m = n if m is None else m
    rng = np.random.default_rng(0)
    return [rng.random((n, m), dtype="float32") - 0.5, rng.random((n, m), dtype="float32")]
