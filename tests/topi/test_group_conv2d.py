"""topi.nn.group_conv2d_nchw / group_conv2d_nhwc against a per-group numpy loop over kernel
taps, with the plain, x86 and emulated cuda schedules (and a bias + relu epilogue)."""
import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _direct(x, w, stride, pads, dil, groups):
    """NCHW x, OIHW w (O, C // groups, KH, KW), pads (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - (kh - 1) * dil - 1) // stride + 1
    ow = (xp.shape[3] - (kw - 1) * dil - 1) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for f in range(o):
        g = f // og
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           ky * dil: ky * dil + (oh - 1) * stride + 1: stride,
                           kx * dil: kx * dil + (ow - 1) * stride + 1: stride]
                out[:, f] += np.tensordot(patch, w[f, :, ky, kx], axes=([1], [0]))
    return out


CASES = [  # C, HW, O, K, stride, padding, pads, dilation, groups
    (4, 6, 4, 3, 1, 1, (1, 1, 1, 1), 1, 2),
    (6, 7, 9, 3, 2, 0, (0, 0, 0, 0), 1, 3),
    (8, 8, 8, 3, 1, "SAME", (2, 2, 2, 2), 2, 4),
]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
def test_group_conv2d(layout, case, target):
    c, hw, o, k, stride, padding, pads, dil, groups = case
    x, w, bias = rand((2, c, hw, hw)), rand((o, c // groups, k, k)), rand((o,))
    ref = _direct(x.astype("float64"), w.astype("float64"), stride, pads, dil, groups)
    if layout == "NHWC":
        xa, wa = x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
        ref, ba = ref.transpose(0, 2, 3, 1), bias
    else:
        xa, wa, ba = x, w, bias.reshape(o, 1, 1)
    A, W, Bias = placeholder(xa, "A"), placeholder(wa, "W"), placeholder(ba, "bias")
    lo = layout.lower()
    conv = getattr(topi.nn, f"group_conv2d_{lo}")(A, W, stride, padding, dil, groups)
    out = topi.nn.relu(topi.add(conv, Bias))
    sched = None if target == "plain" else getattr(
        topi.x86 if target == "llvm" else topi.cuda, f"schedule_group_conv2d_{lo}")
    tgt = "llvm" if target == "plain" else target
    got = run(conv, [A, W], [xa, wa], sched, tgt)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    got = run(out, [A, W, Bias], [xa, wa, ba], sched, tgt)
    np.testing.assert_allclose(got, np.maximum(ref + ba, 0), rtol=1e-5, atol=1e-5)


def test_group_conv2d_x86_lanes_follow_target():
    A = tepad.te.placeholder((1, 8, 4, 32), name="A")
    W = tepad.te.placeholder((8, 2, 3, 3), name="W")
    B = topi.nn.group_conv2d_nchw(A, W, 1, 1, 1, 4)
    for mcpu in ("skylake-avx512", "haswell"):
        target = tepad.target.Target(f"llvm -mcpu={mcpu}")
        lanes = target.vector_lanes("float32")     # never beyond the host's features
        with target:
            s = topi.generic.schedule_group_conv2d_nchw([B])
        assert f"T.vectorized({lanes})" in str(tepad.lower(s, [A, W, B]))


def test_group_conv2d_errors():
    A = tepad.te.placeholder((1, 6, 5, 5), name="A")
    with pytest.raises(tepad.TepadError, match="groups"):
        topi.nn.group_conv2d_nchw(A, tepad.te.placeholder((4, 2, 3, 3), name="W"), 1, 0, 1, 4)
    with pytest.raises(tepad.TepadError, match="per group"):
        topi.nn.group_conv2d_nchw(A, tepad.te.placeholder((6, 3, 3, 3), name="W"), 1, 0, 1, 3)
