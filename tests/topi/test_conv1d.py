"""topi.nn.conv1d_ncw / conv1d_nwc / group_conv1d_*: against a direct-loop numpy convolution,
with the plain, x86 (vector width from the target) and emulated cuda schedules."""
import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _direct(x, w, stride, pads, dilation, groups):
    """NCW x, OIW w: every output element summed in plain Python loops over numpy rows."""
    n, c, width = x.shape
    o, cg, k = w.shape
    og = o // groups
    xp = np.zeros((n, c, width + pads[0] + pads[1]))
    xp[:, :, pads[0]:pads[0] + width] = x
    ow = (xp.shape[2] - (k - 1) * dilation - 1) // stride + 1
    out = np.zeros((n, o, ow))
    for f in range(o):
        g = f // og
        for j in range(ow):
            for t in range(k):
                col = xp[:, g * cg:(g + 1) * cg, j * stride + t * dilation]
                out[:, f, j] += col @ w[f, :, t]
    return out


CASES = [  # C, W, O, K, stride, dilation, padding, pads, groups
    (3, 9, 4, 3, 1, 1, "VALID", (0, 0), 1),
    (4, 10, 8, 3, 2, 1, "SAME", (1, 1), 1),
    (4, 12, 6, 2, 1, 2, "SAME", (1, 1), 2),
    (4, 12, 6, 4, 1, 1, "SAME", (2, 1), 2),
    (6, 11, 6, 3, 1, 1, (2, 1), (2, 1), 3),
    (8, 16, 8, 4, 1, 1, 1, (1, 1), 4),
]


@pytest.mark.parametrize("layout", ["NCW", "NWC"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
def test_conv1d_layouts(layout, case, target):
    c, width, o, k, stride, dil, padding, pads, groups = case
    x = rand((2, c, width))
    w = rand((o, c // groups, k))
    ref = _direct(x.astype("float64"), w.astype("float64"), stride, pads, dil, groups)
    if layout == "NWC":
        xa, wa, ref = x.transpose(0, 2, 1).copy(), w.transpose(2, 1, 0).copy(), ref.transpose(0, 2, 1)
    else:
        xa, wa = x, w
    A, W = placeholder(xa, "A"), placeholder(wa, "W")
    lo = layout.lower()
    if groups == 1:
        B = getattr(topi.nn, f"conv1d_{lo}")(A, W, stride, padding, dil)
        sname = f"schedule_conv1d_{lo}"
    else:
        B = getattr(topi.nn, f"group_conv1d_{lo}")(A, W, stride, padding, dil, groups)
        sname = f"schedule_group_conv1d_{lo}"
    sched = None if target == "plain" else getattr(
        topi.x86 if target == "llvm" else topi.cuda, sname)
    got = run(B, [A, W], [xa, wa], sched, "llvm" if target == "plain" else target)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_conv1d_reference_matches_direct():
    x, w = rand((1, 4, 13)), rand((6, 2, 3))
    got = topi.testing.group_conv1d_ncw_python(x, w, 2, "SAME", 2, 2)
    np.testing.assert_allclose(got, _direct(x.astype("float64"), w.astype("float64"),
                                            2, (2, 2), 2, 2), rtol=1e-5)


@pytest.mark.parametrize("mcpu", ["skylake-avx512", "haswell"])
def test_conv1d_x86_vectorizes_width_by_target_lanes(mcpu):
    A = tepad.te.placeholder((1, 8, 64), name="A")
    W = tepad.te.placeholder((16, 8, 3), name="W")
    B = topi.nn.conv1d_ncw(A, W, 1, "SAME", 1)
    target = tepad.target.Target(f"llvm -mcpu={mcpu}")
    # the target's lanes: never beyond the host's features (16 on AVX-512, 8 on AVX2)
    lanes = target.vector_lanes("float32")
    with target:
        s = topi.generic.schedule_conv1d_ncw([B])
    text = str(tepad.lower(s, [A, W, B]))
    assert f"for x_inner in T.vectorized({lanes}):" in text


def test_conv1d_errors():
    A = tepad.te.placeholder((1, 4, 8), name="A")
    with pytest.raises(tepad.TepadError, match="groups"):
        topi.nn.group_conv1d_ncw(A, tepad.te.placeholder((6, 2, 3), name="W"), 1, 0, 1, 3)
    with pytest.raises(tepad.TepadError, match="channels"):
        topi.nn.conv1d_ncw(A, tepad.te.placeholder((6, 3, 3), name="W"))
    with pytest.raises(tepad.TepadError, match="does not fit"):
        topi.nn.conv1d_ncw(A, tepad.te.placeholder((6, 4, 9), name="W"))
    with pytest.raises(tepad.TepadError, match="data_layout"):
        topi.nn.conv1d(A, tepad.te.placeholder((6, 4, 3), name="W"), data_layout="CWN")


def _transpose_direct(x, w, stride, pl, pr, op):
    """Scatter form: input element (c, i) adds x * w[c, o, t] at output position
    i * stride + t - pl, for every position inside the output."""
    n, c, width = x.shape
    _, o, k = w.shape
    ow = (width - 1) * stride - pl - pr + k + op
    out = np.zeros((n, o, ow))
    for i in range(width):
        for t in range(k):
            pos = i * stride + t - pl
            if 0 <= pos < ow:
                out[:, :, pos] += x[:, :, i] @ w[:, :, t]
    return out


@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
@pytest.mark.parametrize("c,width,o,k,stride,padding,pads,op", [
    (3, 7, 4, 3, 1, 0, (0, 0), 0),
    (2, 6, 5, 4, 2, 1, (1, 1), 1),
    (4, 5, 2, 5, 3, (0, 3), (0, 3), 2),
    (1, 9, 2, 2, 2, "VALID", (0, 0), 0),
])
def test_conv1d_transpose_ncw(c, width, o, k, stride, padding, pads, op, target):
    x, w = rand((2, c, width)), rand((c, o, k))
    ref = _transpose_direct(x.astype("float64"), w.astype("float64"), stride, *pads, op)
    A, W = placeholder(x, "A"), placeholder(w, "W")
    B = topi.nn.conv1d_transpose_ncw(A, W, stride, padding, "float32", (op,))
    C = topi.nn.relu(B)
    sched = None if target == "plain" else (
        topi.x86 if target == "llvm" else topi.cuda).schedule_conv1d_transpose_ncw
    tgt = "llvm" if target == "plain" else target
    np.testing.assert_allclose(run(B, [A, W], [x, w], sched, tgt), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(C, [A, W], [x, w], sched, tgt), np.maximum(ref, 0),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        topi.testing.conv1d_transpose_ncw_python(x, w, stride, padding, (op,)), ref,
        rtol=1e-5, atol=1e-5)


def test_conv1d_transpose_errors():
    A = tepad.te.placeholder((1, 4, 8), name="A")
    W = tepad.te.placeholder((4, 2, 3), name="W")
    with pytest.raises(tepad.TepadError, match="output_padding"):
        topi.nn.conv1d_transpose_ncw(A, W, 2, 0, None, (2,))
    with pytest.raises(tepad.TepadError, match="padding"):
        topi.nn.conv1d_transpose_ncw(A, W, 1, 3)
    with pytest.raises(tepad.TepadError, match="input channels"):
        topi.nn.conv1d_transpose_ncw(A, tepad.te.placeholder((3, 2, 3), name="V"), 1, 0)
