"""topi.nn and topi.image against the numpy references of topi.testing (written in numpy)
and spot checks against plain numpy, with the x86 and emulated cuda schedules."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tepad import te, topi
from tepad.errors import TepadError
from tepad.topi import testing as tt

from topi_helpers import placeholder, rand, run

BOTH = [("x86", "llvm"), ("cuda", "cuda")]
RNG_INT = np.random.default_rng(5)


def _s(kind, name):
    return getattr(getattr(topi, kind), name)


@pytest.mark.parametrize("kind, target", BOTH)
def test_conv2d_layouts(kind, target):
    x = rand((1, 3, 7, 8))
    w = rand((4, 3, 3, 3))
    X, W = placeholder(x, "X"), placeholder(w, "W")
    ref = tt.conv2d_nchw_python(x, w, (2, 1), "SAME")
    # plain numpy spot check of the reference itself
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    direct = np.einsum("nchwyx,ocyx->nohw", sliding_window_view(xp, (3, 3), axis=(2, 3)), w)
    np.testing.assert_allclose(ref, direct[:, :, ::2], rtol=1e-5, atol=1e-5)
    got = run(topi.nn.conv2d(X, W, (2, 1), "SAME", 1, "NCHW"), [X, W], [x, w],
              _s(kind, "schedule_conv2d_nchw"), target)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    xh, wh = x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
    XH, WH = placeholder(xh, "XH"), placeholder(wh, "WH")
    got = run(topi.nn.conv2d(XH, WH, 1, (1, 0, 0, 1), 1, "NHWC"), [XH, WH], [xh, wh],
              _s(kind, "schedule_conv2d_nhwc"), target)
    np.testing.assert_allclose(got, tt.conv2d_nhwc_python(xh, wh, 1, (1, 0, 0, 1)),
                               rtol=1e-5, atol=1e-5)
    xc = x.transpose(2, 3, 1, 0).copy()
    XC = placeholder(xc, "XC")
    got = run(topi.nn.conv2d_hwcn(XC, WH, 1, 0, 1), [XC, WH], [xc, wh],
              _s(kind, "schedule_conv2d_hwcn"), target)
    np.testing.assert_allclose(got, tt.conv2d_hwcn_python(xc, wh, 1, 0), rtol=1e-5, atol=1e-5)


def test_conv2d_dilation_and_fused_bias_relu_x86():
    """conv + bias + relu: the x86 schedule computes the convolution into a local tile
    inside the output's loops, and the epilogue reads it from there."""
    import tepad
    x, w, b = rand((2, 2, 9, 9)), rand((3, 2, 3, 3)), rand((3,))
    X, W, B = placeholder(x, "X"), placeholder(w, "W"), placeholder(b, "B")
    out = topi.nn.relu(topi.nn.bias_add(topi.nn.conv2d_nchw(X, W, 1, 2, 2), B))
    text = str(tepad.lower(topi.x86.schedule_conv2d_nchw(out), [X, W, B, out]))
    assert "conv2d_nchw = T.allocate([" in text and "'local')" in text
    got = run(out, [X, W, B], [x, w, b], topi.x86.schedule_conv2d_nchw)
    xp = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)))
    win = sliding_window_view(xp, (5, 5), axis=(2, 3))[..., ::2, ::2]
    want = np.einsum("nchwyx,ocyx->nohw", win, w) + b.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind, target", BOTH)
def test_depthwise_and_transposed(kind, target):
    x, f = rand((1, 3, 6, 7)), rand((3, 2, 3, 3))
    X, F = placeholder(x, "X"), placeholder(f, "F")
    got = run(topi.nn.depthwise_conv2d_nchw(X, F, 1, 1, 1), [X, F], [x, f],
              _s(kind, "schedule_depthwise_conv2d_nchw"), target)
    ref = tt.depthwise_conv2d_python_nchw(x, f, 1, 1)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    # spot check: output channel 3 is input channel 1 with its first filter
    xp = np.pad(x[0, 1], 1)
    spot = sum(xp[i:i + 6, j:j + 7] * f[1, 0, i, j] for i in range(3) for j in range(3))
    np.testing.assert_allclose(ref[0, 2], spot, rtol=1e-5, atol=1e-5)
    xh, fh = x.transpose(0, 2, 3, 1).copy(), f.transpose(2, 3, 0, 1).copy()
    XH, FH = placeholder(xh, "XH"), placeholder(fh, "FH")
    got = run(topi.nn.depthwise_conv2d_nhwc(XH, FH, 2, 0, 1), [XH, FH], [xh, fh],
              _s(kind, "schedule_depthwise_conv2d_nhwc"), target)
    np.testing.assert_allclose(got, tt.depthwise_conv2d_python_nhwc(xh, fh, 2, 0),
                               rtol=1e-5, atol=1e-5)
    wt = rand((3, 2, 3, 3))
    WT = placeholder(wt, "WT")
    got = run(topi.nn.conv2d_transpose_nchw(X, WT, (2, 2), (1, 1), None, (1, 0)), [X, WT],
              [x, wt], _s(kind, "schedule_conv2d_transpose_nchw"), target)
    np.testing.assert_allclose(got, tt.conv2d_transpose_nchw_python(x, wt, 2, 1, (1, 0)),
                               rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    """<conv(x), y> == <x, conv_transpose(y)>: checks the reference independently."""
    x, w = rand((1, 2, 7, 7)), rand((3, 2, 3, 3))
    y_shape = tt.conv2d_nchw_python(x, w, 2, 1).shape
    y = rand(y_shape)
    lhs = (tt.conv2d_nchw_python(x, w, 2, 1) * y).sum()
    rhs = (x * tt.conv2d_transpose_nchw_python(y, w, 2, 1)).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-4)


