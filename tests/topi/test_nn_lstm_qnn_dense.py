"""topi.nn.lstm, simulated (de)quantize, mirror_pad, dense_pack, softmax_common,
csr_transpose_ir and the relay hook generic functions, against numpy computed here."""
import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import RNG, placeholder, rand, run


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm_ref(x, wi, wh, bi, bh, h, c, layout, reverse, proj=None, peep=None):
    hidden = wi.shape[0] // 4
    hs, cs = [], []
    steps = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    for t in steps:
        pre = x[t] @ wi.T + bi + h @ wh.T + bh
        g = {ch: pre[:, k * hidden:(k + 1) * hidden] for k, ch in enumerate(layout)}
        pi, pf, po = peep if peep is not None else (0, 0, 0)
        i, f = _sigmoid(g["I"] + pi * c), _sigmoid(g["F"] + pf * c)
        c = f * c + i * np.tanh(g["G"])
        h = _sigmoid(g["O"] + po * c) * np.tanh(c)
        if proj is not None:
            h = h @ proj.T
        hs.append(h)
        cs.append(c)
    return np.array(hs), np.array(cs)


@pytest.mark.parametrize("layout, reverse, with_proj, with_peep",
                         [("IFGO", False, False, False), ("OIGF", True, True, True)])
def test_lstm(layout, reverse, with_proj, with_peep):
    seq, batch, ind, hid, pdim = 3, 2, 4, 5, 3
    out = pdim if with_proj else hid
    x, wi, wh = rand((seq, batch, ind)), rand((4 * hid, ind)), rand((4 * hid, out))
    bi, bh, h0, c0 = rand((4 * hid,)), rand((4 * hid,)), rand((batch, out)), rand((batch, hid))
    proj = rand((pdim, hid)) if with_proj else None
    peep = [rand((batch, hid)) for _ in range(3)] if with_peep else None
    arrays = [x, wi, wh, bi, bh, h0, c0] + ([proj] if with_proj else []) + (peep or [])
    P = [placeholder(a, f"p{k}") for k, a in enumerate(arrays)]
    kw = dict(Xs=P[0], Wi=P[1], Wh=P[2], Bi=P[3], Bh=P[4], h_init=P[5], c_init=P[6])
    rest = P[7:]
    if with_proj:
        kw["proj"], rest = rest[0], rest[1:]
    if with_peep:
        kw["p_i"], kw["p_f"], kw["p_o"] = rest
    hs, cs = topi.nn.lstm(**kw, reverse=reverse, weight_layout=layout)
    ref = _lstm_ref(x, wi, wh, bi, bh, h0, c0, layout, reverse, proj, peep)
    for sched in (None, topi.x86.schedule_lstm, topi.generic.schedule_lstm):
        got = run([hs, cs], P, arrays, sched)
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-5, atol=1e-5)
    ref_py = topi.testing.lstm_python(x, wi, wh, bi, bh, h0, c0, proj, *(peep or [None] * 3),
                                      reverse=reverse, weight_layout=layout)
    np.testing.assert_allclose(ref_py[0], ref[0], rtol=1e-5, atol=1e-6)


def test_lstm_refuses_a_bad_layout():
    x, w = te.placeholder((2, 1, 3), name="X"), te.placeholder((8, 3), name="W")
    with pytest.raises(TepadError, match="permutation of 'IFGO'"):
        topi.nn.lstm(x, w, te.placeholder((8, 2), name="H"), weight_layout="IFGG")


def _sim_q_build():
    X = te.placeholder((2, 5), name="X")
    D = te.placeholder((), "int32", "D")
    S = te.placeholder((te.size_var("s"),), name="S")
    Z = te.placeholder((te.size_var("z"),), "int32", "Z")
    Q = topi.nn.simulated_quantize(X, D, S, Z, axis=1)
    DQ = topi.nn.simulated_dequantize(X, D, S, Z, axis=-1)
    with Target("llvm"):
        s = topi.testing.get_injective_schedule("llvm")([Q, DQ])
    return tepad.build(s, [X, D, S, Z, Q, DQ], "llvm")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "disable"])
@pytest.mark.parametrize("per_channel", [True, False])
def test_simulated_quantize_dequantize(dtype, per_channel):
    f = _sim_q_build()
    x = rand((2, 5), lo=-20, hi=20)
    n = 5 if per_channel else 1
    scale = rand((n,), lo=0.05, hi=0.2)
    zp = RNG.integers(-10, 10, n).astype("int32")
    q, dq = np.zeros_like(x), np.zeros_like(x)
    code = np.array(topi.nn.SQNN_DTYPE_TO_CODE[dtype], "int32")
    outs = [tepad.nd.array(q), tepad.nd.array(dq)]
    f(*(tepad.nd.array(a) for a in (x, code, scale, zp)), *outs)
    if dtype == "disable":
        np.testing.assert_array_equal(outs[0].numpy(), x)
        np.testing.assert_array_equal(outs[1].numpy(), x)
        return
    info = np.iinfo(dtype)
    ref = np.clip(np.round(x / scale) + zp, info.min, info.max)
    np.testing.assert_array_equal(outs[0].numpy(), ref.astype("float32"))
    np.testing.assert_allclose(outs[1].numpy(), (x - zp) * scale, rtol=1e-6)
    assert topi.nn.SQNN_CODE_TO_DTYPE[int(code)] == dtype


