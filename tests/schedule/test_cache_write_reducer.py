"""cache_write of a reduction whose reducer reads a data-parallel variable.

TVM's test_loop_dep_reduce_cache_write: the combiner, the identity and the reduce axis's
domain all use the compute's axis ``n``; after cache_write every one of them must use the
cache stage's own axis, and the result must equal the same reduction computed with numpy.
"""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.tir.functor import collect_vars


def _numpy_loop_dep(x):
    out = np.empty_like(x)
    for n in range(len(x)):
        acc = np.float32(0.0 if n > 1 else 1.0)
        for r in range(n):
            acc = np.float32(max(acc + x[r], np.float32(n)))
        out[n] = acc
    return out


def _loop_dep_reduction(size):
    X = te.placeholder((size,), name="x")

    def f(n):
        rv = te.reduce_axis((0, n))
        init = lambda dtype: tir.Select(n > 1, tir.const(0, dtype), tir.const(1, dtype))
        red = te.comm_reducer(lambda x, y: te.max(x + y, n.astype("float32")), init,
                              name="sum")
        return red(X[rv], axis=rv)

    return X, te.compute(X.shape, f, name="y")


@pytest.mark.parametrize("schedule", ["plain", "split_cache", "compute_at"])
def test_loop_dep_reduce_cache_write(schedule):
    size = 10
    X, Y = _loop_dep_reduction(size)
    s = te.create_schedule([Y.op])
    YL = s.cache_write(Y, "local")
    if schedule == "split_cache":
        s[YL].split(s[YL].op.axis[0], factor=4)
    elif schedule == "compute_at":
        yo, yi = s[Y].split(Y.op.axis[0], factor=3)
        s[YL].compute_at(s[Y], yo)
    # nothing in the cache stage's definition refers to the copy stage's axis
    red = s[YL].op.body[0]
    old = {iv.var for iv in Y.op.axis}
    assert not old & collect_vars(red.combiner.result[0])
    assert not old & collect_vars(red.combiner.identity_element[0])
    assert not old & collect_vars(red.axis[0].dom.extent)
    mod = tepad.build(s, [X, Y])
    x = np.random.default_rng(3).random(size).astype("float32")
    y = np.zeros(size, "float32")
    mod(x, y)
    np.testing.assert_allclose(y, _numpy_loop_dep(x), rtol=1e-5, atol=1e-5)


def test_cache_write_keeps_reducers_without_data_vars():
    A = te.placeholder((6, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    BL = s.cache_write(B, "local")
    assert s[BL].op.body[0].combiner is B.op.body[0].combiner
    assert s[BL].op.body[0].axis[0] is k
    a = np.random.default_rng(5).random((6, 5)).astype("float32")
    b = np.zeros(6, "float32")
    tepad.build(s, [A, B])(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)
