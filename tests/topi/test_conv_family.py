"""The rest of topi.nn's convolution family against numpy computed independently: 3-D NDHWC,
transposed (1/2/3-d, grouped), deformable, depthwise gradients, blocked NCHWc (float and
int8), the generic ``conv``, ``layout_transform``, and their topi.testing references;
each with the plain, x86 and (emulated) cuda schedules."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import te, topi
from topi_helpers import placeholder, rand
from topi_helpers import run as _run

TARGETS = ["plain", "llvm", "cuda"]


def run(outs, inputs, arrays, *args, **kwargs):
    return _run(outs, inputs, [np.ascontiguousarray(a) for a in arrays], *args, **kwargs)


def _sched(target, name):
    if target == "plain":
        return None
    return getattr(topi.x86 if target == "llvm" else topi.cuda, name)


def _tgt(target):
    return "llvm" if target == "plain" else target


def _close(a, b, tol=1e-4):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---------------------------------------------------------------- independent references

def _direct_conv(x, w, stride, before, groups=1, dil=1):
    """Channel-first x (N, C, *S) (already padded after; ``before`` shifts nothing here), w
    (O, C // groups, *K): every output as one np.sum over its window."""
    n, c, *S = x.shape
    o, cg, *K = w.shape
    ek = [(k - 1) * dil + 1 for k in K]
    outs = [(s - e) // stride + 1 for s, e in zip(S, ek)]
    og = o // groups
    out = np.zeros((n, o, *outs))
    for b, f in itertools.product(range(n), range(o)):
        g = f // og
        for pos in itertools.product(*[range(e) for e in outs]):
            sl = tuple(slice(p * stride, p * stride + e, dil) for p, e in zip(pos, ek))
            out[(b, f, *pos)] = np.sum(x[(b, slice(g * cg, (g + 1) * cg), *sl)] * w[f])
    return out


def _direct_transpose(x, w, stride, pads_before, out_sizes, groups=1):
    """out[b, f, p] = sum of x[b, c, i] * w[c, f % og, k] over i * stride + k - pad == p."""
    n, c, *S = x.shape
    _, og, *K = w.shape
    cg = c // groups
    out = np.zeros((n, og * groups, *out_sizes))
    for b, ch in itertools.product(range(n), range(c)):
        g = ch // cg
        for i in itertools.product(*[range(s) for s in S]):
            for k in itertools.product(*[range(kk) for kk in K]):
                p = [ii * stride + kk - pb for ii, kk, pb in zip(i, k, pads_before)]
                if all(0 <= pp < e for pp, e in zip(p, out_sizes)):
                    out[(b, slice(g * og, (g + 1) * og), *p)] += \
                        x[(b, ch, *i)] * w[(ch, slice(None), *k)]
    return out


# ---------------------------------------------------------------- 3-D NDHWC

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("c,o,k,stride,padding,pads,dil,groups", [
    (2, 3, 3, 1, 1, 1, 1, 1),
    (4, 4, 2, 2, 0, 0, 1, 2),
    (2, 2, 3, 1, "SAME", 2, 2, 1),
])
def test_conv3d_ndhwc(c, o, k, stride, padding, pads, dil, groups, target):
    x, w = rand((1, 4, 5, 4, c)), rand((k, k, k, c // groups, o))
    xp = np.pad(x.astype("float64").transpose(0, 4, 1, 2, 3),
                [(0, 0), (0, 0)] + [(pads, pads)] * 3)
    ref = _direct_conv(xp, w.astype("float64").transpose(4, 3, 0, 1, 2), stride, None,
                       groups, dil).transpose(0, 2, 3, 4, 1)
    A, W = placeholder(x, "A"), placeholder(w, "W")
    C = topi.nn.conv3d_ndhwc(A, W, stride, padding, dil, groups, "float32")
    _close(run(C, [A, W], [x, w], _sched(target, "schedule_conv3d_ndhwc"), _tgt(target)), ref)
    if dil == 1:
        _close(topi.testing.conv3d_ndhwc_python(x, w, stride, padding, groups), ref)


# ---------------------------------------------------------------- transposed convolutions

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("d,c,o,k,stride,pad,opad,groups", [
    (1, 4, 6, 3, 2, 1, 1, 2),
    (1, 2, 3, 4, 1, 0, 0, 1),
    (2, 4, 4, 3, 2, 1, 1, 2),
    (2, 3, 2, 2, 1, 0, 0, 1),
    (3, 2, 3, 3, 2, 1, 1, 1),
    (3, 4, 2, 2, 1, 0, 0, 2),
])
def test_transposed(d, c, o, k, stride, pad, opad, groups, target):
    size = [4, 3, 3][:d] if d < 3 else [3, 2, 3]
    x, w = rand((1, c, *size)), rand((c, o // groups, *[k] * d))
    outs = [(s - 1) * stride - 2 * pad + k + opad for s in size]
    ref = _direct_transpose(x.astype("float64"), w.astype("float64"), stride, [pad] * d, outs,
                            groups)
    A, W = placeholder(x, "A"), placeholder(w, "W")
    if d == 1:
        C = topi.nn.group_conv1d_transpose_ncw(A, W, stride, pad, "float32", (opad,), groups)
        sname, refpy = "schedule_group_conv1d_transpose_ncw", \
            topi.testing.group_conv1d_transpose_ncw_python(x, w, stride, pad, (opad,), groups)
    elif d == 2:
        C = topi.nn.group_conv2d_transpose_nchw(A, W, stride, pad, "float32", (opad, opad),
                                                groups)
        sname, refpy = "schedule_group_conv2d_transpose_nchw", \
            topi.testing.conv2d_transpose_nchw_python(x, w, stride, pad, (opad, opad), groups)
    else:
        if groups == 1:
            C = topi.nn.conv3d_transpose_ncdhw(A, W, (stride,) * 3, pad, "float32", (opad,) * 3)
        else:
            C = topi.nn.group_conv3d_transpose_ncdhw(A, W, (stride,) * 3, pad, "float32",
                                                     (opad,) * 3, groups)
        sname, refpy = "schedule_conv3d_transpose_ncdhw", \
            topi.testing.conv3d_transpose_ncdhw_python(x, w, stride, pad, (opad,) * 3, groups)
    assert [int(v) for v in C.shape] == [1, o, *outs]
    _close(run(C, [A, W], [x, w], _sched(target, sname), _tgt(target)), ref)
    _close(refpy, ref)
    R = topi.nn.relu(C)
    _close(run(R, [A, W], [x, w], _sched(target, sname), _tgt(target)), np.maximum(ref, 0))


@pytest.mark.parametrize("d", [2, 3])
def test_transpose_preprocess_and_impl(d):
    x, w = rand((1, 2, *[3] * d)), rand((2, 3, *[3] * d))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    nn = topi.nn
    pre, impl = ((nn.conv2d_transpose_nchw_preprocess, nn.declaration_conv2d_transpose_impl)
                 if d == 2 else (nn.conv3d_transpose_ncdhw_preprocess,
                                 nn.declaration_conv3d_transpose_impl))
    data_pad, kt = pre(A, W, 2, 1, "float32", 1)
    assert data_pad.op.name == "data_pad" and kt.op.name == "kernel_transform"
    # the dilated, padded input: x at (K - 1 - pad) + stride * i
    dp = run(data_pad, [A], [x])
    assert dp.shape[2:] == (3 * 2 - 1 + 1 + 2,) * d
    idx = (slice(None), slice(None)) + (slice(1, 6, 2),) * d
    _close(dp[idx], x)
    flip = (slice(None), slice(None)) + (slice(None, None, -1),) * d
    _close(run(kt, [W], [w]), np.swapaxes(w, 0, 1)[flip])
    outs = [(3 - 1) * 2 - 2 + 3 + 1] * d
    _close(run(impl(A, W, 2, 1, "float32", 1), [A, W], [x, w]),
           _direct_transpose(x.astype("float64"), w.astype("float64"), 2, [1] * d, outs))


def test_conv2d_transpose_nhwc_python():
    x, w = rand((1, 3, 3, 2)), rand((3, 3, 2, 4))     # HWIO: I = the data's channels
    ref = _direct_transpose(x.transpose(0, 3, 1, 2).astype("float64"),
                            w.transpose(2, 3, 0, 1).astype("float64"), 2, [1, 1], [6, 6])
    got = topi.testing.conv2d_transpose_nhwc_python(x, w, "HWIO", 2, 1, (1, 1))
    _close(got, ref.transpose(0, 2, 3, 1))
    _close(topi.testing.conv2d_transpose_nhwc_python(x, w.transpose(2, 3, 0, 1), "IOHW", 2, 1,
                                                     (1, 1)), got)


def test_transposed_errors():
    A = te.placeholder((1, 4, 3, 3), name="A")
    with pytest.raises(tepad.TepadError, match="output_padding"):
        topi.nn.group_conv2d_transpose_nchw(A, te.placeholder((4, 2, 3, 3), name="W"), 1, 0,
                                            "float32", (1, 1), 2)
    with pytest.raises(tepad.TepadError, match="groups"):
        topi.nn.group_conv2d_transpose_nchw(A, te.placeholder((4, 2, 3, 3), name="W"), 2, 0,
                                            "float32", (0, 0), 3)
    with pytest.raises(tepad.TepadError, match="4 input channels"):
        topi.nn.conv3d_transpose_ncdhw(te.placeholder((1, 3, 2, 2, 2), name="A"),
                                       te.placeholder((4, 2, 2, 2, 2), name="W"), 1, 0,
                                       "float32", 0)


# ---------------------------------------------------------------- deformable

def _deform_cases():
    return [(1, 1, 1, 1), (2, 0, 1, 2), (1, 1, 2, 1)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("stride,pad,dil,dg", _deform_cases())
def test_deformable_conv2d(layout, stride, pad, dil, dg, target):
    c, o, k, h = 4, 3, 3, 6
    x, w = rand((1, c, h, h)), rand((o, c, k, k))
    oh = (h + 2 * pad - (k - 1) * dil - 1) // stride + 1
    # zero offsets: the ordinary convolution
    zero = np.zeros((1, dg * k * k * 2, oh, oh), "float32")
    xp = np.pad(x.astype("float64"), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    plain = _direct_conv(xp, w.astype("float64"), stride, None, 1, dil)
    # fractional offsets in (-1.5, 1.5): the numpy reference
    off = rand(zero.shape, lo=-1.5, hi=1.5)
    ref = topi.testing.deformable_conv2d_nchw_python(x, off, w, stride, pad, dil, dg, 1)
    _close(topi.testing.deformable_conv2d_nchw_python(x, zero, w, stride, pad, dil, dg, 1),
           plain)
    if layout == "NCHW":
        arrays = [x, None, w]
        to = lambda a: a  # noqa: E731
        fn, sname = topi.nn.deformable_conv2d_nchw, "schedule_deformable_conv2d_nchw"
    else:
        arrays = [x.transpose(0, 2, 3, 1), None, w.transpose(2, 3, 1, 0)]
        to = lambda a: a.transpose(0, 2, 3, 1)  # noqa: E731
        fn, sname = topi.nn.deformable_conv2d_nhwc, "schedule_deformable_conv2d_nhwc"
        _close(topi.testing.deformable_conv2d_nhwc_python(
            arrays[0], off.transpose(0, 2, 3, 1), arrays[2], stride, pad, dil, dg, 1),
            to(ref))
    A = placeholder(arrays[0], "A")
    W = placeholder(arrays[2], "W")
    Off = placeholder(to(off), "Offset")
    C = fn(A, Off, W, stride, pad, dil, dg, 1, "float32")
    sched = _sched(target, sname)
    _close(run(C, [A, Off, W], [arrays[0], to(off), arrays[2]], sched, _tgt(target)), to(ref))
    _close(run(C, [A, Off, W], [arrays[0], to(zero), arrays[2]], sched, _tgt(target)),
           to(plain))


def test_deformable_errors():
    A = te.placeholder((1, 4, 5, 5), name="A")
    W = te.placeholder((2, 4, 3, 3), name="W")
    with pytest.raises(tepad.TepadError, match="offset channels"):
        topi.nn.deformable_conv2d_nchw(A, te.placeholder((1, 9, 3, 3), name="Off"), W, 1, 0, 1,
                                       1, 1, "float32")
    with pytest.raises(tepad.TepadError, match="groups must be 1"):
        topi.nn.deformable_conv2d_nchw(A, te.placeholder((1, 18, 3, 3), name="Off"), W, 1, 0,
                                       1, 1, 2, "float32")


# ---------------------------------------------------------------- depthwise gradients

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m,k,stride,pad", [(1, 3, 1, 1), (2, 3, 2, 1), (2, 2, 2, 0)])
def test_depthwise_backward(m, k, stride, pad, target):
    """Adjoint checks: <dwconv(x, f), g> = <x, back_input(f, g)> = <f, back_weight(x, g)>."""
    n, h, c = 2, 5, 4
    x, f = rand((n, h, h, c)), rand((k, k, c, m))
    fwd = topi.testing.depthwise_conv2d_python_nhwc(x.astype("float64"), f.astype("float64"),
                                                    (stride, stride), pad)
    g = rand(fwd.shape)
    F, G, X = placeholder(f, "F"), placeholder(g, "G"), placeholder(x, "X")
    bi = topi.nn.depthwise_conv2d_backward_input_nhwc(F, G, g.shape, x.shape, stride, pad)
    bw = topi.nn.depthwise_conv2d_backward_weight_nhwc(X, G, g.shape, f.shape, stride, pad)
    gi = run(bi, [F, G], [f, g], _sched(target, "schedule_depthwise_conv2d_backward_input_nhwc"),
             _tgt(target))
    gw = run(bw, [X, G], [x, g],
             _sched(target, "schedule_depthwise_conv2d_backward_weight_nhwc"), _tgt(target))
    lhs = float(np.sum(fwd * g))
    assert gi.shape == x.shape and gw.shape == f.shape
    np.testing.assert_allclose(float(np.sum(x * gi)), lhs, rtol=1e-4)
    np.testing.assert_allclose(float(np.sum(f * gw)), lhs, rtol=1e-4)
    # elementwise: the gradient of each input / weight element by a unit perturbation
    e = np.zeros_like(f)
    e[k - 1, 0, c - 1, m - 1] = 1.0
    df = topi.testing.depthwise_conv2d_python_nhwc(x.astype("float64"), e.astype("float64"),
                                                   (stride, stride), pad)
    np.testing.assert_allclose(gw[k - 1, 0, c - 1, m - 1], np.sum(df * g), rtol=1e-4)


# ---------------------------------------------------------------- blocked NCHWc

def _pack(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("c,o,ib,ob,groups,stride,pad,dil", [
    (4, 8, 2, 4, 1, 1, 1, 1), (8, 4, 4, 2, 2, 2, 0, 1), (4, 4, 4, 4, 1, 1, 2, 2)])
def test_conv2d_NCHWc(c, o, ib, ob, groups, stride, pad, dil, target):
    x, w, bias = rand((1, c, 6, 6)), rand((o, c // groups, 3, 3)), rand((o // ob, 1, 1, ob))
    xp = np.pad(x.astype("float64"), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    ref = _pack(_direct_conv(xp, w.astype("float64"), stride, None, groups, dil), ob)
    wk = w.reshape(o // ob, ob, c // groups // ib, ib, 3, 3).transpose(0, 2, 4, 5, 3, 1)
    A, W, B = placeholder(_pack(x, ib), "A"), placeholder(wk, "W"), placeholder(bias, "B")
    C = topi.nn.conv2d_NCHWc(A, W, stride, pad, dil, f"NCHW{ib}c", f"NCHW{ob}c", "float32")
    assert C.op.tag == "conv2d_NCHWc" and C.op.attrs["out_layout"] == f"NCHW{ob}c"
    R = topi.nn.relu(topi.add(C, B))
    sched = _sched(target, "schedule_conv2d_NCHWc")
    _close(run(C, [A, W], [_pack(x, ib), wk], sched, _tgt(target)), ref)
    _close(run(R, [A, W, B], [_pack(x, ib), wk, bias], sched, _tgt(target)),
           np.maximum(ref + bias, 0))
    U = topi.nn.unpack_NCHWc_to_nchw(C, "float32")
    _close(run(U, [A, W], [_pack(x, ib), wk]), _direct_conv(xp, w.astype("float64"), stride,
                                                           None, groups, dil))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("groups", [1, 2])
def test_conv2d_NCHWc_int8(groups, target):
    c, o, ib, ob, ne = 8, 8, 4, 4, 4
    x = np.random.default_rng(3).integers(0, 20, (1, c, 5, 5)).astype("uint8")
    w = np.random.default_rng(4).integers(-9, 9, (o, c // groups, 3, 3)).astype("int8")
    xp = np.pad(x.astype("int64"), [(0, 0), (0, 0), (1, 1), (1, 1)])
    ref = _pack(_direct_conv(xp, w.astype("int64"), 1, None, groups), ob)
    wk = w.reshape(o // ob, ob, c // groups // ib, ib // ne, ne, 3, 3).transpose(
        0, 2, 5, 6, 3, 1, 4)
    A, W = placeholder(_pack(x, ib), "A"), placeholder(np.ascontiguousarray(wk), "W")
    C = topi.nn.conv2d_NCHWc_int8(A, W, 1, 1, 1, f"NCHW{ib}c", f"NCHW{ob}c", "int32")
    got = run(C, [A, W], [_pack(x, ib), np.ascontiguousarray(wk)],
              _sched(target, "schedule_conv2d_NCHWc_int8"), _tgt(target))
    np.testing.assert_array_equal(got, ref.astype("int32"))


def test_cuda_conv2d_NCHWc_int8_packs_nchw():
    x = np.random.default_rng(5).integers(-20, 20, (1, 8, 5, 5)).astype("int8")
    w = np.random.default_rng(6).integers(-9, 9, (4, 8, 3, 3)).astype("int8")
    A, W = placeholder(x, "A"), placeholder(w, "W")
    with tepad.target.Target("cuda"):
        C = topi.cuda.conv2d_NCHWc_int8(A, W, 1, 1, 1, "NCHW", "int32")
    xp = np.pad(x.astype("int64"), [(0, 0), (0, 0), (1, 1), (1, 1)])
    got = run(C, [A, W], [x, w], topi.cuda.schedule_conv2d_NCHWc_int8, "cuda")
    np.testing.assert_array_equal(got, _pack(_direct_conv(xp, w.astype("int64"), 1, None), 4))


def test_nchwc_errors():
    A = te.placeholder((1, 2, 5, 5, 4), name="A")
    with pytest.raises(tepad.TepadError, match="input block"):
        topi.nn.conv2d_NCHWc(A, te.placeholder((2, 4, 3, 3, 2, 4), name="W"), 1, 0, 1,
                             "NCHW4c", "NCHW4c")
    with pytest.raises(tepad.TepadError, match="n_elems"):
        topi.nn.conv2d_NCHWc_int8(A, te.placeholder((2, 2, 3, 3, 2, 4, 2), name="W"), 1, 0,
                                  1, "NCHW4c", "NCHW4c")


# ---------------------------------------------------------------- generic conv

@pytest.mark.parametrize("data_layout,kernel_layout,groups", [
    ("NCHW", "", 1), ("NHWC", "", 2), ("NHWC", "OHWI", 1), ("HWCN", "HWIO", 1),
    ("NCW", "", 2), ("NWC", "WIO", 1), ("NCDHW", "", 1), ("NDHWC", "", 2)])
def test_conv_generic(data_layout, kernel_layout, groups):
    d = len(data_layout) - 2
    c, o, k = 4, 6, 3
    canon = rand((1, c, *[5] * d))
    w_canon = rand((o, c // groups, *[k] * d))
    spatial = [ch for ch in data_layout if ch not in "NC"]
    canon_letters = "NC" + "".join(spatial)
    x = np.transpose(canon, [canon_letters.index(ch) for ch in data_layout])
    kl = kernel_layout or (("OI" + "".join(spatial)) if data_layout.index("C") == 1
                           else "".join(spatial) + "IO")
    w = np.transpose(w_canon, [("OI" + "".join(spatial)).index(ch) for ch in kl])
    xp = np.pad(canon.astype("float64"), [(0, 0), (0, 0)] + [(1, 1)] * d)
    ref = _direct_conv(xp, w_canon.astype("float64"), 2, None, groups)
    ref = np.transpose(ref, [canon_letters.index(ch) for ch in data_layout])
    A, W = placeholder(np.ascontiguousarray(x), "A"), placeholder(np.ascontiguousarray(w), "W")
    C = topi.nn.conv(A, W, 2, 1, 1, groups, data_layout, kernel_layout)
    expect = f"{'group_' if groups > 1 else ''}conv{d}d_{data_layout.lower()}"
    assert C.op.name == expect and C.op.tag == expect
    _close(run(C, [A, W], [np.ascontiguousarray(x), np.ascontiguousarray(w)]), ref)


def test_conv_generic_errors():
    A = te.placeholder((1, 4, 5, 5), name="A")
    W = te.placeholder((2, 4, 3, 3), name="W")
    with pytest.raises(tepad.TepadError, match="groups"):
        topi.nn.conv(A, W, 1, 0, 1, 3, "NCHW")
    with pytest.raises(tepad.TepadError, match="data_layout"):
        topi.nn.conv(A, W, 1, 0, 1, 1, "XYZW")
    with pytest.raises(tepad.TepadError, match="padding"):
        topi.nn.conv(A, W, 1, (1, 2, 3), 1, 1, "NCHW")


def test_layout_transform():
    x = rand((2, 3, 4, 5))
    A = placeholder(x, "A")
    T = topi.nn.layout_transform(A, "NCHW", "CNWH")
    _close(run(T, [A], [x]), x.transpose(1, 0, 3, 2))
    assert topi.nn.layout_transform(A, "NCHW", "NCHW") is A
    with pytest.raises(tepad.TepadError, match="same axes"):
        topi.nn.layout_transform(A, "NCHW", "NCHW8c")


# ---------------------------------------------------------------- conv2d weight gradient

@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("stride,pad,groups", [(1, 1, 1), (2, 0, 2)])
def test_conv2d_backward_weight_python(layout, stride, pad, groups):
    """<conv(x, w), dy> is linear in w: its gradient is the reference's result."""
    x, w = rand((2, 4, 5, 5)), rand((4, 4 // groups, 3, 3))
    fwd = topi.testing.conv2d_nchw_python(x.astype("float64"), w.astype("float64"), stride,
                                          pad, groups)
    dy = rand(fwd.shape).astype("float64")
    if layout == "NCHW":
        dw = topi.testing.conv2d_backward_weight_python(dy, x.astype("float64"), (3, 3), stride,
                                                        pad, "NCHW", groups)
    else:
        dw = topi.testing.conv2d_backward_weight_python(
            dy.transpose(0, 2, 3, 1), x.astype("float64").transpose(0, 2, 3, 1), (3, 3),
            stride, pad, "NHWC", groups).transpose(0, 3, 1, 2)
    assert dw.shape == w.shape
    for idx in [(0, 0, 0, 0), (3, 4 // groups - 1, 2, 1), (1, 0, 1, 2)]:
        e = np.zeros_like(w, dtype="float64")
        e[idx] = 1.0
        de = topi.testing.conv2d_nchw_python(x.astype("float64"), e, stride, pad, groups)
        np.testing.assert_allclose(dw[idx], np.sum(de * dy), rtol=1e-6)


def test_nchwc_tvm06_names():
    x, w = rand((1, 4, 5, 5)), rand((4, 4, 3, 3))
    xp = np.pad(x.astype("float64"), [(0, 0), (0, 0), (1, 1), (1, 1)])
    wk = w.reshape(2, 2, 2, 2, 3, 3).transpose(0, 2, 4, 5, 3, 1)
    A, W = placeholder(_pack(x, 2), "A"), placeholder(wk, "W")
    C = topi.nn.conv2d_NCHWc_compute(A, W, strides=1, padding=1, dilation=1, layout="NCHW2c",
                                     out_layout="NCHW2c")
    _close(run(C, [A, W], [_pack(x, 2), wk]), _pack(_direct_conv(xp, w.astype("float64"), 1,
                                                                 None), 2))


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_generic_schedules_dispatch(target):
    """topi.generic's new conv schedules pick the target's (threads bound under cuda)."""
    x, w = rand((1, 3, 4, 4, 2)), rand((2, 2, 2, 2, 3))
    A, W = placeholder(x, "A"), placeholder(w, "W")
    C = topi.nn.conv3d_ndhwc(A, W, 1, 0, 1, 1, "float32")
    with tepad.target.Target(target):
        s = topi.generic.schedule_conv3d_ndhwc([C])
    text = str(tepad.lower(s, [A, W, C], simple_mode=True))
    assert ("threadIdx.x" in text) == (target == "cuda")
    _close(run(C, [A, W], [x, w], topi.generic.schedule_conv3d_ndhwc, target),
           topi.testing.conv3d_ndhwc_python(x, w, 1, 0))
    for name in ("schedule_conv3d_transpose_ncdhw", "schedule_group_conv2d_transpose_nchw",
                 "schedule_group_conv1d_transpose_ncw", "schedule_deformable_conv2d_nchw",
                 "schedule_deformable_conv2d_nhwc", "schedule_conv2d_NCHWc",
                 "schedule_conv2d_NCHWc_int8", "schedule_conv2d_nchw_winograd",
                 "schedule_depthwise_conv2d_backward_input_nhwc",
                 "schedule_depthwise_conv2d_backward_weight_nhwc"):
        assert callable(getattr(topi.generic, name))
