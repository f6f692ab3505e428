"""The computes the auto-scheduler benchmark tunes, written once for tepad and for the TVM peer.

Each builder takes the ``te`` module it builds with first (``tepad.te`` in
``bench_auto_scheduler.py``, TVM's ``tvm.te`` in ``peers/bench_metaschedule.py``) and returns
the tensors, inputs first and the output last. ``SIZES`` are the sizes both scripts use (W2
is matmul n=1024, W4 conv2d 64/64/56), ``flop(op, sizes)`` their floating-point work and
``reference(op, inputs)`` the numpy result.
"""
from __future__ import annotations

import numpy as np

F32 = "float32"

SIZES = {"matmul": dict(n=1024), "conv2d": dict(c=64, k=64, h=56, w=56),
         "depthwise": dict(c=128, h=56, w=56), "softmax": dict(n=1024, m=1024),
         "batch_matmul": dict(b=8, n=256)}


def matmul_add(te, N, L, M, dtype=F32):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    C = te.placeholder((N, M), name="C", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    matmul = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((N, M), lambda i, j: matmul[i, j] + C[i, j], name="out")
    return [A, B, C, out]


def _padded(te, X, c, h, w):
    return te.compute((1, c, h + 2, w + 2), lambda b, ci, y, x: te.if_then_else(
        te.all(y >= 1, y < h + 1, x >= 1, x < w + 1), X[b, ci, y - 1, x - 1], 0.0),
        name="pad")


def conv2d(te, c, k, h, w):
    X = te.placeholder((1, c, h, w), F32, name="data")
    W = te.placeholder((k, c, 3, 3), F32, name="weight")
    pad = _padded(te, X, c, h, w)
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute((1, k, h, w), lambda b, f, y, x: te.sum(
        pad[b, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    return [X, W, conv]


def depthwise(te, c, h, w):
    X = te.placeholder((1, c, h, w), F32, name="data")
    W = te.placeholder((c, 1, 3, 3), F32, name="weight")
    pad = _padded(te, X, c, h, w)
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute((1, c, h, w), lambda b, f, y, x: te.sum(
        pad[b, f, y + ry, x + rx] * W[f, 0, ry, rx], axis=[ry, rx]), name="conv")
    return [X, W, conv]


def softmax(te, n, m):
    x = te.placeholder((n, m), F32, name="x")
    k1 = te.reduce_axis((0, m), name="k1")
    mx = te.compute((n,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    e = te.compute((n, m), lambda i, j: te.exp(x[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, m), name="k2")
    total = te.compute((n,), lambda i: te.sum(e[i, k2], axis=k2), name="total")
    out = te.compute((n, m), lambda i, j: e[i, j] / total[i], name="out")
    return [x, out]


def batch_matmul(te, b, n):
    A = te.placeholder((b, n, n), F32, name="A")
    B = te.placeholder((b, n, n), F32, name="B")
    k = te.reduce_axis((0, n), name="k")
    out = te.compute((b, n, n), lambda z, i, j: te.sum(A[z, i, k] * B[z, k, j], axis=k),
                     name="bmm")
    return [A, B, out]


def args_of(op, s) -> tuple:
    """The builder arguments (after ``te``) of ``op`` at sizes ``s``."""
    return {"matmul": lambda: (s["n"], s["n"], s["n"], F32),
            "conv2d": lambda: (s["c"], s["k"], s["h"], s["w"]),
            "depthwise": lambda: (s["c"], s["h"], s["w"]),
            "softmax": lambda: (s["n"], s["m"]),
            "batch_matmul": lambda: (s["b"], s["n"])}[op]()


def flop(op, s) -> float:
    return {"matmul": lambda: 2.0 * s["n"] ** 3,
            "conv2d": lambda: 18.0 * s["k"] * s["c"] * s["h"] * s["w"],
            "depthwise": lambda: 18.0 * s["c"] * s["h"] * s["w"],
            "softmax": lambda: 5.0 * s["n"] * s["m"],
            "batch_matmul": lambda: 2.0 * s["b"] * s["n"] ** 3}[op]()


def _conv(x, w, depthwise_):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    if depthwise_:
        return np.einsum("bchwyx,cyx->bchw", win, w[:, 0], optimize=True)
    return np.einsum("bchwyx,fcyx->bfhw", win, w, optimize=True)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reference(op, ins):
    """numpy's result of ``op`` on the input arrays ``ins``."""
    return {"matmul": lambda: ins[0] @ ins[1] + ins[2],
            "conv2d": lambda: _conv(ins[0], ins[1], False),
            "depthwise": lambda: _conv(ins[0], ins[1], True),
            "softmax": lambda: _softmax(ins[0]),
            "batch_matmul": lambda: ins[0] @ ins[1]}[op]()


BUILDERS = {"matmul": matmul_add, "conv2d": conv2d, "depthwise": depthwise,
            "softmax": softmax, "batch_matmul": batch_matmul}
