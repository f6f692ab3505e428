"""Convolution workload records, the x86 fallback configs and the schedules that apply them,
the blocked depthwise convolution, scale_shift, the OHWI / HWIO filter layouts and
contrib.cudnn: numerics against numpy loops over kernel taps, configs against the target's
vector lanes."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, autotvm, te, topi
from tepad.autotvm.task.dispatcher import ApplyConfig
from tepad.autotvm.task.space import ConfigSpace, FallbackConfigEntity
from tepad.target import Target
from tepad.topi.nn.conv2d import _get_workload as conv_workload
from tepad.topi.nn.depthwise_conv2d import _get_workload as dw_workload
from tepad.topi.x86 import conv2d_avx_1x1, conv2d_avx_common
from tepad.topi.x86 import depthwise_conv2d as x86_dw
from topi_helpers import placeholder, rand, run


def _conv_nchw(x, w, stride, pads, dil=1):
    """NCHW x, OIHW w, pads (top, left, bottom, right): a sum over kernel taps."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - (kh - 1) * dil - 1) // stride + 1
    ow = (xp.shape[3] - (kw - 1) * dil - 1) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, :, ky * dil: ky * dil + (oh - 1) * stride + 1: stride,
                       kx * dil: kx * dil + (ow - 1) * stride + 1: stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, ky, kx])
    return out


def _depthwise_nchw(x, w, stride, pads, dil=1):
    """NCHW x, filter (C, M, KH, KW): output channel c * M + m reads channel c."""
    c, m, kh, kw = w.shape
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - (kh - 1) * dil - 1) // stride + 1
    ow = (xp.shape[3] - (kw - 1) * dil - 1) // stride + 1
    out = np.zeros((x.shape[0], c * m, oh, ow))
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, :, ky * dil: ky * dil + (oh - 1) * stride + 1: stride,
                       kx * dil: kx * dil + (ow - 1) * stride + 1: stride]
            out += np.repeat(patch, m, axis=1) * w[:, :, ky, kx].reshape(1, c * m, 1, 1)
    return out


def _lanes():
    return Target("llvm").vector_lanes("float32")


def _largest_divisor(n, cap):
    return max(d for d in range(1, min(n, cap) + 1) if n % d == 0)


# ------------------------------------------------------------------ workload records
def test_conv2d_workload_fields_in_each_layout():
    nchw = conv_workload(te.placeholder((1, 12, 17, 19)), te.placeholder((8, 4, 3, 5)),
                         (2, 1), "SAME", (1, 2), "float32")
    assert nchw.height == 17 and nchw.width == 19 and nchw.in_filter == 12
    assert nchw.groups == 3 and nchw.out_filter == 8
    assert (nchw.kernel_h, nchw.kernel_w, nchw.stride_h, nchw.stride_w) == (3, 5, 2, 1)
    assert (nchw.dilation_h, nchw.dilation_w) == (1, 2)
    # SAME against the dilated 3 x 9 kernel: 2 rows and 8 columns of padding
    assert (nchw.padt, nchw.padl, nchw.padb, nchw.padr) == (1, 4, 1, 4)
    nhwc = conv_workload(te.placeholder((1, 17, 19, 12)), te.placeholder((3, 5, 12, 8)),
                         1, (1, 2), 1, "float16", "NHWC")
    assert (nhwc.height, nhwc.width, nhwc.in_filter, nhwc.out_filter, nhwc.groups) == \
        (17, 19, 12, 8, 1)
    assert (nhwc.padt, nhwc.padl, nhwc.padb, nhwc.padr) == (1, 2, 1, 2)
    assert nhwc.out_dtype == "float16"
    hwcn = conv_workload(te.placeholder((17, 19, 12, 2)), te.placeholder((3, 5, 12, 8)),
                         1, 0, 1, "float32", "HWCN")
    assert (hwcn.height, hwcn.width, hwcn.in_filter, hwcn.out_filter) == (17, 19, 12, 8)


