"""unroll_loop alone: UNROLLED loops of constant extent become ``extent`` copies of the body."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes import unroll_loop
from tepad.tir import stmt as S
from tepad.tir.stmt import ForKind

from lower_helpers import fors, func, nodes, rand


def unrolled_schedule(extent=4):
    A = te.placeholder((8, extent), "float32", name="A")
    B = te.compute((8, extent), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].unroll(B.op.axis[1])
    return tepad.lower(s, [A, B], flatten=False)["main"]


def test_unrolled_loop_is_replaced_by_copies():
    f = unrolled_schedule(4)
    (u,) = fors(f, "unroll")
    g = unroll_loop(f)
    assert not fors(g, "unroll")
    (outer,) = fors(g)                           # only the serial i loop is left
    assert outer.kind == ForKind.SERIAL and int(outer.extent) == 8
    stores = nodes(g, S.BufferStore)
    assert len(stores) == 4
    # copy k has the loop var replaced by k (min 0 + k) in its indices
    for k, st in enumerate(stores):
        assert u.loop_var not in tir.collect_vars(st)
        assert int(tepad.arith.Analyzer().simplify(st.indices[1])) == k
    text = g.script()
    assert "T.unroll" not in text


def test_numerics():
    g = unroll_loop(unrolled_schedule(3))
    a = rand((8, 3))
    b = np.zeros((8, 3), "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b, a * 2.0 + 1.0, rtol=1e-6)


def test_nonzero_min_and_nested_unrolled_loops():
    A = tir.decl_buffer((16,), "int32", "A")
    i, j = tir.Var("i"), tir.Var("j")
    body = tir.For(i, 2, 3, "unroll", tir.For(j, 0, 2, "unroll",
                                             tir.BufferStore(A, i * 10 + j, [i * 2 + j])))
    g = unroll_loop(func([A], body))
    assert not nodes(g, S.For)
    got = [str(tepad.arith.Analyzer().simplify(s.indices[0])) for s in nodes(g, S.BufferStore)]
    assert got == ["4", "5", "6", "7", "8", "9"]
    a = np.zeros(16, "int32")
    tepad.build(g)(a)
    ref = np.zeros(16, "int32")
    for ii in range(2, 5):
        for jj in range(2):
            ref[ii * 2 + jj] = ii * 10 + jj
    np.testing.assert_array_equal(a, ref)


def test_symbolic_or_too_large_extent_becomes_serial():
    A = tir.decl_buffer((64,), "float32", "A")
    n, i = tir.Var("n"), tir.Var("i")
    body = tir.seq(tir.For(i, 0, n, "unroll", tir.BufferStore(A, tir.const(1.0), [i])),
                   tir.For(i, 0, 64, "unroll", tir.BufferStore(A, tir.const(2.0), [i])))
    g = unroll_loop(func([A], body), max_extent=16)
    ks = [l.kind for l in fors(g)]
    assert ks == [ForKind.SERIAL, ForKind.SERIAL]
    assert len(nodes(g, S.BufferStore)) == 2


def test_nothing_to_do_returns_same_object():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B], flatten=False)["main"]
    assert unroll_loop(f) is f
