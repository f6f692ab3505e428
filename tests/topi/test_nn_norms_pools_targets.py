"""topi.nn's normalizations, nll_loss, pool_grad, pool3d / adaptive_pool3d, batched
matmul and einsum against numpy; and the per-target modules TVM programs name (arm_cpu,
gpu, hls / mali / bifrost, x86 dense_dynamic, cuda dense_int8)."""
import numpy as np
import pytest

from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import RNG, placeholder, rand, run


def _normed(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"),
                                          ("cuda", "cuda")])
def test_layer_rms_group_instance_norm(kind, target):
    x = rand((2, 4, 6))
    g, b = rand((4, 6)), rand((4, 6))
    gc, bc = rand((4,)), rand((4,))
    X, G, B, GC, BC = (placeholder(v, n) for v, n in
                       ((x, "X"), (g, "G"), (b, "B"), (gc, "GC"), (bc, "BC")))
    outs = [topi.nn.layer_norm(X, G, B, (1, 2)), topi.nn.rms_norm(X, G, (1, 2)),
            topi.nn.group_norm(X, GC, BC, 2, 1, (2,)),
            topi.nn.instance_norm(X, GC, None, 1)]
    sched = None if kind is None else getattr(topi, kind).schedule_reduce
    got = run(outs, [X, G, B, GC, BC], [x, g, b, gc, bc], sched, target)
    np.testing.assert_allclose(got[0], _normed(x, (1, 2)) * g + b, rtol=1e-4, atol=1e-5)
    rms = x / np.sqrt((x * x).mean(axis=(1, 2), keepdims=True) + 1e-5) * g
    np.testing.assert_allclose(got[1], rms, rtol=1e-4, atol=1e-5)
    grouped = _normed(x.reshape(2, 2, 2, 6), (2, 3)).reshape(2, 4, 6)
    np.testing.assert_allclose(got[2], grouped * gc[:, None] + bc[:, None], rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(got[3], _normed(x, (1,)) * gc[:, None], rtol=1e-4, atol=1e-5)


def test_norm_of_float16_uses_float32_statistics():
    x = (rand((3, 64)) * 50 + 1000).astype("float16")     # large mean: float16 sums overflow
    g = np.ones((64,), "float16")
    X, G = placeholder(x, "X"), placeholder(g, "G")
    got = run(topi.nn.layer_norm(X, G, None, 1), [X, G], [x, g])
    ref = _normed(x.astype("float64"), (1,))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype("float64"), ref, atol=2e-2)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss(reduction):
    pred = rand((4, 3, 2))
    tgt = np.array([[0, 2], [1, -100], [2, 2], [1, 0]], "int32")
    w = rand((3,), lo=0.5, hi=2.0)
    P, T, W = placeholder(pred, "P"), placeholder(tgt, "T"), placeholder(w, "W")
    got = run(topi.nn.nll_loss(P, T, W, reduction, -100), [P, T, W], [pred, tgt, w],
              topi.x86.schedule_reduce)
    keep = tgt != -100
    t = np.where(keep, tgt, 0)
    picked = np.take_along_axis(pred, t[:, None, :], axis=1)[:, 0]
    loss = np.where(keep, -picked * w[t], 0)
    ref = {"none": loss, "sum": loss.sum(), "mean": loss.sum() / np.where(keep, w[t], 0).sum()}
    np.testing.assert_allclose(got, ref[reduction], rtol=1e-5)


def _pool_grad_ref(x, og, k, s, pad, kind):
    n, c, h, w = x.shape
    pt, pl = pad[0], pad[1]
    xp = np.full((n, c, h + pad[0] + pad[2], w + pad[1] + pad[3]), -np.inf)
    xp[:, :, pt:pt + h, pl:pl + w] = x
    gp = np.zeros(xp.shape)
    for i in range(og.shape[2]):
        for j in range(og.shape[3]):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            for b in range(n):
                for ch in range(c):
                    if kind == "max":
                        r, q = np.unravel_index(np.argmax(win[b, ch]), win[b, ch].shape)
                        gp[b, ch, i * s + r, j * s + q] += og[b, ch, i, j]
                    else:
                        gp[b, ch, i * s:i * s + k, j * s:j * s + k] += og[b, ch, i, j] / k / k
    return gp[:, :, pt:pt + h, pl:pl + w]


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("x86", "llvm"),
                                          ("cuda", "cuda")])
