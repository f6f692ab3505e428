"""topi.image.affine_grid against a pixel-by-pixel numpy loop, with the plain, x86 and
emulated cuda injective schedules."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _loop(theta, h, w):
    n = theta.shape[0]
    out = np.zeros((n, 2, h, w))
    for b, i, j in itertools.product(range(n), range(h), range(w)):
        x = -1.0 + j * (2.0 - 1e-7) / (w - 1)
        y = -1.0 + i * (2.0 - 1e-7) / (h - 1)
        out[b, :, i, j] = theta[b] @ np.array([x, y, 1.0])
    return out


@pytest.mark.parametrize("sched,target", [(None, "llvm"), ("x86", "llvm"), ("cuda", "cuda")])
@pytest.mark.parametrize("n,h,w", [(1, 2, 3), (3, 5, 17)])
def test_affine_grid(n, h, w, sched, target):
    theta = rand((n, 2, 3))
    T = placeholder(theta, "theta")
    G = topi.image.affine_grid(T, (h, w))
    s = None if sched is None else getattr(topi, sched).schedule_injective
    got = run(G, [T], [theta], s, target)
    ref = _loop(theta.astype("float64"), h, w)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(topi.testing.affine_grid_python(theta, (h, w)), ref, rtol=1e-5,
                               atol=1e-6)


def test_affine_grid_errors():
    T = tepad.te.placeholder((1, 2, 3), name="T")
    with pytest.raises(tepad.TepadError, match="both > 1"):
        topi.image.affine_grid(T, (1, 4))
    with pytest.raises(tepad.TepadError, match="3-d"):
        topi.image.affine_grid(tepad.te.placeholder((2, 3), name="U"), (4, 4))