@pytest.mark.parametrize("kind, target", BOTH)
def test_dense_matmul_batch_matmul(kind, target):
    a, b, bias = rand((5, 12)), rand((7, 12)), rand((7,))
    A, B, Bias = placeholder(a, "A"), placeholder(b, "B"), placeholder(bias, "bias")
    got = run(topi.nn.dense(A, B, Bias), [A, B, Bias], [a, b, bias],
              _s(kind, "schedule_dense"), target)
    np.testing.assert_allclose(got, tt.dense(a, b, bias, use_bias=True), rtol=1e-5, atol=1e-5)
    got = run(topi.nn.matmul(A, B, transpose_b=True), [A, B], [a, b],
              _s(kind, "schedule_dense"), target)
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-5, atol=1e-5)
    x, y = rand((3, 4, 6)), rand((1, 5, 6))
    X, Y = placeholder(x, "X"), placeholder(y, "Y")
    got = run(topi.nn.batch_matmul(X, Y), [X, Y], [x, y], _s(kind, "schedule_batch_matmul"),
              target)
    np.testing.assert_allclose(got, tt.batch_matmul(x, y), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, np.einsum("bik,jk->bij", x, y[0]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind, target", BOTH)
def test_softmax_log_softmax(kind, target):
    x = rand((3, 32), lo=-3, hi=3)          # rows of whole vectors: x86 partial sums
    y = rand((2, 5, 3, 4), lo=-3, hi=3)      # a middle axis
    X, Y = placeholder(x, "X"), placeholder(y, "Y")
    got = run([topi.nn.softmax(X), topi.nn.log_softmax(X), topi.nn.softmax(Y, axis=1),
               topi.nn.fast_softmax(Y, axis=1)], [X, Y], [x, y],
              _s(kind, "schedule_softmax"), target)
    np.testing.assert_allclose(got[0], tt.softmax_python(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], tt.log_softmax_python(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.exp(got[1]).sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(got[2], tt.softmax_python(y, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[3], tt.softmax_python(y, axis=1), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("kind, target", BOTH)
def test_pools(kind, target):
    x = rand((1, 2, 7, 6))
    X = placeholder(x, "X")
    outs = [topi.nn.pool2d(X, (3, 2), (2, 2), (1, 1), (1, 0, 1, 1), "avg",
                           count_include_pad=False),
            topi.nn.pool2d(X, (2, 2), (1, 2), (2, 1), (0, 0, 0, 0), "max", ceil_mode=True),
            topi.nn.global_pool(X, "avg"), topi.nn.global_pool(X, "max"),
            topi.nn.adaptive_pool(X, (3, 4), "avg"), topi.nn.adaptive_pool(X, (2, 5), "max")]
    got = run(outs, [X], [x], _s(kind, "schedule_pool"), target)
    np.testing.assert_allclose(got[0], tt.poolnd_python(x, (3, 2), (2, 2), (1, 1), (1, 0),
                                                        (1, 1), "avg", False), rtol=1e-5)
    np.testing.assert_allclose(got[1], tt.poolnd_python(x, (2, 2), (1, 2), (2, 1), (0, 0),
                                                        (0, 0), "max", ceil_mode=True))
    np.testing.assert_allclose(got[2], x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got[3], x.max(axis=(2, 3), keepdims=True))
    np.testing.assert_allclose(got[4], tt.adaptive_pool(x, (3, 4), "avg"), rtol=1e-5)
    np.testing.assert_allclose(got[5], tt.adaptive_pool(x, (2, 5), "max"))
    # spot check: adaptive 3 rows of 7 cover [0,3) [2,5) [4,7)
    np.testing.assert_allclose(got[4][0, 1, 1, 0], x[0, 1, 2:5, 0:2].mean(), rtol=1e-5)


def test_int8_conv_accumulates_in_int32_x86():
    x = RNG_INT.integers(-128, 128, (1, 4, 6, 33)).astype("int8")
    w = RNG_INT.integers(-128, 128, (8, 4, 3, 3)).astype("int8")
    X, W = placeholder(x, "X"), placeholder(w, "W")
    got = run(topi.nn.conv2d_nchw(X, W, 1, 1, 1, out_dtype="int32"), [X, W], [x, w],
              topi.x86.schedule_conv2d_nchw)
    want = tt.conv2d_nchw_python(x.astype("int64"), w.astype("int64"), 1, 1)
    np.testing.assert_array_equal(got, want)


def test_pool1d_nwc():
    x = rand((2, 9, 3))
    X = placeholder(x, "X")
    got = run(topi.nn.pool1d(X, (3,), (2,), (1,), (1, 1), "max", layout="NWC"), [X], [x],
              topi.x86.schedule_pool)
    np.testing.assert_allclose(got, tt.poolnd_python(x, (3,), (2,), (1,), (1,), (1,), "max",
                                                     layout="NWC"))


@pytest.mark.parametrize("kind, target", BOTH)
def test_activations_norms_and_shapes(kind, target):
    x = rand((2, 3, 4, 5))
    slope, bias = rand((3,)), rand((3,))
    X, S, B = placeholder(x, "X"), placeholder(slope, "S"), placeholder(bias, "B")
    gamma, beta, mean, var = rand((3,)), rand((3,)), rand((3,)), rand((3,), lo=0.5, hi=2)
    G, Be, M, V = (placeholder(v, n) for v, n in ((gamma, "G"), (beta, "Be"), (mean, "M"),
                                                   (var, "V")))
    bn = topi.nn.batch_norm(X, G, Be, M, V, axis=1, epsilon=1e-3)
    outs = [topi.nn.leaky_relu(X, 0.1), topi.nn.prelu(X, S), topi.nn.bias_add(X, B),
            topi.nn.flatten(X), topi.nn.lrn(X, 3, 1, 0.1, 0.75, 2.0), bn[0]]
    got = run(outs, [X, S, B, G, Be, M, V], [x, slope, bias, gamma, beta, mean, var],
              _s(kind, "schedule_lrn"), target)
    c = (1, 3, 1, 1)
    np.testing.assert_allclose(got[0], np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.where(x > 0, x, slope.reshape(c) * x), rtol=1e-6)
    np.testing.assert_allclose(got[2], x + bias.reshape(c), rtol=1e-6)
    np.testing.assert_array_equal(got[3], x.reshape(2, -1))
    np.testing.assert_allclose(got[4], tt.lrn_python(x, 3, 1, 2.0, 0.1, 0.75), rtol=1e-5)
    want = tt.batch_norm(x, gamma, beta, mean, var, 1, 1e-3, True, True, False, None)[0]
    np.testing.assert_allclose(got[5], want, rtol=1e-5, atol=1e-5)


def test_batch_norm_training_updates_the_moving_statistics():
    x = rand((4, 3, 2))
    gamma, beta, mean, var = rand((3,)), rand((3,)), rand((3,)), rand((3,), lo=0.5, hi=2)
    X = placeholder(x, "X")
    G, Be, M, V = (placeholder(v, n) for v, n in ((gamma, "G"), (beta, "Be"), (mean, "M"),
                                                   (var, "V")))
    outs = topi.nn.batch_norm(X, G, Be, M, V, axis=1, training=True, momentum=0.2)
    got = run(outs, [X, G, Be, M, V], [x, gamma, beta, mean, var], topi.x86.schedule_reduce)
    want = tt.batch_norm(x, gamma, beta, mean, var, 1, 1e-5, True, True, True, 0.2)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind, target", BOTH)
def test_resize2d_and_upsampling(kind, target):
    x = rand((1, 2, 4, 5))
    X = placeholder(x, "X")
    cases = [("nearest_neighbor", "asymmetric", (2.0, 2.0)),
             ("nearest_neighbor", "align_corners", (1.5, 1.6)),
             ("linear", "half_pixel", (1.5, 0.6)), ("linear", "align_corners", (2.0, 1.4))]
    outs = [topi.image.resize2d(X, None, (round(4 * s[0]), round(5 * s[1])), "NCHW", m, mode)
            for m, mode, s in cases]
    outs.append(topi.nn.upsampling(X, 2, 3))
    got = run(outs, [X], [x], _s(kind, "schedule_injective"), target)
    for (m, mode, s), g in zip(cases, got):
        np.testing.assert_allclose(g, tt.resize2d_python(x, s, "NCHW", m, mode), rtol=1e-5,
                                   atol=1e-6, err_msg=f"{m} {mode}")
    np.testing.assert_array_equal(got[-1], tt.upsampling_python(x, (2, 3)))
    # spot check: align_corners linear keeps the corners
    np.testing.assert_allclose(got[3][..., [0, -1], :][..., [0, -1]],
                               x[..., [0, -1], :][..., [0, -1]], rtol=1e-6)


def test_nn_mistakes():
    X = te.placeholder((1, 3, 5, 5), name="X")
    W = te.placeholder((2, 3, 7, 7), name="W")
    with pytest.raises(TepadError, match="conv2d_nchw: a 7x7 kernel"):
        topi.nn.conv2d_nchw(X, W, 1, 0, 1)
    with pytest.raises(TepadError, match="conv2d: data_layout 'NCWH'"):
        topi.nn.conv2d(X, W, 1, 0, 1, "NCWH")
    with pytest.raises(TepadError, match="pool_type must be 'max' or 'avg'"):
        topi.nn.pool2d(X, 2, 1, 1, (0, 0, 0, 0), "min")
    with pytest.raises(TepadError, match="resize2d: method 'area'"):
        topi.image.resize2d(X, None, (4, 4), method="area")
    with pytest.raises(TepadError, match="conv2d_nchw: X has 3 channels but F4 expects 4"):
        topi.nn.conv2d_nchw(X, te.placeholder((2, 4, 3, 3), name="F4"), 1, 0, 1)
    with pytest.raises(TepadError, match="depthwise_conv2d_nchw: X has 3 channels"):
        topi.nn.depthwise_conv2d_nchw(X, te.placeholder((2, 1, 3, 3), name="D"), 1, 0, 1)
    with pytest.raises(TepadError, match="padding 'FULL'"):
        topi.nn.conv2d_nchw(X, te.placeholder((2, 3, 3, 3), name="F"), 1, "FULL", 1)


def test_cubic_resize_nhwc_and_crop_extrapolation():
    x = rand((1, 5, 6, 2))
    X = placeholder(x, "X")
    cubic = topi.image.resize2d(X, None, (8, 9), "NHWC", "cubic", "half_pixel")
    crop = topi.image.resize2d(X, (0.0, -0.5, 1.0, 1.0), (3, 4), "NHWC", "linear",
                               "tf_crop_and_resize", extrapolation_value=-7.0)
    got = run([cubic, crop], [X], [x], topi.x86.schedule_injective)
    np.testing.assert_allclose(got[0], tt.resize2d_python(x, (8 / 5, 9 / 6), "NHWC", "cubic",
                                                          "half_pixel"), rtol=1e-5, atol=1e-5)
    # x starts at -0.5 * (W - 1): the first column lies left of the image
    np.testing.assert_array_equal(got[1][:, :, 0], -7.0)
    # y spans the image: rows 0 and 2 hit rows 0 and 4 exactly; column 3 is x = 5
    np.testing.assert_allclose(got[1][0, [0, 2], 3], x[0, [0, 4], 5], rtol=1e-6)


def test_tvm06_names():
    """Names TE programs of TVM 0.6/0.7 use: nn.pool (no dilation), conv2d(layout=...),
    image.resize(align_corners=...), topi.util."""
    x = rand((1, 2, 6, 6))
    X = placeholder(x, "X")
    P = topi.nn.pool(X, (2, 2), (2, 2), (0, 0, 0, 0), "max")
    R = topi.image.resize(X, (11, 11), method="bilinear", align_corners=True)
    assert topi.util.get_const_tuple(P.shape) == (1, 2, 3, 3)
    got = run([P, R], [X], [x], topi.generic.schedule_injective)
    np.testing.assert_array_equal(got[0], x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))
    np.testing.assert_allclose(got[1], tt.resize2d_python(x, (11 / 6, 11 / 6), "NCHW",
                                                          "linear", "align_corners"),
                               rtol=1e-5, atol=1e-6)
    W = te.placeholder((3, 3, 2, 4), name="W")
    Xh = te.placeholder((1, 6, 6, 2), name="Xh")
    assert topi.nn.conv2d(Xh, W, 1, 0, 1, layout="NHWC").op.tag == "conv2d_nhwc"
    with pytest.raises(TepadError, match="momentum must lie in"):
        B = te.placeholder((2,), name="B")
        topi.nn.batch_norm(X, B, B, B, B, training=True, momentum=2.0)