def test_pool_grad(pool_type, kind, target):
    x = rand((1, 2, 7, 7))
    pad = [1, 1, 1, 1]
    X = placeholder(x, "X")
    y = topi.nn.pool2d(X, (3, 3), (2, 2), (1, 1), pad, pool_type)
    og = rand(tuple(int(d) for d in y.shape))
    OG = placeholder(og, "OG")
    grad = topi.nn.pool_grad(OG, X, (3, 3), (2, 2), pad, pool_type)
    sched = None if kind is None else getattr(topi, kind).schedule_pool_grad
    got = run(grad, [OG, X], [og, x], sched, target)
    np.testing.assert_allclose(got, _pool_grad_ref(x, og, 3, 2, pad, pool_type), rtol=1e-5,
                               atol=1e-6)


def test_pool3d_and_adaptive_pool3d():
    x = rand((1, 2, 4, 6, 5))
    X = placeholder(x, "X")
    outs = [topi.nn.pool3d(X, (2, 2, 2), (2, 2, 2), (1, 1, 1), [0] * 6, "max"),
            topi.nn.adaptive_pool3d(X, (2, 3, 1), "avg")]
    got = run(outs, [X], [x], lambda o: topi.x86.schedule_pool(o, "NCDHW"))
    ref = x[:, :, :, :, :4].reshape(1, 2, 2, 2, 3, 2, 2, 2).max(axis=(3, 5, 7))
    np.testing.assert_allclose(got[0], ref)
    ref = x.reshape(1, 2, 2, 2, 3, 2, 5).mean(axis=(3, 5, 6))[..., None]
    np.testing.assert_allclose(got[1], ref, rtol=1e-5)
    with pytest.raises(TepadError, match="Unsupported layout NCDHW4d"):
        topi.nn.pool3d(te.placeholder((1, 2, 3, 4, 5, 4)), (2, 2, 2), (1, 1, 1), (1, 1, 1),
                       [0] * 6, "max", layout="NCDHW4d")


def test_batched_matmul_and_einsum():
    a, b, bias = rand((2, 1, 3, 4)), rand((5, 2, 4)), rand((2,))
    p, q, r = rand((3, 3)), rand((4, 3, 5)), rand((4, 3))
    A, B, BI, P, Q, R = (placeholder(v, n) for v, n in
                         ((a, "A"), (b, "B"), (bias, "BI"), (p, "P"), (q, "Q"), (r, "R")))
    outs = [topi.nn.matmul(A, B, BI, transpose_b=True), topi.einsum("ii", P),
            topi.einsum("ij,kjl->ikl", P, Q), topi.einsum("...j,...jk", R, Q)]
    got = run(outs, [A, B, BI, P, Q, R], [a, b, bias, p, q, r],
              topi.generic.schedule_injective)
    np.testing.assert_allclose(got[0], a @ np.swapaxes(b, -1, -2) + bias, rtol=1e-5)
    np.testing.assert_allclose(got[1], np.einsum("ii", p), rtol=1e-5)
    np.testing.assert_allclose(got[2], np.einsum("ij,kjl->ikl", p, q), rtol=1e-5)
    np.testing.assert_allclose(got[3], np.einsum("...j,...jk", r, q), rtol=1e-5)
    with pytest.raises(TepadError, match="operand subscripts"):
        topi.einsum("ij,jk", P)
    with pytest.raises(TepadError, match="do not broadcast"):
        topi.einsum("...j,...jk", P, Q)


