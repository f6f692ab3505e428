"""topi.nn.correlation_nchw against an element-by-element numpy loop (FlowNet's definition),
with the plain, x86 and emulated cuda schedules."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _loop(a, b, k, md, s1, s2, pad, mul):
    n, c, h, w = a.shape
    pa = np.pad(a.astype("float64"), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    pb = np.pad(b.astype("float64"), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    border = md + (k - 1) // 2
    oh = -(-(h + 2 * pad - 2 * border) // s1)
    ow = -(-(w + 2 * pad - 2 * border) // s1)
    rad = md // s2
    g = 2 * rad + 1
    out = np.zeros((n, g * g, oh, ow))
    for bb, q, i, j in itertools.product(range(n), range(g * g), range(oh), range(ow)):
        y1, x1 = i * s1 + md, j * s1 + md
        y2, x2 = y1 + (q // g - rad) * s2, x1 + (q % g - rad) * s2
        p1 = pa[bb, :, y1:y1 + k, x1:x1 + k]
        p2 = pb[bb, :, y2:y2 + k, x2:x2 + k]
        out[bb, q, i, j] = np.sum(p1 * p2 if mul else np.abs(p1 - p2)) / (k * k * c)
    return out


@pytest.mark.parametrize("target", ["plain", "llvm", "cuda"])
@pytest.mark.parametrize("shape,k,md,s1,s2,pad,mul", [
    ((1, 2, 6, 6), 1, 2, 1, 1, 2, True),
    ((2, 1, 5, 5), 3, 1, 2, 1, 2, True),
    ((1, 2, 7, 5), 3, 2, 2, 2, 2, False),
    ((1, 1, 9, 9), 5, 1, 3, 1, 2, False),
])
def test_correlation_nchw(shape, k, md, s1, s2, pad, mul, target):
    a, b = rand(shape), rand(shape)
    ref = _loop(a, b, k, md, s1, s2, pad, mul)
    A, B = placeholder(a, "data1"), placeholder(b, "data2")
    C = topi.nn.correlation_nchw(A, B, k, md, s1, s2, pad, mul)
    sched = None if target == "plain" else (
        topi.x86 if target == "llvm" else topi.cuda).schedule_correlation_nchw
    got = run(C, [A, B], [a, b], sched, "llvm" if target == "plain" else target)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        topi.testing.correlation_nchw_python(a, b, k, md, s1, s2, pad, mul), ref, rtol=1e-5)


def test_correlation_errors():
    A = tepad.te.placeholder((1, 2, 6, 6), name="A")
    with pytest.raises(tepad.TepadError, match="odd"):
        topi.nn.correlation_nchw(A, A, 2, 1, 1, 1, 1, True)
    with pytest.raises(tepad.TepadError, match="same shape"):
        topi.nn.correlation_nchw(A, tepad.te.placeholder((1, 2, 6, 5), name="B"), 1, 1, 1, 1,
                                 1, True)