def test_workload_mistakes_are_tepad_errors():
    A, W = te.placeholder((1, 4, 8, 8)), te.placeholder((4, 4, 3, 3))
    with pytest.raises(TepadError, match="data_layout 'NCWH'"):
        conv_workload(A, W, 1, 1, 1, "float32", "NCWH")
    with pytest.raises(TepadError, match="int8"):
        conv_workload(A, te.placeholder((4, 4, 3, 3), "int8"), 1, 1, 1, "float32")
    with pytest.raises(TepadError, match="data_layout 'NCDHW'"):
        dw_workload(A, W, 1, 1, 1, "float32", "NCDHW")
    with pytest.raises(TepadError, match="expects 3"):
        dw_workload(A, te.placeholder((3, 1, 3, 3)), 1, 1, 1, "float32")


def test_depthwise_workload_in_each_layout():
    nchw = dw_workload(te.placeholder((1, 6, 10, 10)), te.placeholder((6, 2, 3, 3)),
                       2, "SAME", 1, "float32")
    assert (nchw.in_filter, nchw.out_filter, nchw.stride_h) == (6, 12, 2)
    nhwc = dw_workload(te.placeholder((1, 10, 10, 6)), te.placeholder((3, 3, 6, 2)),
                       1, "VALID", 2, "float32", "NHWC")
    assert (nhwc.out_filter, nhwc.padt, nhwc.dilation_w) == (12, 0, 2)
    blocked = dw_workload(te.placeholder((1, 3, 10, 10, 2)),
                          te.placeholder((3, 1, 3, 3, 1, 4)), 1, 1, 1, "float32", "NCHWc")
    assert (blocked.in_filter, blocked.out_filter) == (6, 12)


# ------------------------------------------------------------------ fallback configs
@pytest.mark.parametrize("width,kernel,stride,pad", [(56, 3, 1, 1), (224, 7, 2, 3),
                                                     (17, 1, 1, 0), (35, 5, 2, 2)])