def test_foreign_target_modules_take_the_current_targets_schedule():
    a = rand((4, 16))
    A = placeholder(a, "A")
    out = topi.nn.softmax(A)
    for mod in (topi.hls, topi.mali, topi.bifrost):
        with Target("llvm"):
            s = mod.schedule_softmax(out)
        with Target("llvm"):
            ref = topi.x86.schedule_softmax(out)
        assert str(s.stages[-1].op) == str(ref.stages[-1].op)
        assert "generic" in mod.schedule_softmax.__doc__
    got = run(out, [A], [a], topi.hls.schedule_softmax, "cuda")
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_arm_cpu_gpu_and_dense_strategies():
    a, w = rand((3, 8)), rand((5, 8))
    A, W = placeholder(a, "A"), placeholder(w, "W")
    ref = a @ w.T
    for compute, sched, target in [
            (topi.nn.dense, topi.arm_cpu.schedule_dense, "llvm"),
            (topi.x86.dense_dynamic, topi.x86.schedule_dense_dynamic, "llvm"),
            (topi.gpu.dense_small_batch, topi.gpu.schedule_dense_small_batch, "cuda"),
            (topi.gpu.dense_large_batch, topi.gpu.schedule_dense_large_batch, "cuda")]:
        # float32 sums in another order (with or without FMA): a result near zero keeps
        # an absolute error of a few ulps of the terms
        np.testing.assert_allclose(run(compute(A, W), [A, W], [a, w], sched, target), ref,
                                   rtol=1e-5, atol=1e-6)
    sme = topi.arm_cpu.compute_matmul_sme(A, W, None, None, False, True)
    assert sme.op.attrs["schedule_type"] == "sme"
    np.testing.assert_allclose(run(sme, [A, W], [a, w], topi.arm_cpu.schedule_matmul), ref,
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="Transposed lhs"):
        topi.arm_cpu.compute_matmul_sme(A, W, None, None, True, True)
    with pytest.raises(TepadError, match="Rhs must be transposed"):
        h = te.placeholder((4, 4), "float16")
        topi.arm_cpu.compute_matmul_sme(h, h, None, None, False, False)
    with pytest.raises(TepadError, match="SME"):
        topi.arm_cpu.tir_schedule_matmul_sme(None)
    i8, w8 = (RNG.integers(-128, 127, s).astype("int8") for s in ((2, 16), (3, 16)))
    I8, W8 = placeholder(i8, "I8"), placeholder(w8, "W8")
    got = run(topi.cuda.dense_int8(I8, W8, out_dtype="int32"), [I8, W8], [i8, w8],
              topi.cuda.schedule_dense_int8, "cuda")
    np.testing.assert_array_equal(got, i8.astype("int32") @ w8.T.astype("int32"))


@pytest.mark.parametrize("is_sorted", [True, False])
@pytest.mark.parametrize("kind, target", [("generic", "llvm"), ("cuda", "cuda")])
def test_unique(is_sorted, kind, target):
    x = np.array([4, 1, 4, 7, 1, 1, 9, 4], "int32")
    X = placeholder(x, "X")
    outs = (topi.cuda.unique if kind == "cuda" else topi.unique)(X, is_sorted, True)
    got = run(outs, [X], [x], getattr(topi, kind).schedule_unique, target)
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True)
    if not is_sorted:                       # order of first appearance
        order = np.argsort(first)
        values, first, counts = values[order], first[order], counts[order]
        inverse = np.argsort(order)[inverse]
    k = len(values)
    assert got[3][0] == k
    np.testing.assert_array_equal(got[0][:k], values)
    np.testing.assert_array_equal(got[1][:k], first)
    np.testing.assert_array_equal(got[2], inverse)
    np.testing.assert_array_equal(got[4][:k], counts)
    np.testing.assert_array_equal(got[0][k:], 0)


@pytest.mark.parametrize("kind, target", [("generic", "llvm"), ("cuda", "cuda")])
def test_sort_argsort_topk(kind, target):
    x = np.array([[3.0, 1.0, 2.0, 1.0, 5.0], [0.5, -1.0, 0.5, 4.0, 2.0]], "float32")
    X = placeholder(x, "X")
    mod = getattr(topi, kind) if kind == "cuda" else topi
    outs = [mod.sort(X, axis=1), mod.argsort(X, axis=1, is_ascend=False, dtype="int32"),
            *mod.topk(X, 2, axis=1, ret_type="both", is_ascend=False, dtype="int32"),
            mod.sort(X, axis=0, is_ascend=False)]
    got = run(outs, [X], [x], getattr(topi, kind).schedule_sort, target)
    np.testing.assert_array_equal(got[0], np.sort(x, axis=1))
    stable_desc = np.argsort(-x, axis=1, kind="stable")        # ties keep their order
    np.testing.assert_array_equal(got[1], stable_desc)
    np.testing.assert_array_equal(got[3], stable_desc[:, :2])
    np.testing.assert_array_equal(got[2], np.take_along_axis(x, stable_desc[:, :2], axis=1))
    np.testing.assert_array_equal(got[4], -np.sort(-x, axis=0))
    with pytest.raises(TepadError, match="exceeds"):
        topi.topk(X, 9, axis=1)


def test_batch_matmul_strategies_and_int8_reference():
    x = RNG.integers(-128, 127, (2, 3, 16)).astype("int8")
    y = RNG.integers(-128, 127, (1, 4, 16)).astype("int8")
    X, Y = placeholder(x, "X"), placeholder(y, "Y")
    ref = x.astype("int32") @ np.swapaxes(y.astype("int32"), 1, 2)
    np.testing.assert_array_equal(topi.testing.batch_matmul(x, y, out_dtype="int32"), ref)
    got = run(topi.cuda.batch_matmul_int8(X, Y, None, "int32"), [X, Y], [x, y],
              topi.cuda.schedule_batch_matmul_int8, "cuda")
    np.testing.assert_array_equal(got, ref)
    a, b = rand((2, 3, 5)), rand((2, 4, 5))
    A, B = placeholder(a, "A"), placeholder(b, "B")
    got = run(topi.x86.batch_matmul(A, B), [A, B], [a, b], topi.x86.schedule_batch_matmul)
    np.testing.assert_allclose(got, a @ np.swapaxes(b, 1, 2), rtol=1e-5)


