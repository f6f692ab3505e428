"""GPU memory allocated around a launch, and hybrid scripts' thread bindings.

A hybrid script's ``bind`` loops are the thread indices of one launch enclosing the whole
script (one per tag, as TVM's hybrid parser makes them), so its ``local``/``shared``
allocations are per thread/block; and a ``local`` allocation a hand-built function makes
just outside its launch moves into it (sink_launch_allocations). Checked through the
emulator (with its race check) against numpy, and on the IR."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes.sink_launch_allocations import sink_launch_allocations
from tepad.tir import stmt as S

from emulator_kernels import emulate_cuda
from gpu_helpers import func, launch, nodes

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


@te.hybrid.script
def row_sums(a):
    c = output_tensor((a.shape[0],), a.dtype)
    acc = allocate((1,), a.dtype, "local")
    for i in bind("threadIdx.x", a.shape[0]):
        acc[0] = 0.0
        for k in range(a.shape[1]):
            acc[0] += a[i, k]
        c[i] = acc[0]
    return c


@te.hybrid.script
def staged_add(a, b):
    c = output_tensor((64,), "float32")
    stage = allocate((64,), "float32", "shared")
    for i in bind("threadIdx.x", 64):
        stage[i] = a[i] * 2.0
    for j in bind("threadIdx.x", 64):
        c[j] = stage[63 - j] + b[j]
    return c


def _run(s, args, inputs, out_shape):
    f = tepad.build(s, args, "cuda")
    dev = tepad.cuda(0)
    out = tepad.nd.array(np.zeros(out_shape, "float32"), dev)
    f(*[tepad.nd.array(x, dev) for x in inputs], out)
    return out.numpy()


def test_local_accumulator_is_per_thread():
    a = te.placeholder((16, 5), name="a")
    c = row_sums(a)
    # one launch around the script; the accumulator is allocated inside it
    assert isinstance(c.op.body, S.AttrStmt) and c.op.body.attr_key == "thread_extent"
    an = np.random.default_rng(0).standard_normal((16, 5)).astype("float32")
    got = _run(te.create_schedule(c.op), [a, c], [an], (16,))
    np.testing.assert_allclose(got, an.sum(axis=1), rtol=1e-5)


def test_binds_of_one_tag_share_the_launch_and_its_shared_memory():
    a = te.placeholder((64,), name="a")
    b = te.placeholder((64,), name="b")
    c = staged_add(a, b)
    launches = nodes(c.op.body, S.AttrStmt)
    assert [x.node.thread_tag for x in launches if x.attr_key == "thread_extent"] == \
        ["threadIdx.x"]
    rng = np.random.default_rng(1)
    an = rng.standard_normal(64).astype("float32")
    bn = rng.standard_normal(64).astype("float32")
    got = _run(te.create_schedule(c.op), [a, b, c], [an, bn], (64,))
    np.testing.assert_allclose(got, an[::-1] * 2 + bn, rtol=1e-5)
    np.testing.assert_allclose(staged_add(an, bn), an[::-1] * 2 + bn, rtol=1e-5)


def test_one_tag_with_two_extents_is_refused():
    @te.hybrid.script
    def two_extents(a):
        c = output_tensor((8,), "float32")
        for i in bind("threadIdx.x", 8):
            c[i] = a[i]
        for j in bind("threadIdx.x", 4):
            c[j] = a[j] + 1.0
        return c

    with pytest.raises(tepad.TepadError, match="every bind of one thread tag"):
        two_extents(te.placeholder((8,), name="a"))


def test_hand_built_local_allocation_moves_into_its_launch():
    n = 8
    A = tir.decl_buffer((n,), "float32", name="A")
    B = tir.decl_buffer((n,), "float32", name="B")
    t = tir.decl_buffer((1,), "float32", name="t", scope="local")
    tx = te.thread_axis("threadIdx.x")
    body = S.SeqStmt([S.BufferStore(t, A.vload([tx.var]) * 3.0, [0]),
                      S.BufferStore(B, t.vload([0]) + 1.0, [tx.var])])
    kernel = S.AttrStmt(tx, "thread_extent", n, body)
    fn = func([A, B], S.Allocate(t.data, "float32", [1], tir.const(True), kernel,
                                 {"scope": "local"}))
    moved = sink_launch_allocations(fn)
    assert isinstance(moved.body, S.AttrStmt) and isinstance(moved.body.body, S.Allocate)
    # a global allocation, or one used by two kernels, stays where it is
    kept = sink_launch_allocations(fn.with_body(S.Allocate(
        t.data, "float32", [1], tir.const(True), kernel, {"scope": "global"})))
    assert isinstance(kept.body, S.Allocate)
    two = S.Allocate(t.data, "float32", [1], tir.const(True), S.SeqStmt([kernel, kernel]),
                     {"scope": "local"})
    assert isinstance(sink_launch_allocations(fn.with_body(two)).body, S.Allocate)
    mod = tepad.build(fn, target="cuda")
    a = np.arange(n, dtype="float32")
    dev = tepad.cuda(0)
    out = tepad.nd.array(np.zeros(n, "float32"), dev)
    mod(tepad.nd.array(a, dev), out)
    np.testing.assert_allclose(out.numpy(), a * 3 + 1)


def test_axis_of_a_hybrid_stage_binds_to_a_thread():
    @te.hybrid.script
    def plain_add(a, b):
        c = output_tensor((128,), "float32")
        for i in range(128):
            c[i] = a[i] + b[i]
        return c

    a = te.placeholder((128,), name="a")
    b = te.placeholder((128,), name="b")
    c = plain_add(a, b)
    s = te.create_schedule(c.op)
    bx, tx = s[c].split(c.op.axis[0], factor=32)
    s[c].bind(bx, te.thread_axis("blockIdx.x"))
    s[c].bind(tx, te.thread_axis("threadIdx.x"))
    rng = np.random.default_rng(2)
    an = rng.standard_normal(128).astype("float32")
    bn = rng.standard_normal(128).astype("float32")
    np.testing.assert_allclose(_run(s, [a, b, c], [an, bn], (128,)), an + bn, rtol=1e-6)
