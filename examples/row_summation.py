"""RFC 0077's row summation: ``B[i] = sum_j A[i, j]`` with ``A`` stored as ``[i, j // 4, j % 4]``.

The logical row has 14 elements; the physical layout has 4 x 4 = 16 per row, so two padding
cells per row (transformed indices ``[i, 3, 2]`` and ``[i, 3, 3]``). ``pad_value=0`` promises
that the caller fills them with zeros: ``tepad.lower`` turns that into a ``tir.assume`` about
the input buffer, and ``remove_branching_through_overcompute`` may then sum all 16 cells
without a ``j < 14`` test (adding 0.0 changes nothing). Pass ``A`` in its physical shape
``(rows, 4, 4)``: ``tepad.layout.to_physical(a, lambda i, j: [i, j // 4, j % 4], 0)``.
"""
from tepad import te

ROWS, COLS = 16, 14


def layout(i, j):
    return [i, j // 4, j % 4]


def schedule(rows=ROWS, cols=COLS):
    A = te.placeholder((rows, cols), "float32", name="A")
    j = te.reduce_axis((0, cols), name="j")
    B = te.compute((rows,), lambda i: te.sum(A[i, j], axis=j), name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(layout, pad_value=0.0)
    return s, [A, B]


def inputs(rows=ROWS, cols=COLS, **_):
    """Logical inputs (the CLI converts them to the physical layout)."""
    import numpy as np
    return [np.random.default_rng(0).random((rows, cols), dtype="float32")]