@pytest.mark.parametrize("kind, target", [("generic", "llvm"), ("cuda", "cuda")])
def test_cumsum_cumprod_searchsorted(kind, target):
    x = rand((3, 5))
    flags = RNG.random((7,)) > 0.5
    seq = np.sort(rand((3, 6)), axis=1)
    vals = np.concatenate([rand((3, 3)), seq[:, 1:3]], axis=1)     # exact hits: side matters
    X, F, S, V = (placeholder(v, n) for v, n in ((x, "X"), (flags, "F"), (seq, "S"),
                                                   (vals, "V")))
    mod = getattr(topi, kind) if kind == "cuda" else topi
    outs = [mod.cumsum(X, 1), mod.cumprod(X, 0, exclusive=True), mod.cumsum(F, dtype="int32"),
            mod.cumsum(X), mod.searchsorted(S, V, False, "int32"),
            mod.searchsorted(S, V, True, "int32")]
    sched = topi.cuda.schedule_scan if kind == "cuda" else topi.generic.schedule_extern
    got = run(outs, [X, F, S, V], [x, flags, seq, vals], sched, target)
    np.testing.assert_array_equal(got[0], np.cumsum(x, axis=1))
    excl = np.concatenate([np.ones((1, 5), "float32"), np.cumprod(x, axis=0)[:-1]])
    np.testing.assert_allclose(got[1], excl, rtol=1e-6)
    np.testing.assert_array_equal(got[2], np.cumsum(flags, dtype="int32"))
    np.testing.assert_allclose(got[3], np.cumsum(x), rtol=1e-6)
    for g, side in ((got[4], "left"), (got[5], "right")):
        np.testing.assert_array_equal(g, [np.searchsorted(s, v, side=side)
                                          for s, v in zip(seq, vals)])
    with pytest.raises(TepadError, match="leading axes"):
        topi.searchsorted(S, te.placeholder((2, 3)))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("cuda", "cuda")])
def test_depth_to_space_and_back(layout, kind, target):
    x = rand((1, 8, 2, 3))                                    # NCHW; 8 channels, block 2
    xin = x if layout == "NCHW" else np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    X = placeholder(xin, "X")
    outs = [topi.nn.depth_to_space(X, 2, layout, "DCR"),
            topi.nn.depth_to_space(X, 2, layout, "CDR")]
    outs.append(topi.nn.space_to_depth(outs[0], 2, layout))
    sched = None if kind is None else topi.cuda.schedule_injective
    got = run(outs, [X], [xin], sched, target)
    if layout == "NHWC":
        got = [g.transpose(0, 3, 1, 2) for g in got]
    dcr = np.empty((1, 2, 4, 6), "float32")
    cdr = np.empty((1, 2, 4, 6), "float32")
    for c in range(2):
        for h in range(4):
            for w in range(6):
                off = (h % 2) * 2 + w % 2
                dcr[0, c, h, w] = x[0, off * 2 + c, h // 2, w // 2]
                cdr[0, c, h, w] = x[0, c * 4 + off, h // 2, w // 2]
    np.testing.assert_array_equal(got[0], dcr)
    np.testing.assert_array_equal(got[1], cdr)
    np.testing.assert_array_equal(got[2], x)                  # space_to_depth undoes DCR
    with pytest.raises(TepadError, match="blocks"):
        topi.nn.depth_to_space(te.placeholder((1, 6, 2, 2)), 2)


@pytest.mark.parametrize("kind, target", [(None, "llvm"), ("cuda", "cuda")])
def test_fifo_buffer(kind, target):
    buf, new = rand((2, 5, 3)), rand((2, 2, 3))
    B, D = placeholder(buf, "B"), placeholder(new, "D")
    sched = None if kind is None else topi.cuda.schedule_injective
    got = run(topi.nn.fifo_buffer(D, B, axis=1), [D, B], [new, buf], sched, target)
    np.testing.assert_array_equal(got, np.concatenate([buf, new], axis=1)[:, 2:])
    with pytest.raises(TepadError, match="does not fit"):
        topi.nn.fifo_buffer(te.placeholder((2, 6, 3)), B, axis=1)
