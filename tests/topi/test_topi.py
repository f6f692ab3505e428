"""tepad.topi against numpy, computed independently."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tepad
from tepad import te, topi
from tepad.errors import TepadError

RNG = np.random.default_rng(7)


def build_run(outs, inputs, arrays, schedule=None):
    outs = outs if isinstance(outs, list) else [outs]
    s = schedule(outs) if schedule else te.create_schedule([o.op for o in outs])
    mod = tepad.build(s, list(inputs) + outs)
    results = [np.zeros([int(d) for d in o.shape], o.dtype) for o in outs]
    mod(*arrays, *results)
    return results if len(results) > 1 else results[0]


@pytest.mark.parametrize("op, ref", [(topi.add, np.add), (topi.subtract, np.subtract),
                                     (topi.multiply, np.multiply), (topi.divide, np.divide),
                                     (topi.maximum, np.maximum), (topi.minimum, np.minimum)])
def test_broadcasting_binary_ops(op, ref):
    A = te.placeholder((4, 1, 6), name="A")
    B = te.placeholder((5, 1), name="B")
    a = RNG.random((4, 1, 6), dtype="float32") + 0.5
    b = RNG.random((5, 1), dtype="float32") + 0.5
    C = op(A, B)
    assert [int(d) for d in C.shape] == [4, 5, 6]
    np.testing.assert_allclose(build_run(C, [A, B], [a, b], topi.generic.schedule_injective),
                               ref(a, b), rtol=1e-6)


def test_scalar_operand_and_bad_shapes():
    A = te.placeholder((8,), name="A")
    a = RNG.random(8, dtype="float32")
    np.testing.assert_allclose(build_run(topi.multiply(A, 3.0), [A], [a]), a * 3.0, rtol=1e-6)
    with pytest.raises(TepadError, match=r"do not broadcast \(dimension 0: 8 vs 3\)"):
        topi.add(A, te.placeholder((3,), name="B"))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_reductions(axis, keepdims):
    A = te.placeholder((3, 4, 5), name="A")
    a = RNG.random((3, 4, 5), dtype="float32")
    for op, ref in ((topi.sum, np.sum), (topi.max, np.max), (topi.min, np.min)):
        out = build_run(op(A, axis=axis, keepdims=keepdims), [A], [a])
        np.testing.assert_allclose(out, ref(a, axis=axis, keepdims=keepdims), rtol=1e-5)


def _pool_ref(x, k, s, d, pad, kind, layout, ceil_mode=False, count_include_pad=True):
    hx, wx = layout.index("H"), layout.index("W")
    x = np.moveaxis(x, (hx, wx), (-2, -1)).astype("float64")
    pt, pl, pb, pr = pad
    H, W = x.shape[-2:]
    ekh, ekw = (k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1
    if ceil_mode:
        pb += s[0] - 1
        pr += s[1] - 1
    oh, ow = (H + pt + pb - ekh) // s[0] + 1, (W + pl + pr - ekw) // s[1] + 1
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = [i * s[0] + r * d[0] - pt for r in range(k[0])]
            cols = [j * s[1] + c * d[1] - pl for c in range(k[1])]
            vals = [x[..., r, c] for r in rows for c in cols if 0 <= r < H and 0 <= c < W]
            if kind == "max":
                out[..., i, j] = np.max(vals, axis=0)
            else:
                total = np.sum(vals, axis=0)
                out[..., i, j] = total / (k[0] * k[1] if count_include_pad else len(vals))
    return np.moveaxis(out, (-2, -1), (hx, wx))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("pad, stride, ceil_mode, include", [
    ((0, 0, 0, 0), (1, 1), False, True), ((1, 1, 1, 1), (2, 2), False, True),
    ((1, 0, 1, 0), (2, 1), True, False)])
def test_pool2d(layout, kind, pad, stride, ceil_mode, include):
    shape = (1, 3, 9, 7) if layout == "NCHW" else (1, 9, 7, 3)
    A = te.placeholder(shape, name="A")
    a = RNG.random(shape, dtype="float32")
    P = topi.nn.pool2d(A, (3, 2), stride, (1, 1), pad, kind, ceil_mode=ceil_mode,
                       layout=layout, count_include_pad=include)
    want = _pool_ref(a, (3, 2), stride, (1, 1), pad, kind, layout, ceil_mode, include)
    np.testing.assert_allclose(build_run(P, [A], [a], topi.generic.schedule_pool), want,
                               rtol=1e-5)


def test_pool2d_stage_names_follow_tvm():
    A = te.placeholder((1, 8, 8, 4), name="A", dtype="int8")
    P = topi.nn.pool2d(A, (3, 3), (1, 1), (1, 1), (0, 0, 0, 0), "max", layout="NHWC")
    assert P.op.name == "tensor" and P.op.tag == "pool_max" and P.op.input_tensors == [A]
    Q = topi.nn.pool2d(A, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), "max", layout="NHWC")
    assert Q.op.input_tensors[0].op.name == "pad_temp"


def test_relu_dense_softmax_conv2d():
    X = te.placeholder((4, 10), name="X")
    W = te.placeholder((6, 10), name="W")
    b = te.placeholder((6,), name="b")
    x = RNG.standard_normal((4, 10)).astype("float32")
    w = RNG.standard_normal((6, 10)).astype("float32")
    bb = RNG.standard_normal(6).astype("float32")
    np.testing.assert_allclose(build_run(topi.nn.relu(X), [X], [x]), np.maximum(x, 0))
    np.testing.assert_allclose(build_run(topi.nn.dense(X, W, b), [X, W, b], [x, w, bb]),
                               x @ w.T + bb, rtol=1e-5, atol=1e-5)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(build_run(topi.nn.softmax(X), [X], [x]),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    I = te.placeholder((1, 3, 8, 8), name="I")
    F = te.placeholder((4, 3, 3, 3), name="F")
    i = RNG.standard_normal((1, 3, 8, 8)).astype("float32")
    f = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
    got = build_run(topi.nn.conv2d_nchw(I, F, 1, 1, 1), [I, F], [i, f])
    ip = np.pad(i, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = sliding_window_view(ip, (3, 3), axis=(2, 3))        # (1, 3, 8, 8, 3, 3)
    want = np.einsum("nchwyx,ocyx->nohw", win, f)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_pad():
    A = te.placeholder((3, 4), name="A")
    a = RNG.random((3, 4), dtype="float32")
    got = build_run(topi.nn.pad(A, (1, 2), (0, 1), pad_value=-1.0), [A], [a])
    np.testing.assert_array_equal(got, np.pad(a, ((1, 0), (2, 1)), constant_values=-1.0))
