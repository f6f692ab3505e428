"""TVM's "Schedule Primitives in TVM" tutorial, in our words: every primitive it shows
(split by factor and by nparts, tile, fuse, reorder, bind, compute_at, compute_inline,
compute_root) applied to a small elementwise stage; the lowered loops show the primitive,
and every CPU-buildable schedule computes what numpy computes. ``bind`` is only lowered
(TVM's tutorial prints it): the lowered function launches the bound threads, and building
it for the CPU is refused naming the stage and axis."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir

from .helpers import launches, loops

ROWS, COLS = 23, 17           # not multiples of the factors below: guards are exercised


def copy2d():
    r, c = te.var("r"), te.var("c")
    src = te.placeholder((r, c), name="src")
    dst = te.compute((r, c), lambda i, j: src[i, j] * 3.0, name="dst")
    return src, dst


def run2d(s, src, dst):
    a = np.random.default_rng(5).random((ROWS, COLS), dtype="float32")
    out = np.zeros_like(a)
    tvm.build(s, [src, dst])(a, out)
    np.testing.assert_allclose(out, a * 3.0, rtol=1e-6)


def test_default_schedule_is_row_major():
    r, c = te.var("r"), te.var("c")
    p = te.placeholder((r, c), name="p")
    q = te.placeholder((r, c), name="q")
    prod = te.compute((r, c), lambda i, j: p[i, j] * q[i, j], name="prod")
    s = te.create_schedule([prod.op])
    assert list(loops(tvm.lower(s, [p, q, prod], simple_mode=True))) == ["i", "j"]
    a = np.random.default_rng(1).random((4, 6), dtype="float32")
    b = np.random.default_rng(2).random((4, 6), dtype="float32")
    out = np.zeros_like(a)
    tvm.build(s, [p, q, prod])(a, b, out)
    np.testing.assert_allclose(out, a * b, rtol=1e-6)


@pytest.mark.parametrize("how", ["factor", "nparts"])
def test_split(how):
    n = te.var("n")
    v = te.placeholder((n,), name="v")
    w = te.compute((n,), lambda i: v[i] * 2.0, name="w")
    s = te.create_schedule(w.op)
    outer, inner = s[w].split(w.op.axis[0], **{how: 8})
    text = str(tvm.lower(s, [v, w], simple_mode=True))
    assert ("range((n + 7) // 8)" in text) and (
        "i_inner in range(8)" in text if how == "factor" else "i_outer in range(8)" in text)
    a = np.arange(29, dtype="float32")
    out = np.zeros_like(a)
    tvm.build(s, [v, w])(a, out)
    np.testing.assert_allclose(out, a * 2.0)


def test_tile_fuse_reorder():
    src, dst = copy2d()
    s = te.create_schedule(dst.op)
    xo, yo, xi, yi = s[dst].tile(dst.op.axis[0], dst.op.axis[1], x_factor=6, y_factor=4)
    assert list(loops(tvm.lower(s, [src, dst]))) == ["i.outer", "j.outer", "i.inner", "j.inner"]
    run2d(s, src, dst)

    s = te.create_schedule(dst.op)
    xo, yo, xi, yi = s[dst].tile(dst.op.axis[0], dst.op.axis[1], x_factor=6, y_factor=4)
    fused = s[dst].fuse(xi, yi)
    assert fused.name == "i.inner.j.inner.fused"
    assert "i_inner_j_inner_fused in range(24)" in str(tvm.lower(s, [src, dst]))
    run2d(s, src, dst)

    s = te.create_schedule(dst.op)
    xo, yo, xi, yi = s[dst].tile(dst.op.axis[0], dst.op.axis[1], x_factor=6, y_factor=4)
    s[dst].reorder(xi, yo, xo, yi)
    assert list(loops(tvm.lower(s, [src, dst]))) == ["i.inner", "j.outer", "i.outer", "j.inner"]
    run2d(s, src, dst)


def test_bind_lowers_to_thread_launches_and_cpu_build_refuses():
    n = te.var("n")
    v = te.placeholder((n,), name="v")
    w = te.compute(v.shape, lambda i: v[i] * 2.0, name="w")
    s = te.create_schedule(w.op)
    blocks, threads = s[w].split(w.op.axis[0], factor=32)
    s[w].bind(blocks, te.thread_axis("blockIdx.x"))
    s[w].bind(threads, te.thread_axis("threadIdx.x"))
    mod = tvm.lower(s, [v, w], simple_mode=True)
    assert [t for t, _ in launches(mod)] == ["blockIdx.x", "threadIdx.x"]
    assert int(launches(mod)[1][1]) == 32
    assert not loops(mod)                        # no For left: the threads are the loops
    text = str(mod)
    assert "T.launch_thread('blockIdx.x', (n + 31) // 32)" in text
    assert "T.likely(blockIdx_x * 32 + threadIdx_x < n)" in text
    with pytest.raises(tvm.TepadError, match=r"stage w: axis i.outer is bound to blockIdx.x; "
                                             r"the 'llvm' target builds CPU loops"):
        tvm.build(s, [v, w])
    with pytest.raises(tvm.TepadError, match="stage w: a loop is bound to blockIdx.x"):
        tvm.build(mod)


def chain():
    m = te.var("m")
    v = te.placeholder((m,), name="v")
    mid = te.compute((m,), lambda i: v[i] + 1.0, name="mid")
    out = te.compute((m,), lambda i: mid[i] * 2.0, name="out")
    return v, mid, out


def run_chain(s, args):
    a = np.linspace(-1, 1, 13, dtype="float32")
    outs = [np.zeros_like(a) for _ in args[1:]]
    tvm.build(s, args)(a, *outs)
    np.testing.assert_allclose(outs[-1], (a + 1.0) * 2.0, rtol=1e-6)
    return outs


@pytest.mark.parametrize("where", ["root", "at", "inline", "at_then_root"])
def test_compute_at_inline_root(where):
    v, mid, out = chain()
    s = te.create_schedule(out.op)
    if where in ("at", "at_then_root"):
        s[mid].compute_at(s[out], out.op.axis[0])
    if where == "inline":
        s[mid].compute_inline()
    if where == "at_then_root":
        s[mid].compute_root()
    func = tvm.lower(s, [v, mid, out], simple_mode=True)["main"]
    nest = [n for n in (func.body.seq if isinstance(func.body, tir.SeqStmt) else [func.body])]
    # root: two loop nests one after the other; at: one loop doing both; inline: one loop,
    # and mid is not written at all
    assert len(nest) == (1 if where in ("at", "inline") else 2)
    outs = run_chain(s, [v, mid, out])
    if where != "inline":
        np.testing.assert_allclose(outs[0], np.linspace(-1, 1, 13, dtype="float32") + 1.0)
