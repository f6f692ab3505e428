"""cache_write on lists of outputs and after loop transforms (TVM's relayout).

Ports test_schedule_cache_relayout1-4, test_schedule_compute_inline and
test_loop_dep_reduce_cache_write (te_schedule_ops), with numeric checks.
"""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.testing import reference


def _lower_bounds_ops(s):
    s = s.normalize()
    bounds = te.schedule.InferBound(s)
    return te.schedule.ScheduleOps(s, bounds)


def test_relayout_after_reorder():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    B = te.placeholder((m, n), name="B")
    C = te.compute((m, n), lambda i, j: A(i, j) * B(i, j), name="C")
    s = te.create_schedule(C.op)
    s[C].reorder(C.op.axis[1], C.op.axis[0])
    CC = s.cache_write(C, "global")
    assert tuple(CC.shape) == (n, m)            # stored in loop order
    _lower_bounds_ops(s)
    f = tepad.build(s, [A, B, C])
    a, b = np.random.default_rng(0).standard_normal((2, 5, 3)).astype("float32")
    c = np.zeros((5, 3), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a * b, rtol=1e-6)


def _split_reorder_cached(m, n):
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    C = te.compute(A.shape, lambda i, j: A(i, j) * B(i, j), name="C")
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    xo, xi = s[C].split(x, factor=4)
    s[C].reorder(xo, y, xi)
    CC = s.cache_write(C, "global")
    return s, [A, B, C], CC


def test_relayout_after_split_and_reorder():
    s, (A, B, C), CC = _split_reorder_cached(te.var("m"), te.var("n"))
    assert len(CC.shape) == 3 and CC.shape[2].value == 4
    assert s[C].relations == [] and len(s[C].leaf_iter_vars) == 2
    _lower_bounds_ops(s)
    s, args, _ = _split_reorder_cached(2, 3)
    f = tepad.build(s, args)
    a, b = np.random.default_rng(1).standard_normal((2, 8, 3)).astype("float32")
    c = np.zeros((8, 3), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a * b, rtol=1e-6)


