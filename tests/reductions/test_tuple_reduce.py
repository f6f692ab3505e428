"""Tuple-valued comm_reducers (argmax) and multi-output reduction computes.

Ports the behaviour of TVM's test_tensor_reduce_multiout_with_cond and
test_tensor_comm_reducer_overload (te_tensor) and test_inline_multi_reduce (te_schedule_ops),
with numeric checks against numpy and against ``tepad.testing.reference``.
"""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.pipeline import lower_primfunc
from tepad.testing import reference
from tepad.tir.functor import post_order_visit


def _argmax_reducer():
    def fcombine(x, y):
        keep = x[1] >= y[1]
        return tir.Select(keep, x[0], y[0]), tir.Select(keep, x[1], y[1])

    def fidentity(t0, t1):
        return tir.const(-1, t0), te.min_value(t1)

    return te.comm_reducer(fcombine, fidentity, name="argmax")


def _argmax_rows(rows=5, cols=9, dtype="float32"):
    argmax = _argmax_reducer()
    val = te.placeholder((rows, cols), name="val", dtype=dtype)
    k = te.reduce_axis((0, cols), "k")
    T_idx, T_val = te.compute((rows,), lambda i: argmax((k.var, val[i, k]), axis=k), name="T")
    return val, T_idx, T_val


def test_tuple_reducer_returns_one_reduce_per_value_sharing_the_combiner():
    argmax = _argmax_reducer()
    val = te.placeholder((4, 6), name="val")
    k = te.reduce_axis((0, 6), "k")
    r0, r1 = argmax((k.var, val[0, k]), axis=k)
    assert (r0.value_index, r1.value_index) == (0, 1)
    assert r0.combiner is r1.combiner and r0.combiner.size == 2
    assert r0.dtype == "int32" and r1.dtype == "float32"
    assert [str(e.dtype) for e in r0.combiner.identity_element] == ["int32", "float32"]


def test_argmax_matches_numpy():
    val, T_idx, T_val = _argmax_rows()
    s = te.create_schedule(T_idx.op)
    f = tepad.build(s, [val, T_idx, T_val])
    v = np.random.default_rng(0).standard_normal((5, 9)).astype("float32")
    v[2, 3] = v[2, 7] = 50.0       # a tie keeps the first index (x[1] >= y[1] keeps the old)
    idx, mx = np.zeros(5, "int32"), np.zeros(5, "float32")
    f(v, idx, mx)
    np.testing.assert_array_equal(idx, v.argmax(axis=1))
    np.testing.assert_array_equal(mx, v.max(axis=1))
    ref_idx, ref_val = reference([T_idx, T_val], {val: v})
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_array_equal(mx, ref_val)


def _prefix_reducer():
    # value 1 accumulates the *old* value 0: (s, t) + (a, b) -> (s + a, t + s)
    return te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] + x[0]),
                           lambda a, b: (tir.const(0, a), tir.const(0, b)), name="prefix")


def test_every_value_is_updated_from_the_old_values():
    red = _prefix_reducer()
    A = te.placeholder((3, 7), name="A", dtype="int32")
    k = te.reduce_axis((0, 7), "k")
    S, P = te.compute((3,), lambda i: red((A[i, k], A[i, k]), axis=k), name="T")
    s = te.create_schedule(S.op)
    f = tepad.build(s, [A, S, P])
    a = np.random.default_rng(1).integers(-9, 9, (3, 7)).astype("int32")
    got_s, got_p = np.zeros(3, "int32"), np.zeros(3, "int32")
    f(a, got_s, got_p)
    np.testing.assert_array_equal(got_s, a.sum(axis=1))
    # the running sums before each element, summed: t only sees s from before the update
    np.testing.assert_array_equal(got_p, np.cumsum(a, axis=1)[:, :-1].sum(axis=1))
    want = reference([S, P], {A: a})
    np.testing.assert_array_equal(got_p, want[1])


def test_tuple_update_binds_new_values_before_storing():
    red = _prefix_reducer()
    A = te.placeholder((3, 7), name="A", dtype="int32")
    k = te.reduce_axis((0, 7), "k")
    S, P = te.compute((3,), lambda i: red((A[i, k], A[i, k]), axis=k), name="T")
    s = te.create_schedule(S.op)
    body = lower_primfunc(s, [A, S, P]).body
    lets, stores = [], []

    def visit(n):
        name = type(n).__name__
        if name == "LetStmt":
            lets.append(n)
        elif name in ("BufferStore", "ProducerStore"):
            stores.append(n)
    post_order_visit(body, visit)
    assert len(lets) == 2                       # one temporary per value
    # the stores of the update read the temporaries, not the buffers
    update_stores = [st for st in stores if type(st.value).__name__ == "Var"]
    assert {st.value for st in update_stores} == {let.var for let in lets}


def test_multiout_with_condition():
    # TVM's test_tensor_reduce_multiout_with_cond, evaluated
    mysum = te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                            lambda t0, t1: (tir.const(0, t0), tir.const(1, t1)), name="mysum")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    cond = te.floormod(k, 2) == 0
    T0, T1 = te.compute((m,), lambda i: mysum((idx[i, k], val[i, k]), axis=k, where=cond),
                        name="T")
    s = te.create_schedule(T0.op)
    f = tepad.build(s, [idx, val, T0, T1])
    rng = np.random.default_rng(2)
    a = rng.integers(-20, 20, (4, 7)).astype("int32")
    b = rng.integers(-20, 20, (4, 7)).astype("int32")
    t0, t1 = np.zeros(4, "int32"), np.zeros(4, "int32")
    f(a, b, t0, t1)
    np.testing.assert_array_equal(t0, a[:, ::2].sum(axis=1))
    np.testing.assert_array_equal(t1, 1 + b[:, ::2].sum(axis=1))


