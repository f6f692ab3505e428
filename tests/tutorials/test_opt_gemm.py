"""TVM's "How to optimize GEMM on CPU" tutorial, in our words: a non-square matrix product
(rows x depth) @ (depth x cols) taken from the default schedule through six optimizations
(tiling with a split reduction, vectorizing the inner column loop, moving the row loop
inside the reduction, packing the right operand into column panels, accumulating a tile in a
write cache, and running row tiles in parallel), each checked against numpy and timed with
``time_evaluator`` as the tutorial does, with the loops each step must produce."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir

from .helpers import allocations, kinds, loops

ROWS, DEPTH, COLS = 48, 40, 80
BLOCK, KSPLIT = 16, 4


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    x = rng.random((ROWS, DEPTH), dtype="float32")
    w = rng.random((DEPTH, COLS), dtype="float32")
    return x, w, x @ w


def definition(packed=False):
    red = te.reduce_axis((0, DEPTH), "red")
    x = te.placeholder((ROWS, DEPTH), name="X")
    w = te.placeholder((DEPTH, COLS), name="W")
    if not packed:
        y = te.compute((ROWS, COLS), lambda r, c: te.sum(x[r, red] * w[red, c], axis=red),
                       name="Y")
        return x, w, None, y
    panels = te.compute((COLS / BLOCK, DEPTH, BLOCK),       # a float extent, as in the tutorial
                        lambda p, d, lane: w[d, p * BLOCK + lane], name="panels")
    y = te.compute((ROWS, COLS), lambda r, c: te.sum(
        x[r, red] * panels[c // BLOCK, red, tir.indexmod(c, BLOCK)], axis=red), name="Y")
    return x, w, panels, y


def check(s, x, w, y, data, number=10):
    """Build for the string target "llvm", run, compare, time; the lowered module."""
    want_x, want_w, want = data
    dev = tvm.device("llvm", 0)
    f = tvm.build(s, [x, w, y], target="llvm", name="gemm")
    assert f
    got = tvm.nd.array(np.zeros((ROWS, COLS), "float32"), dev)
    f(tvm.nd.array(want_x, dev), tvm.nd.array(want_w, dev), got)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    res = f.time_evaluator(f.entry_name, dev, number=number)(want_x, want_w, got.numpy())
    assert res.mean > 0
    return tvm.lower(s, [x, w, y], simple_mode=True)


def tiles(s, y, order):
    ro, co, ri, ci = s[y].tile(y.op.axis[0], y.op.axis[1], BLOCK, BLOCK)
    (red,) = s[y].op.reduce_axis
    rk, rl = s[y].split(red, factor=KSPLIT)
    named = {"ro": ro, "co": co, "ri": ri, "ci": ci, "rk": rk, "rl": rl}
    s[y].reorder(*[named[n] for n in order.split()])
    return named


def test_baseline(data):
    x, w, _, y = definition()
    s = te.create_schedule(y.op)
    mod = check(s, x, w, y, data, number=1)
    assert set(loops(mod)) == {"r", "c", "red"}


def test_tiled_then_vectorized_then_permuted(data):
    x, w, _, y = definition()
    s = te.create_schedule(y.op)
    tiles(s, y, "ro co rk rl ri ci")
    mod = check(s, x, w, y, data)
    assert not kinds(mod, tir.ForKind.VECTORIZED)
    # ROWS / BLOCK and COLS / BLOCK divide: no guard anywhere
    assert "if " not in str(mod)

    s = te.create_schedule(y.op)
    ax = tiles(s, y, "ro co rk rl ri ci")
    s[y].vectorize(ax["ci"])
    assert "c.inner" in kinds(check(s, x, w, y, data), tir.ForKind.VECTORIZED)

    s = te.create_schedule(y.op)
    ax = tiles(s, y, "ro co rk ri rl ci")
    s[y].vectorize(ax["ci"])
    text = str(check(s, x, w, y, data))
    assert text.index("for r_inner") < text.index("for red_inner")


def test_packed_operand(data):
    x, w, panels, y = definition(packed=True)
    assert [int(e) for e in panels.shape] == [COLS // BLOCK, DEPTH, BLOCK]
    s = te.create_schedule(y.op)
    ax = tiles(s, y, "ro co rk ri rl ci")
    s[y].vectorize(ax["ci"])
    p, _, lane = s[panels].op.axis
    s[panels].vectorize(lane)
    s[panels].parallel(p)
    mod = check(s, x, w, y, data)
    assert allocations(mod) == ["panels"]
    assert kinds(mod, tir.ForKind.PARALLEL) == ["p"]


@pytest.mark.parametrize("parallel_rows", [False, True])
def test_write_cache_and_parallel_rows(data, parallel_rows):
    x, w, panels, y = definition(packed=True)
    s = te.create_schedule(y.op)
    acc = s.cache_write(y, "global")
    ro, co, ri, ci = s[y].tile(y.op.axis[0], y.op.axis[1], BLOCK, BLOCK)
    s[acc].compute_at(s[y], co)
    ar, ac = s[acc].op.axis
    (red,) = s[acc].op.reduce_axis
    rk, rl = s[acc].split(red, factor=KSPLIT)
    s[acc].reorder(rk, ar, rl, ac)
    s[acc].vectorize(ac)
    s[acc].unroll(rl)
    if parallel_rows:
        s[y].parallel(ro)
    p, _, lane = s[panels].op.axis
    s[panels].vectorize(lane)
    s[panels].parallel(p)
    mod = check(s, x, w, y, data, number=50 if parallel_rows else 10)
    assert sorted(allocations(mod)) == ["Y.global", "panels"]
    assert kinds(mod, tir.ForKind.UNROLLED) == ["red.inner"]
    assert "c.c" in kinds(mod, tir.ForKind.VECTORIZED)
    want = ["p", "r.outer"] if parallel_rows else ["p"]
    assert kinds(mod, tir.ForKind.PARALLEL) == want