def _reduction_cached(m, n):
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((A.shape[0],), lambda i: te.sum(A(i, k) * B(i, k), axis=k), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    CC = s.cache_write(C, "global")
    return s, [A, B, C], CC, k


def test_relayout_of_reduction_after_data_split():
    s, _, CC, k = _reduction_cached(te.var("m"), te.var("n"))
    assert list(CC.op.reduce_axis) == [k]
    _lower_bounds_ops(s)
    s, args, _, _ = _reduction_cached(3, 5)
    f = tepad.build(s, args)
    a, b = np.random.default_rng(2).standard_normal((2, 12, 5)).astype("float32")
    c = np.zeros(12, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, (a * b).sum(axis=1), rtol=1e-5, atol=1e-5)


def _two_outputs_cached(m, n):
    A = te.placeholder((m * 4, n), name="A")
    B = te.placeholder((m * 4, n), name="B")
    C1, C2 = te.compute(A.shape, lambda *i: (A(*i) + 1, B(*i) / 2), name="C")
    s = te.create_schedule([C1.op, C2.op])
    caches = s.cache_write([C1, C2], "local")
    return s, [A, B, C1, C2], caches


def test_cache_write_of_all_outputs_of_one_compute():
    s, _, (C1_cache, C2_cache) = _two_outputs_cached(te.var("m"), te.var("n"))
    assert C1_cache.op is C2_cache.op
    assert (C1_cache.value_index, C2_cache.value_index) == (0, 1)
    _lower_bounds_ops(s)
    s, args, _ = _two_outputs_cached(2, 3)
    f = tepad.build(s, args)
    a, b = np.random.default_rng(3).standard_normal((2, 8, 3)).astype("float32")
    c1, c2 = np.zeros((8, 3), "float32"), np.zeros((8, 3), "float32")
    f(a, b, c1, c2)
    np.testing.assert_allclose(c1, a + 1, rtol=1e-6)
    np.testing.assert_allclose(c2, b / 2, rtol=1e-6)


def test_cache_write_and_cache_read_around_inlined_stage():
    # TVM's test_schedule_compute_inline
    shape = [10, 64]
    A = te.placeholder(shape, name="A")
    B = te.placeholder(shape, name="B")
    C = te.compute(shape, lambda *index: A(*index) + B(*index), name="C")
    F, E = te.compute(shape, lambda *index: (C(*index), C(*index) * B(*index)), name="F")
    s = te.create_schedule([F.op, E.op])
    s.cache_read(A, "local", [C])
    s.cache_read(B, "local", [C, E])
    s.cache_write(C, "local")
    s.cache_write([F, E], "local")
    s[C].compute_inline()
    _lower_bounds_ops(s)
    f = tepad.build(s, [A, B, F, E])
    a, b = np.random.default_rng(4).standard_normal((2, 10, 64)).astype("float32")
    got_f, got_e = np.zeros_like(a), np.zeros_like(a)
    f(a, b, got_f, got_e)
    np.testing.assert_allclose(got_f, a + b, rtol=1e-6)
    np.testing.assert_allclose(got_e, (a + b) * b, rtol=1e-6)


def test_cache_write_of_reduction_whose_reducer_reads_the_data_axis():
    # TVM's test_loop_dep_reduce_cache_write: identity, combiner and reduce extent use n
    X = te.placeholder(shape=(10,), name="x")

    def f(n):
        rv = te.reduce_axis((0, n))
        init = lambda dtype: tir.Select(n > 1, tir.const(0, dtype), n.astype(dtype))
        red = te.comm_reducer(lambda x, y: te.max(x + y, n.astype("float32")), init,
                              name="sum")
        return red(X[rv], axis=rv)

    Y = te.compute(X.shape, f, name="y")
    s = te.create_schedule([Y.op])
    s.cache_write(Y, "local")
    mod = tepad.build(s, [X, Y])
    x = np.random.default_rng(5).standard_normal(10).astype("float32")
    y = np.zeros(10, "float32")
    mod(x, y)
    want = np.zeros(10, "float32")
    for n in range(10):
        acc = np.float32(0 if n > 1 else n)
        for r in range(n):
            acc = max(acc + x[r], np.float32(n))
        want[n] = acc
    np.testing.assert_allclose(y, want, rtol=1e-6)
    np.testing.assert_allclose(reference(Y, {X: x}), want, rtol=1e-6)


def test_cache_write_after_non_dividing_split_keeps_annotations():
    A = te.placeholder((10, 13), name="A")
    B = te.compute((10, 13), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi, yo, yi = s[B].tile(B.op.axis[0], B.op.axis[1], 4, 8)
    s[B].parallel(xo)
    s[B].vectorize(yi)
    BC = s.cache_write(B, "local")
    assert [int(d) for d in BC.shape] == [3, 2, 4, 8]
    kinds = {iv.name: s[BC].leaf_kind(iv) for iv in s[BC].leaf_iter_vars}
    assert kinds["i.outer.c"].name == "Parallelized"
    assert kinds["j.inner.c"].name == "Vectorized"
    f = tepad.build(s, [A, B], bounds_check=True)
    a = np.random.default_rng(6).standard_normal((10, 13)).astype("float32")
    b = np.zeros_like(a)
    f(a, b)
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_cache_computed_at_copy_and_producer_moved_to_cache():
    A = te.placeholder((12, 9), name="A")
    P = te.compute((12, 9), lambda i, j: A[i, j] + 1.0, name="P")
    C = te.compute((12, 9), lambda i, j: P[i, j] * 3.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[P].compute_at(s[C], xo)
    CL = s.cache_write(C, "local")
    assert s[P].attach_stage is s[CL]           # P feeds the cache now
    io, ii = s[C].split(s[C].op.axis[0], factor=4)
    s[CL].compute_at(s[C], io)
    f = tepad.build(s, [A, C])
    a = np.random.default_rng(7).standard_normal((12, 9)).astype("float32")
    c = np.zeros_like(a)
    f(a, c)
    np.testing.assert_allclose(c, (a + 1) * 3, rtol=1e-6)


def test_cache_write_mistakes_are_refused():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    R = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    s[R].split(k, factor=4)
    with pytest.raises(TepadError, match=r"loop k.outer of stage R derives from a reduce axis"):
        s.cache_write(R, "local")
    P, Q = te.compute((4,), lambda i: (A[i, 0] + 1.0, A[i, 1] * 2.0), name="PQ")
    O = te.compute((4,), lambda i: A[i, 2], name="O")
    s = te.create_schedule([P.op, O.op])
    with pytest.raises(TepadError, match=r"pass all of them: s.cache_write\(\[PQ.v0, PQ.v1\]"):
        s.cache_write(P, "local")
    with pytest.raises(TepadError, match="outputs of different computes"):
        s.cache_write([P, O], "local")


def test_cache_write_after_transform_layout_keeps_the_layout_on_the_tensor():
    A = te.placeholder((10, 6), name="A")
    B = te.compute((10, 6), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    C = te.compute((10, 6), lambda i, j: B[i, j] * 3.0, name="C")
    s = te.create_schedule(C.op)
    ax = s[B].transform_layout(lambda i, j: [j // 4, i, j % 4], pad_value=-1.0)
    s[B].split(ax[1], factor=3)
    s[B].vectorize(ax[2])
    BL = s.cache_write(B, "local")
    assert [int(d) for d in BL.shape] == [2, 4, 3, 4]     # the layout's loops, split
    assert [iv.name for iv in s[B].leaf_iter_vars] == ["ax0", "ax1", "ax2"]
    assert len(s[B].layout_transforms) == 1              # B is still stored transformed
    f = tepad.build(s, [A, B, C], bounds_check=True)
    a = np.random.default_rng(8).standard_normal((10, 6)).astype("float32")
    b_phys = np.zeros((2, 10, 4), "float32")
    c = np.zeros((10, 6), "float32")
    f(a, b_phys, c)
    np.testing.assert_allclose(c, (a * 2 + 1) * 3, rtol=1e-5, atol=1e-5)
    logical = b_phys.transpose(1, 0, 2).reshape(10, 8)
    np.testing.assert_allclose(logical[:, :6], a * 2 + 1, rtol=1e-6)
    np.testing.assert_array_equal(logical[:, 6:], -1.0)     # the pad value
