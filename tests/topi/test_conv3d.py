"""topi.nn.conv3d_ncdhw (plain and grouped) against an output-by-output numpy loop, with the
plain, x86 and emulated cuda schedules; get_pad_tuple3d's forms."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _direct(x, w, stride, pads, dil, groups):
    """Each output element as one np.sum over its dilated window (pads: 6-tuple)."""
    n, c, *size = x.shape
    o, cg, *k = w.shape
    og = o // groups
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + 3]) for i in range(3)])
    ek = [(k[i] - 1) * dil + 1 for i in range(3)]
    osz = [(xp.shape[2 + i] - ek[i]) // stride + 1 for i in range(3)]
    out = np.zeros((n, o, *osz))
    for b, f, z, y, xx in itertools.product(range(n), range(o), *[range(e) for e in osz]):
        g = f // og
        win = xp[b, g * cg:(g + 1) * cg, z * stride: z * stride + ek[0]: dil,
                 y * stride: y * stride + ek[1]: dil, xx * stride: xx * stride + ek[2]: dil]
        out[b, f, z, y, xx] = np.sum(win * w[f])
    return out


@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
@pytest.mark.parametrize("c,size,o,k,stride,padding,pads,dil,groups", [
    (2, 4, 3, 3, 1, 1, (1,) * 6, 1, 1),
    (4, 5, 4, 2, 2, 0, (0,) * 6, 1, 2),
    (2, 5, 2, 3, 1, "SAME", (2,) * 6, 2, 1),
    (3, 4, 2, 3, 1, (1, 0, 1), (1, 0, 1, 1, 0, 1), 1, 1),
])
def test_conv3d_ncdhw(c, size, o, k, stride, padding, pads, dil, groups, target):
    x, w, bias = rand((1, c, size, size, size)), rand((o, c // groups, k, k, k)), rand((o, 1, 1, 1))
    ref = _direct(x.astype("float64"), w.astype("float64"), stride, pads, dil, groups)
    A, W, Bias = placeholder(x, "A"), placeholder(w, "W"), placeholder(bias, "bias")
    C = topi.nn.conv3d_ncdhw(A, W, stride, padding, dil, groups)
    R = topi.nn.relu(topi.add(C, Bias))
    sched = None if target == "plain" else (
        topi.x86 if target == "llvm" else topi.cuda).schedule_conv3d_ncdhw
    tgt = "llvm" if target == "plain" else target
    np.testing.assert_allclose(run(C, [A, W], [x, w], sched, tgt), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(R, [A, W, Bias], [x, w, bias], sched, tgt),
                               np.maximum(ref + bias, 0), rtol=1e-5, atol=1e-5)
    if dil == 1:
        np.testing.assert_allclose(
            topi.testing.conv3d_ncdhw_python(x, w, stride, padding, groups), ref,
            rtol=1e-5, atol=1e-5)


def test_get_pad_tuple3d():
    g = topi.nn.get_pad_tuple3d
    assert g(2, (3, 3, 3)) == (2,) * 6
    assert g((1, 2, 3), (3, 3, 3)) == (1, 2, 3, 1, 2, 3)
    assert g("SAME", (2, 3, 4)) == (1, 1, 2, 0, 1, 1)
    assert g("VALID", (2, 3, 4)) == (0,) * 6
    with pytest.raises(tepad.TepadError, match="3 or 6 ints"):
        g((1, 2), (3, 3, 3))


def test_conv3d_errors():
    A = tepad.te.placeholder((1, 4, 3, 3, 3), name="A")
    with pytest.raises(tepad.TepadError, match="does not fit"):
        topi.nn.conv3d_ncdhw(A, tepad.te.placeholder((2, 4, 4, 4, 4), name="W"), 1, 0, 1)
    with pytest.raises(tepad.TepadError, match="5-d"):
        topi.nn.conv3d_ncdhw(A, tepad.te.placeholder((2, 4, 3, 3), name="W"), 1, 0, 1)