def test_tuple_reduction_with_init():
    mysum = te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] * y[1]),
                            lambda t0, t1: (tir.const(0, t0), tir.const(1, t1)), name="sp")
    A = te.placeholder((3, 4), name="A", dtype="int32")
    I0 = te.placeholder((3,), name="I0", dtype="int32")
    k = te.reduce_axis((0, 4), "k")
    S, P = te.compute((3,), lambda i: mysum((A[i, k], A[i, k]), axis=k,
                                            init=(I0[i], tir.const(2, "int32"))), name="T")
    s = te.create_schedule(S.op)
    f = tepad.build(s, [A, I0, S, P])
    a = np.random.default_rng(3).integers(-3, 4, (3, 4)).astype("int32")
    i0 = np.array([5, -5, 7], "int32")
    got_s, got_p = np.zeros(3, "int32"), np.zeros(3, "int32")
    f(a, i0, got_s, got_p)
    np.testing.assert_array_equal(got_s, i0 + a.sum(axis=1))
    np.testing.assert_array_equal(got_p, 2 * a.prod(axis=1))
    ref_s, ref_p = reference([S, P], {A: a, I0: i0})
    np.testing.assert_array_equal(got_s, ref_s)
    np.testing.assert_array_equal(got_p, ref_p)


def test_reducer_on_two_expressions_applies_fcombine():
    # TVM's test_tensor_comm_reducer_overload
    m, n = te.size_var("m"), te.size_var("n")
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: tir.const(0, dtype=t))
    res = mysum(m, n)
    assert tepad.ir.structural_equal(res, m + n)
    three = mysum(m, n, m)                      # folded left to right
    assert tepad.ir.structural_equal(three, (m + n) + m)
    assert tepad.ir.structural_equal(te.sum(m, n), m + n)


def test_inline_into_multi_output_reduction():
    # TVM's test_inline_multi_reduce, lowered and evaluated
    argmax = _argmax_reducer()
    m, n = te.var("m"), te.var("n")
    val = te.placeholder((m, n), name="val", dtype="float32")
    val1 = te.compute((m, n), lambda i, j: val[i, j] + 1, name="val1")
    val2 = te.compute((m, n), lambda i, j: te.exp(val1[i, j]), name="val2")
    k = te.reduce_axis((0, n), "k")
    T_idx, T_val = te.compute((m,), lambda i: argmax((k.var, val2[i, k]), axis=k), name="T")
    s = te.create_schedule(T_idx.op)
    s[val1].compute_inline()
    s = s.normalize()
    bounds = te.schedule.InferBound(s)
    assert s[T_idx] is s[T_val]                 # the two outputs are one stage
    assert sum(st.op is s[T_idx].op for st in s.stages) == 1
    te.schedule.ScheduleOps(s, bounds)
    f = tepad.build(s, [val, T_idx, T_val])
    v = np.random.default_rng(4).standard_normal((3, 6)).astype("float32")
    idx, mx = np.zeros(3, "int32"), np.zeros(3, "float32")
    f(v, idx, mx)
    np.testing.assert_array_equal(idx, v.argmax(axis=1))
    np.testing.assert_allclose(mx, np.exp(v + 1).max(axis=1), rtol=1e-5)


def test_tuple_reduction_with_vectorized_data_loop_and_compute_at():
    argmax = _argmax_reducer()
    val = te.placeholder((16, 9), name="val")
    k = te.reduce_axis((0, 9), "k")
    T_idx, T_val = te.compute((16,), lambda i: argmax((k.var, val[i, k]), axis=k), name="T")
    O = te.compute((16,), lambda i: T_idx[i] * 2 + T_val[i].astype("int32"), name="O")
    s = te.create_schedule(O.op)
    io, ii = s[O].split(O.op.axis[0], factor=8)
    s[T_idx].compute_at(s[O], io)
    xo, xi = s[T_idx].split(s[T_idx].op.axis[0], factor=4)
    s[T_idx].reorder(xo, s[T_idx].op.reduce_axis[0], xi)
    s[T_idx].vectorize(xi)
    f = tepad.build(s, [val, O])
    v = np.random.default_rng(5).integers(-50, 50, (16, 9)).astype("float32")
    out = np.zeros(16, "int32")
    f(v, out)
    np.testing.assert_array_equal(out, v.argmax(axis=1) * 2 + v.max(axis=1).astype("int32"))


def test_unrelated_reductions_in_one_compute_are_refused():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TepadError, match="values of one tuple reduction"):
        te.compute((4,), lambda i: [te.sum(A[i, k], axis=k), te.max(A[i, k], axis=k)],
                   name="X")


def test_fcombine_with_wrong_arity_is_refused():
    bad = te.comm_reducer(lambda x, y: (x[0] + y[0],),
                          lambda a, b: (tir.const(0, a), tir.const(0, b)), name="bad")
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TepadError, match="bad: fcombine returned 1 values for a reduction of "
                                         "2 values"):
        bad((A[0, k], A[1, k]), axis=k)