@pytest.mark.parametrize("mode", ["SYMMETRIC", "REFLECT"])
@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_mirror_pad(mode, target):
    a = rand((3, 4))
    A = placeholder(a, "A")
    out = topi.nn.mirror_pad(A, [2, 0], [1, 3], mode)
    sched = topi.x86.schedule_injective if target == "llvm" else topi.cuda.schedule_injective
    got = run(out, [A], [a], sched, target)
    np.testing.assert_array_equal(got, np.pad(a, ((2, 1), (0, 3)), mode.lower()))


def test_mirror_pad_errors():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(TepadError, match="at most 2"):
        topi.nn.mirror_pad(A, [3, 0], mode="REFLECT")
    with pytest.raises(TepadError, match="SYMMETRIC"):
        topi.nn.mirror_pad(A, [1, 1], mode="EDGE")


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_dense_pack(target):
    m, k, n, bn = 6, 16, 12, 4
    a, w, b = rand((m, k)), rand((n, k)), rand((n,))
    wp = np.ascontiguousarray(w.reshape(n // bn, bn, k).transpose(0, 2, 1))
    A, W, B = placeholder(a, "A"), placeholder(wp, "W"), placeholder(b, "B")
    out = topi.nn.dense_pack(A, W, B)
    assert out.op.input_tensors[0].op.tag == "dense_pack"
    sched = topi.x86.schedule_dense_pack if target == "llvm" else topi.cuda.schedule_dense
    np.testing.assert_allclose(run(out, [A, W, B], [a, wp, b], sched, target), a @ w.T + b,
                               rtol=1e-5, atol=1e-5)


def test_dense_default_batch_matmul_default_and_layout_arguments():
    a, w, y = rand((3, 4)), rand((5, 4)), rand((2, 5, 4))
    x = rand((2, 3, 4))
    A, W, X, Y = placeholder(a, "A"), placeholder(w, "W"), placeholder(x, "X"), placeholder(y, "Y")
    np.testing.assert_allclose(run(topi.nn.dense_default(A, W), [A, W], [a, w]), a @ w.T,
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(topi.nn.batch_matmul_default(X, Y), [X, Y], [x, y]),
                               x @ y.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    topi.nn.dense(A, W, None, None, "", None)
    with pytest.raises(TepadError, match="rewritten weight layout"):
        topi.nn.dense(A, W, auto_scheduler_rewritten_layout="NK16n")


def test_softmax_common():
    x = rand((3, 7))
    X = placeholder(x, "X")
    e = np.exp(x - x.max(axis=1, keepdims=True))
    for fast in (False, True):
        out = topi.nn.softmax_common(X, -1, fast)
        assert out.op.name == "T_softmax_norm"
        np.testing.assert_allclose(run(out, [X], [x]), e / e.sum(axis=1, keepdims=True),
                                   rtol=1e-5)


def test_csr_transpose_ir():
    dense_m = np.array([[0, 2, 0], [1, 0, 3], [0, 4, 0]], "float32")
    rows, cols = np.nonzero(dense_m)
    data, indices = dense_m[rows, cols], cols.astype("int32")
    indptr = np.array([0, 1, 3, 4], "int32")
    ins = [placeholder(v, n) for v, n in ((data, "d"), (indices, "i"), (indptr, "p"))]
    outs = te.extern([(4,), (4,), (4,)], ins,
                     lambda i, o: topi.nn.csr_transpose_ir(*i, *o),
                     dtype=["float32", "int32", "int32"], name="t")
    got = run(list(outs), ins, [data, indices, indptr],
              out_shapes=[(4,), (4,), (4,)])
    t = dense_m.T
    r, c = np.nonzero(t)
    np.testing.assert_array_equal(got[0], t[r, c])
    np.testing.assert_array_equal(got[1], c)
    np.testing.assert_array_equal(got[2], [0, 1, 3, 4])


@pytest.mark.parametrize("hook, nargs", [
    ("dense_legalize", 3), ("dense_alter_layout", 4), ("matmul_legalize", 3),
    ("batch_matmul_legalize", 3), ("qnn_conv2d_alter_layout", 4), ("bias_add_legalize", 3),
    ("add_alter_layout", 4), ("qnn_requantize_alter_layout", 4),
    ("qnn_dense_alter_layout", 4), ("bitserial_conv2d_legalize", 3)])
def test_relay_hooks_return_none_unless_registered(hook, nargs):
    f = getattr(topi.nn, hook)
    assert f(*([None] * nargs)) is None
    assert topi.nn.POOL_TYPE_CODE == {"avg": 0, "max": 1}
    assert topi.nn.logger.name == "topi"
