"""Winograd convolutions (topi.nn.conv2d_winograd_*, the weight transforms, the cuda
entries) against numpy's direct convolution, the Cook-Toom matrices against a direct 1-D
correlation, the GEMM weight layout, and the conv relay hooks' generic-function defaults."""
import numpy as np
import pytest

import tepad
from tepad import te, topi
from tepad.topi.nn.winograd_util import winograd_matrices_np
from topi_helpers import placeholder, rand
from topi_helpers import run as _run


def run(outs, inputs, arrays, *args, **kwargs):
    return _run(outs, inputs, [np.ascontiguousarray(a) for a in arrays], *args, **kwargs)


def _conv_nchw(x, w, pads):
    """Direct correlation: x (N, C, H, W) padded by pads (t, l, b, r), w (O, C, K, K)."""
    pt, pl, pb, pr = pads
    xp = np.pad(x.astype("float64"), [(0, 0), (0, 0), (pt, pb), (pl, pr)])
    k = w.shape[2]
    oh, ow = xp.shape[2] - k + 1, xp.shape[3] - w.shape[3] + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(k):
        for j in range(w.shape[3]):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow],
                             w[:, :, i, j].astype("float64"))
    return out


@pytest.mark.parametrize("m,r", [(2, 3), (4, 3), (6, 3), (2, 5), (4, 7), (3, 2)])
def test_cook_toom_matrices(m, r):
    A, B, G = winograd_matrices_np(m, r)
    assert A.shape == (m + r - 1, m) and B.shape == (m + r - 1,) * 2 and G.shape == (m + r - 1, r)
    rng = np.random.default_rng(m * 10 + r)
    for _ in range(3):
        d, g = rng.random(m + r - 1), rng.random(r)
        direct = np.array([np.dot(d[k:k + r], g) for k in range(m)])
        np.testing.assert_allclose(A.T @ ((G @ g) * (B.T @ d)), direct, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
@pytest.mark.parametrize("n,c,h,o,k,pad", [(1, 3, 6, 4, 3, 1), (2, 2, 7, 3, 3, (1, 0, 1, 1)),
                                           (1, 2, 5, 2, 3, "VALID"), (1, 2, 9, 3, 5, 2)])
def test_conv2d_winograd_nchw(n, c, h, o, k, pad, target):
    x, w = rand((n, c, h, h)), rand((o, c, k, k))
    pads = topi.nn.get_pad_tuple(pad, (k, k))
    ref = _conv_nchw(x, w, pads)
    A, W = placeholder(x, "A"), placeholder(w, "W")
    sched = None if target == "plain" else (
        topi.x86.schedule_conv2d_winograd if target == "llvm" else
        topi.cuda.schedule_conv2d_nchw_winograd)
    tgt = "llvm" if target == "plain" else target
    C = topi.nn.conv2d_winograd_nchw(A, W, 1, pad, 1, "float32")
    names = {t.op.name for t in _stages(C)}
    assert {"data_pad", "input_tile", "data_pack", "kernel_pack", "bgemm", "inverse"} <= names
    np.testing.assert_allclose(run(C, [A, W], [x, w], sched, tgt), ref, rtol=1e-3, atol=1e-4)
    # with a bias and relu epilogue
    bias = rand((o, 1, 1))
    Bs = placeholder(bias, "bias")
    R = topi.nn.relu(topi.add(C, Bs))
    np.testing.assert_allclose(run(R, [A, W, Bs], [x, w, bias], sched, tgt),
                               np.maximum(ref + bias, 0), rtol=1e-3, atol=1e-4)


def _stages(t):
    seen, out, todo = set(), [], [t]
    while todo:
        x = todo.pop()
        if x.op in seen:
            continue
        seen.add(x.op)
        out.append(x)
        todo.extend(x.op.input_tensors)
    return out


def test_conv2d_winograd_nhwc_and_precomputed():
    x, w = rand((1, 6, 6, 3)), rand((3, 3, 3, 4))          # NHWC, HWIO
    ref = _conv_nchw(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (1, 1, 1, 1))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    C = topi.nn.conv2d_winograd_nhwc(A, W, 1, 1, 1, "float32")
    np.testing.assert_allclose(run(C, [A, W], [x, w]), ref.transpose(0, 2, 3, 1),
                               rtol=1e-3, atol=1e-4)
    # the weight transformed separately: (alpha, alpha, CO, CI) = G g G^T
    Wo = placeholder(w.transpose(3, 2, 0, 1), "Wo")
    T = topi.nn.conv2d_winograd_weight_transform(Wo, 4)
    _, _, G = winograd_matrices_np(4, 3)
    wt = run(T, [Wo], [w.transpose(3, 2, 0, 1)])
    np.testing.assert_allclose(
        wt, np.einsum("ak,bl,oikl->aboi", G, G, w.transpose(3, 2, 0, 1)), rtol=1e-5, atol=1e-6)
    P = placeholder(wt, "P")
    C2 = topi.nn.conv2d_winograd_nhwc_without_weight_transform(A, P, 1, 1, 1, "float32")
    np.testing.assert_allclose(run(C2, [A, P], [x, wt]), ref.transpose(0, 2, 3, 1),
                               rtol=1e-3, atol=1e-4)
    # NCHW takes the pre-computed kernel as (alpha, alpha, CI, CO); TVM 0.6's entry as
    # (alpha, alpha, CO, CI) with an explicit tile size
    xn = x.transpose(0, 3, 1, 2)
    An = placeholder(xn, "An")
    Pn = placeholder(wt.transpose(0, 1, 3, 2), "Pn")
    C3 = topi.nn.conv2d_winograd_nchw_without_weight_transform(An, Pn, 1, 1, 1, "float32")
    np.testing.assert_allclose(run(C3, [An, Pn], [xn, wt.transpose(0, 1, 3, 2)]), ref,
                               rtol=1e-3, atol=1e-4)
    C4 = topi.nn.conv2d_winograd_without_weight_transform(An, P, 1, 1, 1, "NCHW", "float32", 4)
    np.testing.assert_allclose(run(C4, [An, P], [xn, wt]), ref, rtol=1e-3, atol=1e-4)


def test_cuda_winograd_entries():
    x, w = rand((1, 4, 10, 10)), rand((3, 4, 3, 3))
    ref = _conv_nchw(x, w, (1, 1, 1, 1))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    with tepad.target.Target("cuda"):
        C = topi.cuda.conv2d_nchw_winograd(A, W, 1, 1, 1, "float32")
    assert C.op.tag == "conv2d_nchw_winograd"
    np.testing.assert_allclose(run(C, [A, W], [x, w], topi.cuda.schedule_conv2d_nchw_winograd,
                                   "cuda"), ref, rtol=1e-3, atol=1e-4)
    T = topi.nn.conv2d_winograd_weight_transform(W, 2)
    wt = run(T, [W], [w])
    P = placeholder(wt, "P")
    C2 = topi.cuda.conv2d_nchw_winograd_without_weight_transform(A, P, 1, 1, 1, "float32")
    np.testing.assert_allclose(run(C2, [A, P], [x, wt]), ref, rtol=1e-3, atol=1e-4)


def test_cuda_winograd_dilation():
    x, w = rand((1, 2, 9, 9)), rand((2, 2, 3, 3))
    wd = np.zeros((2, 2, 5, 5), "float32")
    wd[:, :, ::2, ::2] = w
    A, W = placeholder(x, "A"), placeholder(w, "W")
    with tepad.target.Target("cuda"):
        C = topi.cuda.conv2d_nchw_winograd(A, W, 1, 2, 2, "float32")
    np.testing.assert_allclose(run(C, [A, W], [x, w]), _conv_nchw(x, wd, (2, 2, 2, 2)),
                               rtol=1e-3, atol=1e-4)


def test_nnpack_pair():
    x, w, b = rand((1, 3, 8, 8)), rand((2, 3, 3, 3)), rand((2,))
    A, W, B = placeholder(x, "A"), placeholder(w, "W"), placeholder(b, "b")
    T = topi.nn.conv2d_winograd_nnpack_weight_transform(W, 2, "float32")
    assert [int(v) for v in T.shape] == [2, 3, 8, 8]
    wt = run(T, [W], [w])
    P = placeholder(wt, "P")
    C = topi.nn.conv2d_winograd_nnpack_without_weight_transform(A, P, B, 1, 1, 1, "NCHW",
                                                                "float32")
    np.testing.assert_allclose(run(C, [A, P, B], [x, wt, b]),
                               _conv_nchw(x, w, (1, 1, 1, 1)) + b[:, None, None],
                               rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("kd", [3, 1])
def test_conv3d_winograd_weight_transform(kd):
    w = rand((2, 3, kd, 3, 3))
    W = placeholder(w, "W")
    T = topi.nn.conv3d_winograd_weight_transform(W, 2)
    _, _, G = winograd_matrices_np(2, 3)
    got = run(T, [W], [w])
    if kd == 3:
        ref = np.einsum("ak,bl,cm,oiklm->abcoi", G, G, G, w)
    else:
        ref = np.einsum("bl,cm,oidlm->bcdoi", G, G, w)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype,tn,tk", [("float32", 4, 3), ("int8", 2, 4)])
def test_conv2d_gemm_weight_transform(dtype, tn, tk):
    w = (rand((2, 2, 3, 5)) * 10).astype(dtype)                    # HWIO
    W = placeholder(w, "W")
    T = topi.nn.conv2d_gemm_weight_transform(W, tn, tk)
    flat = w.reshape(12, 5)                                          # (KH*KW*IC, OC)
    kp, np_ = -12 % tk, -5 % tn
    flat = np.pad(flat, [(0, kp), (0, np_)])
    blocks = flat.reshape((12 + kp) // tk, tk, (5 + np_) // tn, tn).transpose(2, 0, 1, 3)
    if dtype == "int8":
        blocks = blocks.transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(run(T, [W], [w]), blocks)
    F = topi.nn.conv2d_gemm_weight_transform(W, tn, tk, use_scalable_vectors=True)
    np.testing.assert_array_equal(run(F, [W], [w]), flat)


def test_winograd_errors():
    A = te.placeholder((1, 2, 6, 6), name="A")
    with pytest.raises(tepad.TepadError, match="stride 1"):
        topi.nn.conv2d_winograd_nchw(A, te.placeholder((2, 2, 3, 3), name="W"), 2, 1, 1,
                                     "float32")
    with pytest.raises(tepad.TepadError, match="square"):
        topi.nn.conv2d_winograd_nchw(A, te.placeholder((2, 2, 3, 1), name="W"), 1, 1, 1,
                                     "float32")
    with pytest.raises(tepad.TepadError, match="layout"):
        topi.nn.conv2d_winograd_without_weight_transform(A, A, 1, 1, 1, "HWCN", "float32", 2)


def test_relay_hooks_are_generic_functions():
    nn = topi.nn
    for hook in (nn.conv2d_legalize, nn.conv2d_transpose_legalize, nn.conv3d_transpose_legalize):
        assert hook(None, [], []) is None
    for hook in (nn.conv2d_alter_layout, nn.conv2d_transpose_alter_layout,
                 nn.conv3d_alter_layout):
        assert hook(None, [], [], None) is None
    for hook in (nn.conv2d_infer_layout, nn.depthwise_conv2d_infer_layout):
        with pytest.raises(tepad.TepadError, match="register"):
            hook(None, None)
    # a target's own specialization is chosen under that target
    nn.conv2d_legalize.register("cuda", lambda attrs, inputs, types: "cuda-legalized",
                                override=True)
    with tepad.target.Target("cuda"):
        assert nn.conv2d_legalize(None, [], []) == "cuda-legalized"
    with tepad.target.Target("llvm"):
        assert nn.conv2d_legalize(None, [], []) is None


def test_arm_cpu_and_mali_winograd_entries():
    """TVM's tables key them by "-device=arm_cpu" / "-device=mali", which lead the keys."""
    assert tepad.target.Target("llvm -device=arm_cpu").keys == ["arm_cpu", "cpu"]
    assert tepad.target.Target("opencl -device=mali").keys[0] == "mali"
    table = {"arm_cpu": (topi.arm_cpu.conv2d_nchw_winograd,
                         topi.arm_cpu.schedule_conv2d_nchw_winograd),
             "mali": (topi.mali.conv2d_nchw_winograd, topi.mali.schedule_conv2d_nchw_winograd)}
    fcompute, fschedule = topi.testing.dispatch("llvm -device=arm_cpu", table)
    x, w = rand((1, 3, 7, 7)), rand((2, 3, 3, 3))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    with tepad.target.Target("llvm -device=arm_cpu"):
        C = fcompute(A, W, 1, 1, 1, "float32")
    assert C.op.tag == "conv2d_nchw_winograd"
    np.testing.assert_allclose(run(C, [A, W], [x, w], fschedule, "llvm"),
                               _conv_nchw(x, w, (1, 1, 1, 1)), rtol=1e-3, atol=1e-4)


def test_cuda_conv2d_transpose_groups():
    x, w = rand((1, 4, 3, 3)), rand((4, 3, 3, 3))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    C = topi.cuda.conv2d_transpose_nchw(A, W, (2, 2), (1, 1), "float32", (1, 1), 2)
    assert C.op.tag == "group_conv2d_transpose_nchw" and int(C.shape[1]) == 6
    np.testing.assert_allclose(
        run(C, [A, W], [x, w], topi.cuda.schedule_conv2d_transpose_nchw, "cuda"),
        topi.testing.conv2d_transpose_nchw_python(x, w, 2, 1, (1, 1), 2), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kd,pad,dil", [(3, 1, 1), (1, (0, 1, 1), 1), (3, 0, (1, 2, 2))])
def test_cuda_conv3d_ncdhw_winograd(kd, pad, dil):
    x, w = rand((1, 2, 5, 6, 6)), rand((3, 2, kd, 3, 3))
    dl = (dil,) * 3 if isinstance(dil, int) else dil
    wd = np.zeros((3, 2, (kd - 1) * dl[0] + 1, 2 * dl[1] + 1, 2 * dl[2] + 1), "float32")
    wd[:, :, ::dl[0], ::dl[1], ::dl[2]] = w
    ref = topi.testing.conv3d_ncdhw_python(x, wd, 1, pad)
    A, W = placeholder(x, "A"), placeholder(w, "W")
    with tepad.target.Target("cuda"):
        C = topi.cuda.conv3d_ncdhw_winograd(A, W, 1, pad, dil, 1, "float32")
    assert C.op.tag == "conv3d_ncdhw_winograd"
    np.testing.assert_allclose(run(C, [A, W], [x, w]), ref, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(run(C, [A, W], [x, w], topi.cuda.schedule_conv3d_ncdhw_winograd,
                                   "cuda"), ref, rtol=1e-3, atol=1e-4)
