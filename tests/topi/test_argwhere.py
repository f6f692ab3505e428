"""topi.argwhere against a Python walk over np.ndindex, on llvm and emulated cuda; fewer
rows than nonzeros keeps the first ones, more leaves the extra rows as they were."""
import numpy as np
import pytest

import tepad
from tepad import te, topi
from topi_helpers import run

RNG = np.random.default_rng(3)


def _walk(c):
    return np.array([i for i in np.ndindex(*c.shape) if c[i] != 0], "int32").reshape(-1, c.ndim)


def _build(cond, rows, target):
    O = te.placeholder((rows, cond.ndim), "int32", name="out_shape")
    C = te.placeholder(cond.shape, str(cond.dtype), name="condition")
    with tepad.target.Target(target):
        out = topi.argwhere(O, C)
    return O, C, out


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("shape,dtype", [((7,), "int32"), ((3, 4), "float32"),
                                         ((2, 3, 4), "int8"), ((1, 2, 1, 3, 2), "int32")])
def test_argwhere(shape, dtype, target):
    cond = RNG.choice([0, 0, 1, 3], size=shape).astype(dtype)
    ref = _walk(cond)
    O, C, out = _build(cond, len(ref), target)
    got = run(out, [O, C], [np.ones(ref.shape, "int32"), cond], topi.generic.schedule_argwhere,
              target)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("rows", [2, 9])
def test_argwhere_row_count(rows):
    cond = np.array([[1, 0, 2], [0, 3, 4]], "int32")          # 4 nonzeros
    ref = _walk(cond)
    O, C, out = _build(cond, rows, "llvm")
    s = topi.generic.schedule_argwhere(out)
    f = tepad.build(s, [O, C, out])
    res = np.full((rows, 2), -7, "int32")
    f(np.ones((rows, 2), "int32"), cond, res)
    k = min(rows, len(ref))
    np.testing.assert_array_equal(res[:k], ref[:k])
    assert (res[k:] == -7).all()


def test_argwhere_errors():
    C = te.placeholder((3, 4), "int32", name="c")
    with pytest.raises(tepad.TepadError, match="rows, 2"):
        topi.argwhere(te.placeholder((5, 3), "int32", name="o"), C)
