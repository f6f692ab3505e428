"""topi.scatter_nd in each mode against a sequential numpy loop over the updates (duplicates
included: "update" keeps the last), plain on llvm and with topi.cuda's schedule emulated."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, run

RNG = np.random.default_rng(5)


def _loop(data, indices, updates, mode):
    out = data.copy()
    m, ys = indices.shape[0], indices.shape[1:]
    for y in itertools.product(*[range(e) for e in ys]):
        pos = tuple(indices[(slice(None), *y)][:m])
        u = updates[y]
        if mode == "update":
            out[pos] = u
        elif mode == "add":
            out[pos] = out[pos] + u
        elif mode == "mul":
            out[pos] = out[pos] * u
        elif mode == "min":
            out[pos] = np.minimum(out[pos], u)
        else:
            out[pos] = np.maximum(out[pos], u)
    return out


CASES = [  # data shape, indices shape (M, Y...), index bounds
    ((4, 3), (1, 6)),
    ((3, 4, 2), (2, 2, 3)),
    ((2, 2), (2, 5)),
]


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("mode", ["update", "add", "mul", "min", "max"])
@pytest.mark.parametrize("dshape,ishape", CASES)
def test_scatter_nd(dshape, ishape, mode, target):
    m = ishape[0]
    data = RNG.standard_normal(dshape).astype("float32")
    indices = np.stack([RNG.integers(0, dshape[k], ishape[1:]) for k in range(m)]).astype("int64")
    updates = RNG.standard_normal(ishape[1:] + dshape[m:]).astype("float32")
    D, I, U = placeholder(data, "data"), placeholder(indices, "indices"), placeholder(updates, "upd")
    out = topi.scatter_nd(D, I, U, mode)
    sched = topi.generic.schedule_extern if target == "llvm" else topi.cuda.schedule_extern
    got = run(out, [D, I, U], [data, indices, updates], sched, target)
    np.testing.assert_allclose(got, _loop(data, indices, updates, mode), rtol=1e-5, atol=1e-6)


def test_scatter_nd_errors():
    D = tepad.te.placeholder((3, 4), name="D")
    I = tepad.te.placeholder((1, 5), "int64", name="I")
    with pytest.raises(tepad.TepadError, match="shapes do not fit"):
        topi.scatter_nd(D, I, tepad.te.placeholder((5, 3), name="U"), "add")
    with pytest.raises(tepad.TepadError, match="mode"):
        topi.scatter_nd(D, I, tepad.te.placeholder((5, 4), name="U"), "sub")
