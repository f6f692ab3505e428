"""cache_write after nested splits that do not divide (or whose factor exceeds the piece they
split): the relaid-out cache has one axis per loop, and its body is guarded by every such
split on the path to the root (relation_bound_checks), so the padding of the cache holds
nothing computed from the next tile. Numerics against numpy in both bound modes, and the
guards on the cache's definition."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.tir.reduce import Reduce

RNG = np.random.default_rng(11)


def _build(s, args, exact):
    return tepad.build(tepad.lower(s, args, exact_bounds=exact), bounds_check=True)


@pytest.mark.parametrize("exact", [False, True])
def test_elementwise_cache_after_nested_splits(exact):
    A = te.placeholder((5, 10), name="A")
    C = te.compute((5, 10), lambda i, j: A[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    jo, ji = s[C].split(C.op.axis[1], factor=4)       # 3 x 4 = 12 > 10
    jio, jii = s[C].split(ji, factor=3)               # 2 x 3 = 6 > 4
    io, ii = s[C].split(C.op.axis[0], factor=7)       # 7 > 5
    CL = s.cache_write(C, "local")
    # the cache's guard keeps both j.inner and j inside their ranges
    text = str(CL.op.body[0]).replace("_", ".")
    assert "j.inner.outer.c * 3 + j.inner.inner.c < 4" in text, text
    a = RNG.random((5, 10), dtype=np.float32)
    c = np.zeros((5, 10), "float32")
    _build(s, [A, C], exact)(a, c)
    np.testing.assert_allclose(c, a * 2)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("how", ["factor", "nparts"])
def test_reduction_cache_after_nested_splits_of_its_data_axis(exact, how):
    A = te.placeholder((10, 6), "int32", name="A")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((10,), lambda i: te.sum(A[i, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    iio, iii = s[C].split(ii, **{how: 3})
    CL = s.cache_write(C, "local")
    assert isinstance(CL.op.body[0], Reduce)
    cond = str(CL.op.body[0].condition).replace("_", ".")
    assert "< 4" in cond, cond                        # the guard of i.inner
    a = RNG.integers(-9, 9, size=(10, 6)).astype("int32")
    c = np.zeros(10, "int32")
    _build(s, [A, C], exact)(a, c)
    np.testing.assert_array_equal(c, a.sum(1))


@pytest.mark.parametrize("exact", [False, True])
def test_cache_computed_at_a_consumer_loop_after_nested_splits(exact):
    A = te.placeholder((9,), name="A")
    B = te.compute((9,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((9,), lambda i: B[i] * 3.0, name="C")
    s = te.create_schedule(C.op)
    bo, bi = s[B].split(B.op.axis[0], factor=4)
    bio, bii = s[B].split(bi, factor=16)
    BL = s.cache_write(B, "local")
    co, ci = s[C].split(C.op.axis[0], factor=5)
    s[B].compute_at(s[C], co)
    a = RNG.random(9, dtype=np.float32)
    c = np.zeros(9, "float32")
    _build(s, [A, C], exact)(a, c)
    np.testing.assert_allclose(c, (a + 1) * 3, rtol=1e-6)
