"""Row sums ``B[i] = sum_j A[i, j]`` of a tall, narrow (16384, 14) fp32 matrix.

Rows are split into blocks of 2048 that run in parallel. Each row is summed in two steps
(``rfactor``): its two halves are added as vectors (``BF[ji, i] = A[i, ji] + A[i, 7 + ji]``,
two 7-lane loads and one vector add), then the 7 lanes of ``BF`` are added up (unrolled) --
half the dependent adds of a row summed element by element, and a third of its loads. On the
Zen 5 host (one thread) this takes 21.4 us against 29.2 us for the row summed by one unrolled
scalar loop, with AVX-512 and with AVX2 code alike (`python benchmarks/bench_plain.py`).
Vectorizing across rows instead would gather with a stride of 14 floats.
"""
from tepad import te

SHAPE = (256, 14)    # small default size; the benchmark uses (16384, 14)


def schedule(rows=SHAPE[0], cols=SHAPE[1], block=2048, halves=True):
    """The schedule above; ``halves=False`` sums each row by one unrolled loop (the plain
    reduction). ``block`` and ``halves`` are the knobs of ``examples/tune_templates.py``'s
    W5 template."""
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    if halves and cols >= 2:
        _, ji = s[B].split(j, factor=(cols + 1) // 2)
        BF = s.rfactor(B, ji)
    io, ii = s[B].split(s[B].op.axis[0], factor=min(block, rows))
    s[B].parallel(io)
    s[B].unroll(s[B].op.reduce_axis[0])
    if halves and cols >= 2:
        s[BF].compute_at(s[B], ii)
        lanes, (half,) = s[BF].op.axis[0], s[BF].op.reduce_axis
        s[BF].reorder(half, lanes)
        s[BF].unroll(half)
        s[BF].vectorize(lanes)
    return s, [A, B]


def inputs(rows=SHAPE[0], cols=SHAPE[1], **_):
    import numpy as np
    return [np.random.default_rng(0).random((rows, cols), dtype="float32")]
