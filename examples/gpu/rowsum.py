"""W5 on a GPU: row sums ``B[i] = sum_j A[i, j]`` of a tall, narrow (rows, 14) fp32 matrix.

One thread a row: a row is only 14 floats, so a cross-thread reduction would leave most of a
warp idle. 256 threads a block; the 14-long reduction loop is unrolled. Consecutive threads
read rows 56 bytes apart, which the L1/L2 caches coalesce into full lines.
"""
from tepad import te

SHAPE = (1024, 14)   # small default size; the GPU benchmark uses (1048576, 14)
FULL = {"rows": 1048576, "cols": 14}


def schedule(rows=SHAPE[0], cols=SHAPE[1], threads=256):
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=threads)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].unroll(j)
    return s, [A, B]


def inputs(rows=SHAPE[0], cols=SHAPE[1], **_):
    import numpy as np
    return [np.random.default_rng(0).random((rows, cols), dtype="float32")]


def reference(a):
    return a.sum(axis=1)


def bytes_moved(rows=SHAPE[0], cols=SHAPE[1], **_):
    return 4 * rows * (cols + 1)