def test_conv2d_fallback_config_follows_the_target(width, kernel, stride, pad):
    A = te.placeholder((1, 24, width, width))
    W = te.placeholder((40, 24, kernel, kernel))
    with Target("llvm"):
        wkl = conv_workload(A, W, stride, pad, 1, "float32")
        cfg = FallbackConfigEntity()
        conv2d_avx_common._fallback_schedule(cfg, wkl)
    out_w = (width + 2 * pad - kernel) // stride + 1
    oc_bn = _largest_divisor(40, _lanes())
    assert cfg["tile_oc"].size == [40 // oc_bn, oc_bn]
    assert cfg["tile_ic"].size[1] == _largest_divisor(24, oc_bn)
    assert np.prod(cfg["tile_ow"].size) == out_w and cfg["tile_ow"].size[1] <= 31
    assert cfg["tile_ow"].size[1] == _largest_divisor(out_w, 31)
    assert cfg["unroll_kw"].val is False


def test_1x1_fallback_register_tile():
    A, W = te.placeholder((1, 16, 28, 28)), te.placeholder((32, 16, 1, 1))
    with Target("llvm"):
        cfg = FallbackConfigEntity()
        conv2d_avx_1x1._fallback_schedule(cfg, conv_workload(A, W, 1, 0, 1, "float32"))
    oh, ow = cfg["tile_oh"].val, cfg["tile_ow"].size[1]
    assert 28 % oh == 0 and 28 % ow == 0 and oh * ow < 32
    assert (oh, ow) == (1, 28)           # the widest columns first, then the most rows
    A14 = te.placeholder((1, 16, 14, 14))
    with Target("llvm"):
        conv2d_avx_1x1._fallback_schedule(cfg, conv_workload(A14, W, 1, 0, 1, "float32"))
    assert (cfg["tile_oh"].val, cfg["tile_ow"].size) == (2, [1, 14])
    with pytest.raises(TepadError, match="1x1 kernels"):
        conv2d_avx_1x1._fallback_schedule(
            cfg, conv_workload(A, te.placeholder((32, 16, 3, 3)), 1, 0, 1, "float32"))


@pytest.mark.parametrize("one_by_one", [False, True])
def test_fallback_config_gives_a_valid_conv2d_schedule(one_by_one):
    k = 1 if one_by_one else 3
    x, w = rand((2, 12, 14, 14)), rand((20, 12, k, k))
    b = rand((20, 1, 1))
    X, Wt, B = placeholder(x, "X"), placeholder(w, "W"), placeholder(b, "B")
    pad = 0 if one_by_one else 1
    with Target("llvm"):
        cfg = FallbackConfigEntity()
        module = conv2d_avx_1x1 if one_by_one else conv2d_avx_common
        module._fallback_schedule(cfg, conv_workload(X, Wt, 1, pad, 1, "float32"))
    C = topi.nn.relu(topi.add(topi.nn.conv2d_nchw(X, Wt, 1, pad, 1), B))
    got = run(C, [X, Wt, B], [x, w, b],
              schedule=lambda outs: conv2d_avx_common.schedule_conv2d_nchw_config(cfg, outs))
    want = np.maximum(_conv_nchw(x, w, 1, (pad,) * 4) + b, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv2d_schedule_without_the_knobs_is_an_error():
    X, Wt = te.placeholder((1, 4, 8, 8)), te.placeholder((4, 4, 3, 3))
    C = topi.nn.conv2d_nchw(X, Wt, 1, 1, 1)
    with pytest.raises(TepadError, match="tile_ic"):
        conv2d_avx_common.schedule_conv2d_nchw_config(FallbackConfigEntity(), [C])


def test_depthwise_fallback_config():
    with Target("llvm"):
        wkl = dw_workload(te.placeholder((1, 12, 30, 30)), te.placeholder((12, 2, 5, 5)),
                          2, "SAME", 1, "float32")
        cfg = autotvm.get_config()
        x86_dw._fallback_schedule(cfg, wkl)
    assert np.prod(cfg["tile_ow"].size) == 15
    assert cfg["tile_oc"].size[1] == _largest_divisor(24, _lanes())
    assert cfg["tile_ic"].size[1] == _largest_divisor(12, cfg["tile_oc"].size[1])


# ------------------------------------------------------------------ blocked depthwise
def _nchwc(x, block):
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def _blocked_filter(w, ob):
    """(C, M, KH, KW) -> (C*M/ob, 1, KH, KW, 1, ob)."""
    c, m, kh, kw = w.shape
    return np.ascontiguousarray(
        w.reshape(c * m // ob, ob, kh, kw).transpose(0, 2, 3, 1)[:, None, :, :, None, :])


@pytest.mark.parametrize("m,cb,ob,stride,dil", [(1, 4, 6, 1, 1), (2, 3, 4, 2, 1),
                                                (1, 2, 2, 1, 2)])
def test_depthwise_NCHWc_with_scale_shift_and_relu(m, cb, ob, stride, dil):
    c = 12
    x, w = rand((1, c, 11, 11)), rand((c, m, 3, 3))
    scale, shift = rand((c * m,)), rand((c * m,))
    xb, wb = _nchwc(x, cb), _blocked_filter(w, ob)
    sb, hb = scale.reshape(-1, ob), shift.reshape(-1, ob)
    X, Wt = placeholder(xb, "X"), placeholder(wb, "W")
    S, H = placeholder(sb, "S"), placeholder(hb, "H")
    with Target("llvm"):
        C = topi.x86.depthwise_conv2d_NCHWc(X, Wt, stride, "SAME", dil, f"NCHW{cb}c",
                                            f"NCHW{ob}c", "float32")
        out = topi.nn.relu(topi.nn.scale_shift_nchwc(C, S, H))
    got = run(out, [X, Wt, S, H], [xb, wb, sb, hb],
              schedule=topi.x86.schedule_depthwise_conv2d_NCHWc)
    ek = 2 * dil + 1
    total = max((11 + stride - 1) // stride - 1, 0) * stride + ek - 11
    pads = (total // 2, total // 2, total - total // 2, total - total // 2)
    want = _depthwise_nchw(x, w, stride, pads, dil) * scale.reshape(1, -1, 1, 1) + \
        shift.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(got, _nchwc(np.maximum(want, 0), ob), rtol=1e-4, atol=1e-5)
    # the numpy reference of topi.testing agrees with the loop above
    ref = tepad.topi.testing.depthwise_conv2d_python_nchwc(
        xb, tepad.topi.testing.dilate_python(wb, (1, 1, dil, dil, 1, 1)), stride, "SAME")
    np.testing.assert_allclose(ref, _nchwc(_depthwise_nchw(x, w, stride, pads, dil), ob),
                               rtol=1e-5, atol=1e-5)


def test_depthwise_NCHWc_reads_a_tuned_config():
    """A config other than the fallback (unroll_kw on, a 3-column tile) is the one the
    schedule applies: the kernel-width loop is unrolled, the result unchanged."""
    x, w = rand((1, 8, 9, 9)), rand((8, 1, 3, 3))
    xb, wb = _nchwc(x, 8), _blocked_filter(w, 8)
    X, Wt = placeholder(xb, "X"), placeholder(wb, "W")
    space = ConfigSpace()
    with Target("llvm"), ApplyConfig(space):
        topi.x86.depthwise_conv2d_NCHWc(X, Wt, 1, 1, 1, "NCHW8c", "NCHW8c")
    cfg = next(c for c in (space.get(i) for i in range(len(space)))
               if c["tile_ow"].size[-1] == 3 and c["unroll_kw"].val is True)
    with Target("llvm"), ApplyConfig(cfg):
        C = topi.x86.depthwise_conv2d_NCHWc(X, Wt, 1, 1, 1, "NCHW8c", "NCHW8c")
        s = topi.x86.schedule_depthwise_conv2d_NCHWc([C])
    text = str(tepad.lower(s, [X, Wt, C]))
    assert "for dj in T.unroll(3)" in text
    assert "for j_inner in range(3)" in text
    got = run(C, [X, Wt], [xb, wb], schedule=lambda outs: s)
    np.testing.assert_allclose(got, _nchwc(_depthwise_nchw(x, w, 1, (1, 1, 1, 1)), 8),
                               rtol=1e-4, atol=1e-5)


def test_depthwise_NCHWc_mistakes():
    X, Wt = te.placeholder((1, 2, 8, 8, 4)), te.placeholder((2, 1, 3, 3, 1, 4))
    with pytest.raises(TepadError, match="expected 'NCHW4c'"):
        topi.nn.depthwise_conv2d_NCHWc(X, Wt, 1, 1, 1, "NCHW8c", "NCHW4c")
    with pytest.raises(TepadError, match="6-d"):
        topi.nn.depthwise_conv2d_NCHWc(X, te.placeholder((2, 3, 3, 4)), 1, 1, 1, "NCHW4c",
                                       "NCHW4c")
    C = topi.nn.depthwise_conv2d_NCHWc(X, Wt, 1, 1, 1, "NCHW4c", "NCHW4c")
    with pytest.raises(TepadError, match="no workload"):
        topi.x86.schedule_depthwise_conv2d_NCHWc([C])


# ------------------------------------------------------------------ layouts, scale_shift
@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_scale_shift_nchw_and_nhwc(target):
    x, scale, shift = rand((2, 5, 3, 4)), rand((5,)), rand((5,))
    X, S, H = placeholder(x, "X"), placeholder(scale, "S"), placeholder(shift, "H")
    sched = topi.cuda.schedule_injective if target == "cuda" else topi.x86.schedule_injective
    got = run(topi.nn.scale_shift_nchw(X, S, H), [X, S, H], [x, scale, shift], sched, target)
    # a multiply-add may be one FMA (one rounding): an absolute tolerance for results near 0
    np.testing.assert_allclose(got, x * scale[:, None, None] + shift[:, None, None], rtol=1e-6,
                               atol=1e-6)
    xt = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    Xt = placeholder(xt, "Xt")
    got = run(topi.nn.scale_shift_nhwc(Xt, S, H), [Xt, S, H], [xt, scale, shift], sched, target)
    np.testing.assert_allclose(got, xt * scale + shift, rtol=1e-6, atol=1e-6)
    with pytest.raises(TepadError, match="Scale must be a 1-d"):
        topi.nn.scale_shift_nchw(X, te.placeholder((5, 1)), H)


def test_conv2d_nhwc_with_an_OHWI_filter():
    x, w = rand((1, 9, 9, 6)), rand((7, 3, 3, 6))          # OHWI
    X, Wt = placeholder(x, "X"), placeholder(w, "W")
    C = topi.nn.conv2d(X, Wt, 2, "SAME", 1, data_layout="NHWC", kernel_layout="OHWI",
                       out_dtype="float32")
    got = run(C, [X, Wt], [x, w])
    want = _conv_nchw(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), 2, (1, 1, 1, 1))
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)
    with pytest.raises(TepadError, match="HWIO or OHWI"):
        topi.nn.conv2d(X, Wt, 1, 0, 1, data_layout="NHWC", kernel_layout="IHWO")


def test_depthwise_nhwc_filter_layouts_and_a_dtype_in_the_layout_slot():
    x, w = rand((1, 7, 7, 4)), rand((3, 3, 4, 2))            # HWOI: (kh, kw, C, M)
    X = placeholder(x, "X")
    want = _depthwise_nchw(x.transpose(0, 3, 1, 2), w.transpose(2, 3, 0, 1), 1,
                           (1, 1, 1, 1)).transpose(0, 2, 3, 1)
    W1 = placeholder(w, "W1")
    got = run(topi.nn.depthwise_conv2d_nhwc(X, W1, 1, 1, 1, "float32"), [X, W1], [x, w])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    wio = np.ascontiguousarray(w.transpose(0, 1, 3, 2))       # HWIO: (kh, kw, M, C)
    W2 = placeholder(wio, "W2")
    got = run(topi.nn.depthwise_conv2d_nhwc(X, W2, 1, 1, 1, kernel_layout="HWIO"), [X, W2],
              [x, wio], schedule=topi.x86.schedule_depthwise_conv2d_nhwc)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    with pytest.raises(TepadError, match="kernel_layout 'OIHW'"):
        topi.nn.depthwise_conv2d_nhwc(X, W1, 1, 1, 1, "OIHW")


# ------------------------------------------------------------------ other targets' names
@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_strategy_names_compute_the_plain_convolutions(target):
    x, w = rand((1, 8, 8, 3)), rand((3, 3, 3, 5))
    X, Wt = placeholder(x, "X"), placeholder(w, "W")
    want = _conv_nchw(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), 1,
                      (1, 1, 1, 1)).transpose(0, 2, 3, 1)
    if target == "cuda":
        pairs = [(topi.gpu.conv2d_nhwc, topi.gpu.schedule_conv2d_nhwc)]
    else:
        pairs = [(topi.arm_cpu.conv2d_nhwc_spatial_pack,
                  topi.arm_cpu.schedule_conv2d_nhwc_spatial_pack),
                 (topi.arm_cpu.compute_conv2d_NHWC_hybrid,
                  topi.arm_cpu.schedule_conv2d_NHWC_hybrid),
                 (topi.mali.conv2d_nhwc_spatial_pack,
                  topi.mali.schedule_conv2d_nhwc_spatial_pack)]
    for fcompute, fschedule in pairs:
        with Target(target):
            C = fcompute(X, Wt, 1, 1, 1, "float32")
        got = run(C, [X, Wt], [x, w], schedule=fschedule, target=target)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    xd, wd = rand((1, 4, 9, 9)), rand((4, 1, 3, 3))
    Xd, Wd = placeholder(xd, "Xd"), placeholder(wd, "Wd")
    mod = topi.cuda if target == "cuda" else topi.intel_graphics
    with Target(target):
        C = mod.depthwise_conv2d_nchw(Xd, Wd, 1, 1, 1, "float32")
    got = run(C, [Xd, Wd], [xd, wd], schedule=mod.schedule_depthwise_conv2d_nchw,
              target=target)
    np.testing.assert_allclose(got, _depthwise_nchw(xd, wd, 1, (1, 1, 1, 1)), rtol=1e-4,
                               atol=1e-5)


def test_arm_strategies_tepad_cannot_build_are_refused():
    X, Wt = te.placeholder((1, 8, 8, 3)), te.placeholder((3, 3, 3, 5))
    with pytest.raises(TepadError, match="SME"):
        topi.arm_cpu.compute_conv2d_NHWC_hybrid_SME(X, Wt, 1, 1, 1, "float32")
    C = topi.arm_cpu.compute_conv2d_NHWC_hybrid_SVE(X, Wt, 1, 1, 1, "float32")
    with pytest.raises(TepadError, match="scalable"):
        topi.arm_cpu.schedule_conv2d_NHWC_hybrid_SVE([C])
    with pytest.raises(TepadError, match="tir.Schedule"):
        topi.arm_cpu.schedule_conv2d_NHWC_hybrid_TIR(None)


def test_cudnn_is_absent_with_a_clear_error():
    from tepad.contrib import cudnn
    assert cudnn.exists() is False
    with pytest.raises(TepadError, match="does not link NVIDIA cuDNN"):
        cudnn.conv_forward(None, None, [1, 1], [1, 1], [1, 1], 0, 0, 1, "float32")
    assert cudnn.algo_to_index("fwd", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM") == 2
    with pytest.raises(TepadError, match="unknown algorithm"):
        cudnn.algo_to_index("fwd", "FAST")
