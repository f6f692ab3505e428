"""A reduction over no axes (``axis=[]``, numpy's ``axis=()``) is its source combined once
with the start value: the identity, or ``init``; ``where`` false keeps the start value."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, topi


def _run(out, inputs, arrays):
    f = tvm.build(te.create_schedule(out.op), list(inputs) + [out])
    res = tvm.nd.empty(tuple(int(x) for x in out.shape), out.dtype)
    f(*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_topi_reduce_with_empty_axis_tuple(name, keepdims):
    A = te.placeholder((3, 4, 5), name="A")
    B = getattr(topi, name)(A, axis=(), keepdims=keepdims)
    a = np.random.default_rng(2).uniform(-1, 1, (3, 4, 5)).astype("float32")
    want = getattr(np, {"max": "amax", "min": "amin"}.get(name, name))(
        a, axis=(), keepdims=keepdims)
    np.testing.assert_allclose(_run(B, [A], [a]), want, rtol=1e-6)


def test_te_reducers_with_no_axes_init_and_where():
    A = te.placeholder((6,), name="A")
    S = te.compute((6,), lambda i: te.sum(A[i], axis=[], init=10.0), name="S")
    M = te.compute((6,), lambda i: te.max(A[i], axis=[], where=i < 3), name="M")
    a = np.arange(6, dtype="float32") - 2
    np.testing.assert_allclose(_run(S, [A], [a]), a + 10)
    m = _run(M, [A], [a])
    np.testing.assert_allclose(m[:3], a[:3])
    assert np.all(m[3:] == np.finfo("float32").min)


def test_tuple_reducer_with_no_axes():
    def fcombine(x, y):
        keep = x[1] >= y[1]
        return (tvm.tir.Select(keep, x[0], y[0]), tvm.tir.Select(keep, x[1], y[1]))

    def fidentity(t0, t1):
        return (tvm.tir.const(-1, t0), tvm.te.min_value(t1))

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    V = te.placeholder((5,), name="V")
    idx, val = te.compute((5,), lambda i: argmax((i, V[i]), axis=[]), name="R")
    v = np.array([3, -1, 4, 1, 5], dtype="float32")
    f = tvm.build(te.create_schedule(val.op), [V, idx, val])
    got_i, got_v = tvm.nd.empty((5,), "int32"), tvm.nd.empty((5,), "float32")
    f(tvm.nd.array(v), got_i, got_v)
    np.testing.assert_array_equal(got_i.numpy(), np.arange(5))
    np.testing.assert_allclose(got_v.numpy(), v)
