"""Row sums ``B[i] = sum_j A[i, j]`` of a tall, narrow (16384, 14) fp32 matrix.

Rows are vectorized 16 at a time (each lane owns a row; the 14 columns are a short reduction
unrolled inside, so there is no horizontal add), and blocks of rows run in parallel.
"""
from tepad import te

SHAPE = (256, 14)    # small default size; the benchmark uses (16384, 14)


def schedule(rows=SHAPE[0], cols=SHAPE[1], lanes=16, block=1024):
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    (i,) = B.op.axis
    io, ii = s[B].split(i, factor=min(block, rows))
    iio, iii = s[B].split(ii, factor=lanes)
    s[B].reorder(io, iio, j, iii)
    s[B].unroll(j)
    s[B].vectorize(iii)
    s[B].parallel(io)
    return s, [A, B]


def inputs(rows=SHAPE[0], cols=SHAPE[1], **_):
    import numpy as np
    return [np.random.default_rng(0).random((rows, cols), dtype="float32")]
