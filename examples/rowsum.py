"""Row sums ``B[i] = sum_j A[i, j]`` of a tall, narrow (16384, 14) fp32 matrix.

Rows are split into blocks of 2048 that run in parallel; each row's 14 contiguous floats are
summed by an unrolled reduction loop (LLVM turns it into a few vector loads and adds). This
reads the matrix once, at memory bandwidth; vectorizing across rows instead would gather with
a stride of 14 floats.
"""
from tepad import te

SHAPE = (256, 14)    # small default size; the benchmark uses (16384, 14)


def schedule(rows=SHAPE[0], cols=SHAPE[1], block=2048):
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    io, ii = s[B].split(B.op.axis[0], factor=min(block, rows))
    s[B].parallel(io)
    s[B].unroll(j)
    return s, [A, B]


def inputs(rows=SHAPE[0], cols=SHAPE[1], **_):
    import numpy as np
    return [np.random.default_rng(0).random((rows, cols), dtype="float32")]
