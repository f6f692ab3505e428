"""RFC 0077's padded conv1d: ``B = conv1d(A, F, padding=2)`` with ``A`` (16) and ``B`` (18)
both stored as ``[(i + 2) // 8, (i + 2) % 8]`` -- physical shape ``[3, 8]`` for both.

* ``A``'s padding is at transformed ``[0, 0:2]`` and ``[2, 2:8]``; ``pad_value=0`` is a promise
  about the input (``tir.assume`` in the lowered IR);
* ``B``'s padding is at ``[0, 0:2]`` and ``[2, 4:8]``; as the producer, the kernel writes 0.0
  there after its compute (the RFC's postlude loop).

The loops over ``B`` follow its physical layout (RFC 0039). Arrays are passed in the physical
shape: ``tepad.layout.to_physical(a, lambda i: [(i + 2) // 8, (i + 2) % 8], 0)``.
"""
from tepad import te, tir

N, K, PAD = 16, 3, 2


def layout(i):
    return [(i + 2) // 8, (i + 2) % 8]


def schedule(n=N, k=K, pad=PAD):
    A = te.placeholder((n,), "float32", name="A")
    F = te.placeholder((k,), "float32", name="F")
    f = te.reduce_axis((0, k), name="f")
    m = n + 2 * pad - k + 1
    B = te.compute(
        (m,),
        lambda b: te.sum(tir.if_then_else(tir.all(b - f + pad >= 0, b - f + pad < n),
                                          F[f] * A[b - f + pad], tir.const(0.0, "float32")),
                         axis=f),
        name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(layout, pad_value=0.0)
    s[B].transform_layout(layout, pad_value=0.0)
    return s, [A, F, B]


def inputs(n=N, k=K, **_):
    import numpy as np
    rng = np.random.default_rng(0)
    return [rng.random(n, dtype="float32") - 0.5, rng.random(k, dtype="float32") - 0.5]
