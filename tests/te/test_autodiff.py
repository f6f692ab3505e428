"""te.gradient against finite differences (TVM's test_te_autodiff cases), the IR shape of
matmul and conv2d adjoints (gathers, no Jacobian), head=None (the full Jacobian) and errors."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.tensor.derivative import derivative

from autodiff_helpers import check_grad, shape_of

SHAPE = (10, 10)
F = "float64"


@pytest.fixture
def A0():
    return te.placeholder(SHAPE, F, name="A0")


@pytest.fixture
def A1():
    return te.placeholder(SHAPE, F, name="A1")


def k_axis(name="k"):
    return te.reduce_axis((0, 10), name=name)


def test_elementwise(A0, A1):
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j], name="B"), [A0])
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j] + A1[i, j], name="B"), [A0, A1])
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j] + A0[j, i], name="B"), A0)
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j] * A0[j, i], name="B"), A0)
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j] * (A1[j, i] + A0[j, i]), name="B"),
               [A0, A1])
    check_grad(te.compute(SHAPE, lambda i, j: A0[i, j] / (A1[i, j] * A1[i, j] + 1.0),
                          name="B"), [A0, A1])


@pytest.mark.parametrize("fn", [te.floor, te.ceil, te.trunc, te.round])
def test_piecewise_constant_functions_have_zero_gradient(A0, fn):
    B = te.compute(SHAPE, lambda i, j: fn(A0[i, j]), name="B")
    check_grad(B, A0, desired=[np.zeros(SHAPE)])


@pytest.mark.parametrize("body,data_range", [
    (lambda A: lambda i, j: A[i, j] + te.exp(A[j, i]), (-4, 4)),
    (lambda A: lambda i, j: te.log(0.1 + te.abs(A[i, j] + te.exp(A[j, i]))), (-4, 4)),
    (lambda A: lambda i, j: te.sigmoid(A[i, j] * A[i, j] * A[j, i]), (-1, 1)),
    (lambda A: lambda i, j: te.tanh(A[i, j] * A[i, j] * A[j, i]), (-1, 1)),
    (lambda A: lambda i, j: te.sqrt(A[i, j] * A[i, j] * A[j, i]), (0.1, 10)),
    (lambda A: lambda i, j: te.power(te.abs(A[i, j]), A[j, i]), (-4, 4)),
    (lambda A: lambda i, j: te.sin(A[i, j]) * te.cos(A[j, i]) + te.erf(A[i, j]), (-2, 2)),
    (lambda A: lambda i, j: te.max(A[i, j], A[j, i]) - te.min(A[i, j], 0.5), (-2, 2)),
    (lambda A: lambda i, j: te.if_then_else(A[i, j] > 0, A[i, j] * A[i, j], -A[j, i]),
     (-2, 2)),
])
def test_math_functions(A0, body, data_range):
    check_grad(te.compute(SHAPE, body(A0), name="B"), A0, data_range=data_range)


def test_reductions(A0, A1):
    k = k_axis()
    check_grad(te.compute((10,), lambda i: te.sum(A0[i, k] * A0[k, i], axis=k), name="B"), A0)
    k = k_axis()
    check_grad(te.compute(SHAPE, lambda i, j: te.sum(A0[i, k] * A0[k, i] + 5, axis=k),
                          name="B"), A0)
    k = k_axis()
    check_grad(te.compute(SHAPE, lambda i, j: te.max(A0[i, k] * A0[k, j] + 5, axis=k),
                          name="B"), A0)
    k = k_axis()
    check_grad(te.compute(SHAPE, lambda i, j: te.min(A0[i, k] - A1[k, j], axis=k),
                          name="B"), [A0, A1])
    k = k_axis()
    check_grad(te.compute(SHAPE, lambda i, j: te.sum(
        A0[k, k] - A0[te.min(j + k, 9), j] * A0[i, k], axis=k), name="B"), A0)
    k = k_axis()
    check_grad(te.compute((10,), lambda i: te.sum(A0[i, k] * A0[k, i], axis=k, init=0.0),
                          name="B"), A0)
    k = k_axis()
    check_grad(te.compute((10,), lambda i: te.sum(A0[i, k], axis=k, where=k > i), name="B"),
               A0)


def test_prod_reducer(A0):
    prod = te.comm_reducer(lambda x, y: x * y, lambda t: tir.const(1, t), name="prod")
    k = k_axis()
    B = te.compute(SHAPE, lambda i, j: prod(A0[i, k] + A0[k, i], axis=k), name="B")
    check_grad(B, A0, data_range=(-2, 2), rtol=1e-4, atol=1e-6)


def test_max_with_ties_sends_the_gradient_to_one_element():
    X = te.placeholder((4, 6), F, name="X")
    k = te.reduce_axis((0, 6), name="k")
    R = te.compute((4, 6), lambda i, j: te.max(X[i, j], 0.0), name="relu")
    M = te.compute((4,), lambda i: te.max(R[i, k], axis=k), name="M")
    ones = te.compute((4,), lambda i: tir.const(1.0, F), name="ones")
    (g,) = te.gradient(M, [X], head=ones)
    f = tepad.build(te.create_schedule(g.op), [X, g])
    x = -np.ones((4, 6))               # rows 0 and 3: relu outputs tie at 0 (no gradient)
    x[1, 3] = 2.0
    x[2, :] = 5.0                      # row 2: six maxima tie; the first one gets it all
    out = np.zeros((4, 6))
    f(x, out)
    assert out[1, 3] == 1.0 and out[1].sum() == 1.0
    assert out[2, 0] == 1.0 and out[2].sum() == 1.0
    assert out[0].sum() == out[3].sum() == 0.0


def test_chains_reuse_and_contractions():
    X = te.placeholder((10,), F, name="X")
    A = te.compute((10,), lambda i: X[i] + X[9 - i], name="A")
    B = te.compute((10,), lambda i: X[i] * X[9 - i], name="B")
    k = te.reduce_axis((0, 10), name="k")
    Y = te.compute((1,), lambda _: te.sum(A[k] * B[k], axis=k), name="Y")
    check_grad(Y, X)
    M = te.placeholder((3, 3), F, name="M")
    t = te.reduce_axis((0, 3), name="t")
    trace = te.compute((1,), lambda _: te.sum(M[t, t], axis=t), name="trace")
    check_grad(trace, M, desired=[np.eye(3)])
    W = te.placeholder((10, 7), F, name="W")
    k = te.reduce_axis((0, 10), name="k")
    H = te.compute((10, 7), lambda i, j: te.sum(A[k] * W[k, j] * B[i], axis=k), name="H")
    Z = te.compute((10, 7), lambda i, j: te.exp(H[i, j] * 0.001), name="Z")
    check_grad(Z, [X, W], data_range=(-2, 2))


def test_conv2d_and_pooling_shapes():
    X = te.placeholder((1, 2, 7, 7), F, name="X")
    K = te.placeholder((3, 2, 3, 3), F, name="K")
    rc, rh, rw = (te.reduce_axis((0, n), name=nm) for n, nm in ((2, "rc"), (3, "rh"), (3, "rw")))
    Y = te.compute((1, 3, 3, 3), lambda n, f, h, w: te.sum(
        X[n, rc, h * 2 + rh, w * 2 + rw] * K[f, rc, rh, rw], axis=[rc, rh, rw]), name="conv")
    gx, gk = check_grad(Y, [X, K], data_range=(-1, 1))
    ph, pw = te.reduce_axis((0, 2), name="ph"), te.reduce_axis((0, 2), name="pw")
    P = te.compute((1, 2, 3, 3), lambda n, c, h, w: te.max(
        X[n, c, h * 2 + ph, w * 2 + pw], axis=[ph, pw]), name="pool")
    check_grad(P, X)


def test_matmul_adjoint_is_one_contraction_per_input():
    A = te.placeholder((8, 6), "float32", name="A")
    W = te.placeholder((6, 5), "float32", name="W")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((8, 5), lambda i, j: te.sum(A[i, k] * W[k, j], axis=k), name="C")
    H = te.placeholder((8, 5), "float32", name="H")
    gA, gW = te.gradient(C, [A, W], head=H)
    for g, free in ((gA, 5), (gW, 8)):
        (red,) = g.op.body
        assert isinstance(red, tir.Reduce) and len(red.axis) == 1
        assert int(red.axis[0].dom.extent) == free          # O(n^3): one summed axis
        assert not g.op.input_tensors[0].op.input_tensors    # reads H and A/W directly
    f = tepad.build(te.create_schedule([gA.op, gW.op]), [H, A, W, gA, gW])
    rng = np.random.RandomState(0)
    h, a, w = (rng.rand(*s).astype("float32") for s in ((8, 5), (8, 6), (6, 5)))
    ga, gw = np.zeros((8, 6), "float32"), np.zeros((6, 5), "float32")
    f(h, a, w, ga, gw)
    np.testing.assert_allclose(ga, h @ w.T, rtol=1e-5)
    np.testing.assert_allclose(gw, a.T @ h, rtol=1e-5)


def test_conv_adjoint_gathers_over_the_window_only():
    X = te.placeholder((1, 3, 8, 8), "float32", name="X")
    K = te.placeholder((4, 3, 3, 3), "float32", name="K")
    rc, rh, rw = (te.reduce_axis((0, 3), name=n) for n in ("rc", "rh", "rw"))
    Y = te.compute((1, 4, 6, 6), lambda n, f, h, w: te.sum(
        X[n, rc, h + rh, w + rw] * K[f, rc, rh, rw], axis=[rc, rh, rw]), name="Y")
    (gx,) = te.gradient(Y, [X], head=te.placeholder((1, 4, 6, 6), name="HY"))
    (red,) = gx.op.body
    assert sorted(int(a.dom.extent) for a in red.axis) == [3, 3, 4]    # f, rh, rw


def test_head_none_gives_the_jacobian():
    X = te.placeholder((3,), F, name="X")
    Y = te.compute((2,), lambda i: X[i] * X[i + 1], name="Y")
    (jac,) = te.gradient(Y, X)
    assert shape_of(jac) == [2, 3]
    f = tepad.build(te.create_schedule(jac.op), [X, jac])
    x = np.array([1.0, 2.0, 3.0])
    out = np.zeros((2, 3))
    f(x, out)
    np.testing.assert_allclose(out, [[2, 1, 0], [0, 3, 2]])


def test_unreached_input_has_a_zero_gradient_and_output_itself():
    X = te.placeholder((4,), F, name="X")
    Z = te.placeholder((4,), F, name="Z")
    Y = te.compute((4,), lambda i: X[i] * 3.0, name="Y")
    ones = te.compute((4,), lambda i: tir.const(1.0, F), name="ones")
    gz, gy = te.gradient(Y, [Z, Y], head=ones)
    assert gy is ones
    f = tepad.build(te.create_schedule(gz.op), [gz])
    out = np.ones(4)
    f(out)
    np.testing.assert_array_equal(out, 0)


def test_derivative_rules():
    A = te.placeholder((4,), F, name="A")
    a = A[0]
    assert derivative(A[1] * 2.0, a) is None
    d = derivative(a * a, a)
    assert tir.structural_equal(d, a + a) or "A[0]" in str(d)


def test_mistakes():
    X = te.placeholder((4,), "int32", name="Xi")
    Y = te.compute((4,), lambda i: X[i] * 2, name="Y")
    with pytest.raises(tepad.TepadError, match="input Xi has dtype int32"):
        te.gradient(Y, [X])
    A = te.placeholder((4,), F, name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    with pytest.raises(tepad.TepadError, match="head H has shape"):
        te.gradient(B, [A], head=te.placeholder((3,), F, name="H"))
    E = te.extern((4,), [A], lambda ins, outs: tir.Evaluate(0), name="E", dtype=F)
    C = te.compute((4,), lambda i: E[i] * 2.0, name="C")
    with pytest.raises(tepad.TepadError, match="ExternOp E lies between"):
        te.gradient(C, [A])
    k = te.reduce_axis((0, 4), name="k")
    argmax = te.comm_reducer(lambda x, y: (tir.select(x[1] >= y[1], x[0], y[0]),
                                           tir.select(x[1] >= y[1], x[1], y[1])),
                             lambda t0, t1: (tir.const(-1, t0), te.min_value(t1)))
    idx, val = te.compute((1,), lambda _: argmax((k, A[k]), axis=k), name="am")
    with pytest.raises(tepad.TepadError, match="tuple reducer"):
        te.gradient(val, [A])


def test_topi_operators():
    from tepad import topi
    X = te.placeholder((1, 2, 6, 6), F, name="X")
    W = te.placeholder((3, 2, 3, 3), F, name="W")
    check_grad(topi.nn.conv2d_nchw(X, W, 1, 1, 1), [X, W], data_range=(-1, 1))
    check_grad(topi.nn.relu(topi.nn.conv2d_nchw(X, W, 2, 0, 1)), [X, W], data_range=(-1, 1))
    check_grad(topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max"), X)
    check_grad(topi.nn.pool2d(X, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), "avg"), X)
    D = te.placeholder((4, 5), F, name="D")
    Wd = te.placeholder((3, 5), F, name="Wd")
    b = te.placeholder((3,), F, name="b")
    check_grad(topi.nn.dense(D, Wd, b), [D, Wd, b])
    check_grad(topi.nn.softmax(D), [D], data_range=(-2, 2))
    check_grad(topi.sum(D * D), D)
    check_grad(2.0 * D + 1.0, D)


def test_symbolic_shapes_and_a_given_head():
    n = te.size_var("n")
    A = te.placeholder((n, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="B")
    H = te.placeholder((n,), name="H")
    (g,) = te.gradient(B, [A], head=H)
    assert not isinstance(g.op.body[0], tir.Reduce)       # the k sum is solved away
    f = tepad.build(te.create_schedule(g.op), [H, A, g])
    a = np.random.RandomState(0).rand(5, 4).astype("float32")
    h = np.random.RandomState(1).rand(5).astype("float32")
    out = np.zeros_like(a)
    f(h, a, out)
    np.testing.assert_allclose(out, 2 * a * h[:, None], rtol=1e-6)


def test_multi_output_compute():
    X = te.placeholder((6,), F, name="X")
    P, Q = te.compute((6,), lambda i: [X[i] * X[i], te.exp(X[i] * 0.1)], name="PQ")
    Y = te.compute((6,), lambda i: P[i] + Q[5 - i] * 3.0, name="Y")
    check_grad(Y, X)


def test_max_over_a_dilated_window_reads_the_extreme_point_in_range():
    # y[o] = max_r x[o + 2 r]: for an x position the solved o = x - 2 r leaves the output's
    # range at the edges; the argmax of o is read only where o exists
    X = te.placeholder((1, 1, 7, 7), name="X", dtype="float64")
    rh = te.reduce_axis((0, 2), name="rh")
    rw = te.reduce_axis((0, 2), name="rw")
    Y = te.compute((1, 1, 5, 5), lambda n, c, h, w: te.max(X[n, c, h + 2 * rh, w + 2 * rw],
                                                          axis=[rh, rw]), name="Y")
    check_grad(Y, [X])
    P = tepad.topi.nn.pool2d(X, [2, 2], [1, 1], [2, 2], [0, 0, 0, 0], "max")
    check_grad(P, [X])
