"""TVM's gallery tutorials work_with_schedules/tuple_inputs.py and reduction.py (the part
before the CUDA thread binding), run end to end on the CPU and checked against numpy."""
import numpy as np

import tepad
from tepad import te, tir


RNG = np.random.default_rng(15)


def test_tuple_inputs_batchwise_compute():
    n, m = te.var("n"), te.var("m")
    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A1[i, j] * 3), name="B")
    s = te.create_schedule(B0.op)
    text = str(tepad.lower(s, [A0, A1, B0, B1], simple_mode=True))
    assert text.count("for ") == 2           # one loop nest computes both outputs
    f = tepad.build(s, [A0, A1, B0, B1])
    a0, a1 = RNG.standard_normal((2, 4, 6)).astype("float32")
    b0, b1 = np.zeros_like(a0), np.zeros_like(a0)
    f(a0, a1, b0, b1)
    np.testing.assert_allclose(b0, a0 + 2, rtol=1e-6)
    np.testing.assert_allclose(b1, a1 * 3, rtol=1e-6)


def test_tuple_inputs_argmax_reduction():
    def fcombine(x, y):
        lhs = tir.Select(x[1] >= y[1], x[0], y[0])
        rhs = tir.Select(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    s = te.create_schedule(T0.op)
    assert "for k" in str(tepad.lower(s, [idx, val, T0, T1], simple_mode=True))
    f = tepad.build(s, [idx, val, T0, T1])
    iv = np.tile(np.arange(7, dtype="int32") * 10, (5, 1))
    vv = RNG.permutation(35).reshape(5, 7).astype("int32")
    t0, t1 = np.zeros(5, "int32"), np.zeros(5, "int32")
    f(iv, vv, t0, t1)
    np.testing.assert_array_equal(t0, vv.argmax(axis=1) * 10)
    np.testing.assert_array_equal(t1, vv.max(axis=1))


def test_tuple_inputs_schedule_together():
    n, m = te.var("n"), te.var("m")
    A0 = te.placeholder((m, n), name="A0")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A0[i, j] * 3), name="B")
    A1 = te.placeholder((m, n), name="A1")
    C = te.compute((m, n), lambda i, j: A1[i, j] + B0[i, j], name="C")
    s = te.create_schedule(C.op)
    s[B0].compute_at(s[C], C.op.axis[0])
    assert s[B1].attach_stage is s[C]        # both outputs move: one stage
    tepad.lower(s, [A0, A1, C], simple_mode=True)
    f = tepad.build(s, [A0, A1, C])
    a0, a1 = RNG.standard_normal((2, 3, 5)).astype("float32")
    c = np.zeros_like(a0)
    f(a0, a1, c)
    np.testing.assert_allclose(c, a1 + a0 + 2, rtol=1e-6)


def _row_sum():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return A, B


def _check_row_sum(s, A, B, shape=(70, 53)):
    f = tepad.build(s, [A, B])
    a = RNG.uniform(size=shape).astype("float32")
    b = np.zeros(shape[0], "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4)


def test_reduction_default_and_split_schedules():
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    tepad.lower(s, [A, B], simple_mode=True)
    _check_row_sum(s, A, B)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    text = str(tepad.lower(s, [A, B], simple_mode=True))
    assert all(loop in text for loop in ("i_outer", "i_inner", "k_outer", "k_inner"))
    _check_row_sum(s, A, B)


def test_reduction_rfactor_and_parallel_factored_stage():
    A, B = _row_sum()
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    tepad.lower(s, [A, B], simple_mode=True)
    body = s[B].op.body
    assert len(body) == 1 and body[0].source[0].producer == BF   # B sums B.rf
    assert BF.op.name == "B.rf"
    _check_row_sum(s, A, B)
    # without thread bindings: the factored axis runs in parallel, B's rows are split
    xo, xi = s[B].split(s[B].op.axis[0], factor=32)
    s[BF].compute_at(s[B], xo)
    s[BF].parallel(s[BF].leaf_iter_vars[0])
    _check_row_sum(s, A, B)


def test_reduction_convolution_as_2d_reduction():
    n = te.var("n")
    Input = te.placeholder((n, n), name="Input")
    Filter = te.placeholder((3, 3), name="Filter")
    di = te.reduce_axis((0, 3), name="di")
    dj = te.reduce_axis((0, 3), name="dj")
    Output = te.compute(
        (n - 2, n - 2),
        lambda i, j: te.sum(Input[i + di, j + dj] * Filter[di, dj], axis=[di, dj]),
        name="Output")
    s = te.create_schedule(Output.op)
    f = tepad.build(s, [Input, Filter, Output])
    x = RNG.standard_normal((9, 9)).astype("float32")
    w = RNG.standard_normal((3, 3)).astype("float32")
    out = np.zeros((7, 7), "float32")
    f(x, w, out)
    want = sum(x[a:a + 7, b:b + 7] * w[a, b] for a in range(3) for b in range(3))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_reduction_general_commutative_reducer():
    n, m = te.var("n"), te.var("m")
    product = te.comm_reducer(lambda x, y: x * y, lambda t: tir.const(1, dtype=t),
                              name="product")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: product(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    f = tepad.build(s, [A, B])
    a = RNG.uniform(0.5, 1.5, size=(4, 6)).astype("float32")
    b = np.zeros(4, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.prod(axis=1), rtol=1e-5)
