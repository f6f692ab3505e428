"""StorageRewrite (tir.transform.StorageRewrite): intermediates whose live ranges do not
overlap share one allocation; numerics unchanged."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes.storage_rewrite import storage_rewrite

from lower_helpers import nodes

RNG = np.random.default_rng(11)


def _chain(n=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((n,), lambda i: B[i] * 2.0, name="C")
    D = te.compute((n,), lambda i: C[i] - 1.0, name="D")
    E = te.compute((n,), lambda i: D[i] * D[n - 1 - i], name="E")
    return A, B, C, D, E


def _expected(a):
    d = (a + 1.0) * 2.0 - 1.0
    return d * d[::-1]


def _data_of(func, name):
    return {s.buffer.data for s in nodes(func, tir.BufferStore) if s.buffer.name == name}


def test_chain_reuses_the_first_buffer():
    A, B, C, D, E = _chain()
    s = te.create_schedule(E.op)
    f = tepad.lower(s, [A, E])["main"]
    assert len(nodes(f, tir.Allocate)) == 3
    g = storage_rewrite(f)
    # each stage reads the previous one at the index it writes: inplace, one allocation
    assert len(nodes(g, tir.Allocate)) == 1
    assert _data_of(g, "D") == _data_of(g, "C") == _data_of(g, "B")
    assert not tir.verify(g)
    a = RNG.random(64).astype("float32")
    e = np.zeros_like(a)
    tepad.build(g)(a, e)
    np.testing.assert_allclose(e, _expected(a), rtol=1e-6)
    assert storage_rewrite(g) is g


def test_different_sizes_grow_the_shared_allocation():
    A = te.placeholder((32,), name="A")
    B = te.compute((16,), lambda i: A[i] + A[i + 16], name="B")
    C = te.compute((16,), lambda i: B[i] * 3.0, name="C")
    D = te.compute((32,), lambda i: C[i % 16] + A[i], name="D")
    E = te.compute((32,), lambda i: D[31 - i], name="E")
    s = te.create_schedule(E.op)
    g = storage_rewrite(tepad.lower(s, [A, E])["main"])
    sizes = sorted(int(a.extents[0]) for a in nodes(g, tir.Allocate))
    assert sizes == [16, 32]                             # B's memory grew to hold D
    a = RNG.random(32).astype("float32")
    e = np.zeros_like(a)
    tepad.build(g)(a, e)
    c = (a[:16] + a[16:]) * 3.0
    np.testing.assert_allclose(e, (np.tile(c, 2) + a)[::-1], rtol=1e-6)


def test_allocations_inside_a_loop_share_per_iteration():
    A = te.placeholder((8, 16), name="A")
    B = te.compute((8, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((8, 16), lambda i, j: B[i, j] + 1.0, name="C")
    D = te.compute((8, 16), lambda i, j: C[i, 15 - j], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[D], D.op.axis[0])
    s[C].compute_at(s[D], D.op.axis[0])
    f = tepad.lower(s, [A, D])["main"]
    g = storage_rewrite(f)
    # B (dead after C's row) and C (read by D's row) overlap: nothing to share
    assert len(nodes(g, tir.Allocate)) == 2
    a = RNG.random((8, 16)).astype("float32")
    d = np.zeros_like(a)
    tepad.build(g)(a, d)
    np.testing.assert_allclose(d, (a * 2.0 + 1.0)[:, ::-1])


def test_parallel_body_is_its_own_scope():
    A, B, C, D, _ = _chain(64)
    E = te.compute((64,), lambda i: D[i] * D[i], name="E")
    s = te.create_schedule(E.op)
    eo, _ = s[E].split(E.op.axis[0], nparts=4)
    s[E].parallel(eo)
    for t in (B, C, D):
        s[t].compute_at(s[E], eo)
    f = tepad.lower(s, [A, E])["main"]
    g = storage_rewrite(f)
    par = [x for x in nodes(g, tir.For) if x.kind == tir.ForKind.PARALLEL][0]
    assert len(nodes(par, tir.Allocate)) == len(nodes(g, tir.Allocate)) == 1
    a = RNG.random(64).astype("float32")
    e = np.zeros_like(a)
    tepad.build(g)(a, e)
    np.testing.assert_allclose(e, ((a + 1.0) * 2.0 - 1.0) ** 2, rtol=1e-6)


def test_tvm_pass_object_on_the_module():
    A, B, C, D, E = _chain()
    s = te.create_schedule(E.op)
    mod = tir.transform.StorageRewrite()(tepad.lower(s, [A, E]))
    assert len(nodes(mod["main"], tir.Allocate)) == 1


def test_uses_inside_a_thread_launch_last_the_whole_launch():
    """X is read and Y written in one launch: threads run side by side, so Y may not take
    X's memory even though Y's store comes after X's load in program order."""
    from lower_helpers import func as make_func
    A = tir.decl_buffer((4,), "float32", "A")
    Z = tir.decl_buffer((4,), "float32", "Z")
    B = tir.decl_buffer((4,), "float32", "B")
    X = tir.decl_buffer((4,), "float32", "X")
    Y = tir.decl_buffer((4,), "float32", "Y")

    def launch(body):
        tx = te.thread_axis("threadIdx.x")
        return tx, tir.AttrStmt(tx, "thread_extent", 4, body(tx.var))
    _, k1 = launch(lambda t: tir.BufferStore(X, A[t], [t]))
    _, k2 = launch(lambda t: tir.seq(tir.BufferStore(Z, X[3 - t], [t]),
                                     tir.BufferStore(Y, Z[t] + 1.0, [t])))
    _, k3 = launch(lambda t: tir.BufferStore(B, Y[t], [t]))
    body = tir.Allocate(X.data, "float32", [4], True, tir.seq(
        k1, tir.Allocate(Y.data, "float32", [4], True, tir.seq(k2, k3))))
    f = make_func([A, Z, B], body)
    g = storage_rewrite(f)
    assert len({a.buffer_var for a in nodes(g, tir.Allocate)}) == 2     # nothing shared


