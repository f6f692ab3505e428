"""``fuse`` of two adjacent leaf axes named inner first: TVM's ``Stage::fuse`` swaps them
(FlexTensor's legacy opt_conv_cpu.py fuses ``(yy.xx.fused, nn.outer)``), so tepad does too;
the loop nest and the numbers equal those of the outer-first call, the name follows the order
given, and axes that are not neighbours still raise."""
import numpy as np
import pytest

import tepad
from tepad import te


def _stage():
    A = te.placeholder((6, 8, 4), name="A")
    B = te.compute((6, 8, 4), lambda i, j, k: A[i, j, k] * 2.0 + k, name="B")
    return A, B


def _run(s, A, B):
    a = np.random.default_rng(0).uniform(-1, 1, (6, 8, 4)).astype("float32")
    f = tepad.build(s, [A, B], "llvm")
    b = tepad.nd.array(np.zeros((6, 8, 4), "float32"))
    f(tepad.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2.0 + np.arange(4, dtype="float32"), rtol=1e-6)


def test_fuse_inner_first_swaps_like_tvm():
    A, B = _stage()
    s = te.create_schedule(B.op)
    i, j, k = s[B].op.axis
    fused = s[B].fuse(j, i)
    assert fused.name == "j.i.fused"
    assert [iv.name for iv in s[B].leaf_iter_vars] == ["j.i.fused", "k"]
    s[B].parallel(fused)
    _run(s, A, B)
    loops = str(tepad.lower(s, [A, B], simple_mode=True))
    # one parallel loop of 6 * 8 whose index walks i outer, j inner (row-major addresses)
    assert "T.parallel(48)" in loops and "j_i_fused * 4" in loops


def test_fuse_inner_first_after_split_and_chained():
    A, B = _stage()
    s = te.create_schedule(B.op)
    i, j, k = s[B].op.axis
    jo, ji = s[B].split(j, factor=4)
    # three axes, the pairs named inner first each time, as FlexTensor's script does
    f1 = s[B].fuse(ji, jo)
    f2 = s[B].fuse(f1, i)
    assert [iv.name for iv in s[B].leaf_iter_vars] == [f2.name, "k"]
    s[B].vectorize(k)
    _run(s, A, B)


def test_fuse_still_needs_neighbours():
    A, B = _stage()
    s = te.create_schedule(B.op)
    i, j, k = s[B].op.axis
    with pytest.raises(tepad.TepadError, match="not neighbours"):
        s[B].fuse(k, i)
