"""Schedule.rfactor: TVM's test_rfactor (te_schedule), test_bound_rfactor (bound_inference)
and the CPU part of test_lower_rfactor (te_build_lower), plus numeric checks."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.testing import reference


def _row_sum(n=None, m=None):
    n = n if n is not None else te.var("n")
    m = m if m is not None else te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, B


def _run_row_reduce(s, A, B, shape=(37, 45), fn=np.sum, rtol=1e-5):
    f = tepad.build(s, [A, B])
    a = np.random.default_rng(0).standard_normal(shape).astype("float32")
    b = np.zeros(shape[0], "float32")
    f(a, b)
    np.testing.assert_allclose(b, fn(a, axis=1), rtol=rtol, atol=1e-5)


def test_rfactor_definitions():
    n = te.size_var("n")
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, n), name="k2")
    A = te.placeholder((n, n, n), name="A")
    B = te.compute((n,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]))
    # a whole reduce axis becomes the first axis of the factored tensor
    s = te.create_schedule(B.op)
    BF = s.rfactor(B, k1)
    assert tuple(BF.shape) == (n, n)
    assert list(BF.op.body[0].axis) == [k2]
    assert s[B].op.body[0].axis[0].dom.extent is n
    assert len(s[B].all_iter_vars) == 2
    # a split part: its extent is the split factor; the other part stays a reduction
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k1, factor=4)
    s[B].split(B.op.axis[0], factor=8)
    BF = s.rfactor(B, ki)
    assert BF.shape[0].value == 4 and BF.shape[1] is n
    assert BF.op.body[0].axis[0] is k2
    assert BF.op.body[0].axis[1].var is ko.var
    assert s[B].op.body[0].axis[0].dom.extent.value == 4
    # factor_axis=1 puts the factored axis last
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k1, factor=4)
    BF = s.rfactor(B, ki, 1)
    assert BF.shape[0] is n and BF.shape[1].value == 4
    assert BF.op.body[0].axis[1].var is ko.var


def test_bound_of_rfactor_stage():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n))
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=(i > 1)), name="B")
    s = te.create_schedule(B.op)
    kf, ki = s[B].split(k, nparts=4)
    BF = s.rfactor(B, kf)
    s = s.normalize()
    bounds = te.schedule.InferBound(s)
    assert bounds[BF.op.axis[0]].extent.value == 4
    assert bounds[BF.op.axis[1]].extent.value == 1


def test_rfactor_body_is_reduction_over_factored_axis():
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    body = s[B].op.body[0]
    assert body.source[0].producer == BF
    assert [iv.var.name for iv in body.axis] == ["k.inner.v"]
    assert body.axis[0].dom.extent.value == 16
    assert BF.op.axis[0].iter_type.name == "DataPar"      # parallelizable
    assert [iv.var for iv in BF.op.reduce_axis] == [ko.var]


@pytest.mark.parametrize("factor_axis", [0, 1, -1])
def test_rfactor_sum_with_parallel_factored_stage(factor_axis):
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki, factor_axis)
    fa = factor_axis % 2
    s[BF].parallel(BF.op.axis[fa])
    _run_row_reduce(s, A, B)


def test_rfactor_max_vectorized_factored_axis_computed_at_consumer():
    n, m = 24, 50
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=8)
    BF = s.rfactor(B, ki, 1)
    xo, xi = s[B].split(s[B].op.axis[0], factor=8)
    s[B].parallel(xo)
    s[BF].compute_at(s[B], xo)
    s[BF].vectorize(s[BF].op.axis[1])
    _run_row_reduce(s, A, B, shape=(n, m), fn=np.max)


def test_rfactor_stage_computed_at_reduce_loop_of_consumer():
    # test_lower_rfactor without the GPU thread bindings, built and run
    A, B = _row_sum(te.size_var("n"), te.size_var("m"))
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=32)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    tepad.lower(s, [A, B])
    _run_row_reduce(s, A, B, shape=(40, 35))


def test_rfactor_of_a_whole_axis_leaves_the_other_axis_reduced():
    n = 6
    A = te.placeholder((n, n, n), name="A")
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, n), name="k2")
    B = te.compute((n,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    s = te.create_schedule(B.op)
    BF = s.rfactor(B, k2)
    s[BF].parallel(BF.op.axis[0])
    f = tepad.build(s, [A, B])
    a = np.random.default_rng(1).standard_normal((n, n, n)).astype("float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.sum(axis=(1, 2)), rtol=1e-5, atol=1e-5)


def test_rfactor_of_the_only_reduce_axis_with_where_and_init():
    A = te.placeholder((5, 7), name="A")
    I = te.placeholder((5,), name="I")
    k = te.reduce_axis((0, 7), "k")
    B = te.compute((5,), lambda i: te.sum(A[i, k], axis=k, where=k % 2 == 1, init=I[i]),
                   name="B")
    s = te.create_schedule(B.op)
    BF = s.rfactor(B, k)          # nothing left to reduce in BF
    assert not BF.op.reduce_axis
    f = tepad.build(s, [A, I, B])
    a = np.random.default_rng(2).standard_normal((5, 7)).astype("float32")
    ini = np.arange(5, dtype="float32")
    b = np.zeros(5, "float32")
    f(a, ini, b)
    np.testing.assert_allclose(b, ini + a[:, 1::2].sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b, reference(B, {A: a, I: ini}), rtol=1e-5, atol=1e-5)


def test_rfactor_of_tuple_reduction():
    def fcombine(x, y):
        keep = x[1] >= y[1]
        return tir.Select(keep, x[0], y[0]), tir.Select(keep, x[1], y[1])

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (tir.const(-1, t0), te.min_value(t1)),
                             name="argmax")
    val = te.placeholder((6, 30), name="val")
    k = te.reduce_axis((0, 30), "k")
    T_idx, T_val = te.compute((6,), lambda i: argmax((k.var, val[i, k]), axis=k), name="T")
    s = te.create_schedule(T_idx.op)
    ko, ki = s[T_idx].split(k, factor=4)
    F_idx, F_val = s.rfactor(T_idx, ki)
    assert F_idx.op is F_val.op and F_idx.op.num_outputs == 2
    s[F_idx].parallel(F_idx.op.axis[0])
    f = tepad.build(s, [val, T_idx, T_val])
    v = np.random.default_rng(3).permutation(180).reshape(6, 30).astype("float32")
    idx, mx = np.zeros(6, "int32"), np.zeros(6, "float32")
    f(v, idx, mx)
    np.testing.assert_array_equal(idx, v.argmax(axis=1))
    np.testing.assert_array_equal(mx, v.max(axis=1))


def test_rfactor_moves_producers_computed_inside_the_reduction():
    A = te.placeholder((8, 12), name="A")
    P = te.compute((8, 12), lambda i, j: A[i, j] * 2.0, name="P")
    k = te.reduce_axis((0, 12), "k")
    B = te.compute((8,), lambda i: te.sum(P[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[P].compute_at(s[B], B.op.axis[0])
    ko, ki = s[B].split(k, factor=4)
    BF = s.rfactor(B, ki)
    assert s[P].attach_stage is s[BF]
    f = tepad.build(s, [A, B])
    a = np.random.default_rng(4).standard_normal((8, 12)).astype("float32")
    b = np.zeros(8, "float32")
    f(a, b)
    np.testing.assert_allclose(b, 2 * a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_rfactor_mistakes_are_refused():
    A, B = _row_sum(8, 16)
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match=r"rfactor\(B, i\): i is not a reduction loop of B"):
        s.rfactor(B, B.op.axis[0])
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=4)
    with pytest.raises(TepadError, match="the axis must be a leaf loop of stage B"):
        s.rfactor(B, B.op.reduce_axis[0])
    with pytest.raises(TepadError, match="factor_axis=3 is out of range"):
        s.rfactor(B, ki, 3)
    with pytest.raises(TepadError, match=r"rfactor\(A, k.inner\): A is not a reduction"):
        s.rfactor(A, ki)
    s2 = te.create_schedule(B.op)
    f = s2[B].fuse(B.op.axis[0], B.op.reduce_axis[0])
    with pytest.raises(TepadError, match="was fused with the data axis i"):
        s2.rfactor(B, f)


def test_rfactor_of_reducer_that_reads_the_data_axis():
    # the combiner and identity read i: both the factored stage and B keep them bound
    A = te.placeholder((6, 10), name="A")

    def f(i):
        k = te.reduce_axis((0, 10), "k")
        red = te.comm_reducer(lambda x, y: te.max(x + y, i.astype("float32")),
                              lambda t: i.astype(t), name="capped")
        return red(A[i, k], axis=k)

    B = te.compute((6,), f, name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(s[B].op.reduce_axis[0], factor=3)
    BF = s.rfactor(B, ki)
    s[BF].parallel(BF.op.axis[0])
    mod = tepad.build(s, [A, B])
    a = np.random.default_rng(5).standard_normal((6, 10)).astype("float32")
    b = np.zeros(6, "float32")
    mod(a, b)
    # rfactor regroups the fold; the reference folds in order: compare with a direct regrouping
    want = np.zeros(6, "float32")
    for i in range(6):
        parts = []
        for r in range(3):
            acc = np.float32(i)
            for o in range(4):
                if o * 3 + r < 10:
                    acc = max(acc + a[i, o * 3 + r], np.float32(i))
            parts.append(acc)
        acc = np.float32(i)
        for x in parts:
            acc = max(acc + x, np.float32(i))
        want[i] = acc
    np.testing.assert_allclose(b, want, rtol=1e-5)


def test_rfactor_of_reduce_axis_whose_domain_reads_the_data_axis_is_refused():
    A = te.placeholder((6, 6), name="A")

    def f(i):
        k = te.reduce_axis((0, i + 1), "k")
        return te.sum(A[i, k], axis=k)

    B = te.compute((6,), f, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match="the domain of reduce axis k depends on a data axis"):
        s.rfactor(B, s[B].op.reduce_axis[0])