def test_symbolic_sizes_share_with_the_same_size_only():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((m, n), lambda i, j: B[i, j] * 2.0, name="C")
    D = te.compute((m, n), lambda i, j: C[i, j] - 1.0, name="D")
    E = te.compute((m, n), lambda i, j: D[i, j] * D[m - 1 - i, n - 1 - j], name="E")
    s = te.create_schedule(E.op)
    g = storage_rewrite(tepad.lower(s, [A, E])["main"])
    (alloc,) = nodes(g, tir.Allocate)
    assert not isinstance(alloc.extents[0], tir.IntImm)
    a = RNG.random((5, 7)).astype("float32")
    e = np.zeros_like(a)
    tepad.build(g)(a, e)
    d = (a + 1.0) * 2.0 - 1.0
    np.testing.assert_allclose(e, d * d[::-1, ::-1], rtol=1e-6)


def test_reading_another_element_blocks_the_inplace_rule():
    # C reads B at 63 - i: writing C over B would clobber elements still to be read
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[63 - i] * 2.0, name="C")
    D = te.compute((64,), lambda i: C[i] + B[0], name="D")
    s = te.create_schedule(D.op)
    g = storage_rewrite(tepad.lower(s, [A, D])["main"])
    assert _data_of(g, "B") != _data_of(g, "C")
    a = RNG.random(64).astype("float32")
    d = np.zeros_like(a)
    tepad.build(g)(a, d)
    b = a + 1.0
    np.testing.assert_allclose(d, b[::-1] * 2.0 + b[0], rtol=1e-6)


def test_an_allocation_moves_to_the_top_of_its_parallel_scope():
    n = tir.Var("n", "int32")
    out = tir.decl_buffer((8, 10), "float32", "out")
    tmp = tir.decl_buffer((10,), "float32", "tmp")
    i, j = tir.Var("i"), tir.Var("j")
    inner = tir.Allocate(tmp.data, "float32", [10], True, tir.seq(
        tir.BufferStore(tmp, tir.Cast("float32", i + j), [j]),
        tir.BufferStore(out, tmp[j] * 2.0, [i, j])))
    body = tir.For(i, 0, 8, "parallel", tir.For(j, 0, 10, "serial", inner))
    f = tir.PrimFunc([out.data], body, {out.data: out})
    g = storage_rewrite(f)
    assert isinstance(g.body, tir.For) and isinstance(g.body.body, tir.Allocate)
    o = np.zeros((8, 10), "float32")
    tepad.build(g)(o)
    np.testing.assert_allclose(o, (np.arange(8)[:, None] + np.arange(10)[None, :]) * 2.0)
