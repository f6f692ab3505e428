"""simplify alone: index math folded under loop ranges, provable guards and extent-1 loops gone."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.lower.passes import simplify
from tepad.lower.pipeline import BUILD, Options, PassLog, run_pipeline
from tepad.tir import stmt as S
from tepad.tir import expr as E

from lower_helpers import fors, func, loops, nodes, rand


def test_split_index_math_cancels():
    """(io * 4 + ii) // 4 and % 4 fold to io, ii under 0 <= ii < 4."""
    A = tir.decl_buffer((8, 4), "float32", "A")
    B = tir.decl_buffer((32,), "float32", "B")
    io, ii = tir.Var("io"), tir.Var("ii")
    j = io * 4 + ii
    body = loops([(io, 8), (ii, 4)], tir.BufferStore(B, A[j // 4, j % 4] * 2.0, [j]))
    f = func([A, B], body)
    g = simplify(f)
    (ld,) = nodes(g, E.BufferLoad)
    assert [str(x) for x in ld.indices] == ["io", "ii"]
    assert not nodes(g, E.FloorDiv) and not nodes(g, E.FloorMod)
    a = rand((8, 4))
    b = np.zeros(32, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b, a.reshape(-1) * 2.0, rtol=1e-6)


def test_provable_guards_and_unit_loops_go_away():
    A = tir.decl_buffer((4, 8), "float32", "A")
    i, j, k = tir.Var("i"), tir.Var("j"), tir.Var("k")
    body = loops([(i, 4), (k, 1), (j, 8)], tir.seq(
        tir.IfThenElse(tir.likely(i * 8 + j < 32), tir.BufferStore(A, A[i, j] + 1.0, [i, j])),
        tir.IfThenElse(j > 9, tir.BufferStore(A, tir.const(0.0), [i, j]),
                       tir.BufferStore(A, A[i, j] * 3.0, [i, j]))))
    g = simplify(func([A], body))
    assert not nodes(g, S.IfThenElse)
    assert sorted(int(l.extent) for l in fors(g)) == [4, 8]
    assert k not in tir.collect_vars(g.body)
    a = rand((4, 8))
    out = a.copy()
    tepad.build(g)(out)
    np.testing.assert_allclose(out, (a + 1.0) * 3.0, rtol=1e-6)


def test_else_branch_uses_negated_condition_and_unprovable_guard_stays():
    A = tir.decl_buffer((10,), "int32", "A")
    i = tir.Var("i")
    body = loops([(i, 10)], tir.IfThenElse(
        i < 5, tir.BufferStore(A, tir.min(i, 7), [i]),        # i < 5 => min(i, 7) = i
        tir.BufferStore(A, tir.max(i, 3), [i])))              # i >= 5 => max(i, 3) = i
    g = simplify(func([A], body))
    (guard,) = nodes(g, S.IfThenElse)                        # not provable: kept
    assert [str(s.value) for s in nodes(g, S.BufferStore)] == ["i", "i"]
    a = np.zeros(10, "int32")
    tepad.build(g)(a)
    np.testing.assert_array_equal(a, np.arange(10))


def test_let_values_are_facts_and_a_stmt_gives_a_stmt():
    A = tir.decl_buffer((16,), "float32", "A")
    i, x = tir.Var("i"), tir.Var("x")
    st = loops([(i, 4)], tir.LetStmt(x, i * 4, tir.seq(
        tir.IfThenElse(x < 13, tir.BufferStore(A, tir.const(1.0), [x])),     # x <= 12: true
        tir.IfThenElse(x < 12, tir.BufferStore(A, tir.const(2.0), [x + 1])))))  # unknown
    out = simplify(st)
    assert isinstance(out, S.Stmt) and not isinstance(out, tir.PrimFunc)
    (guard,) = nodes(out, S.IfThenElse)
    assert str(guard.condition) == "x < 12"
    assert len(nodes(out, S.BufferStore)) == 2


def test_already_simple_function_is_the_same_object():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B])
    assert simplify(f) is f


def test_a_function_simplify_returned_comes_back_as_it_is():
    """Nothing changed since a run returned this body: the next run (a later Simplify step,
    or build's after lower's) returns the function itself; a changed body is simplified."""
    A = tir.decl_buffer((8, 4), "float32", "A")
    B = tir.decl_buffer((32,), "float32", "B")
    io, ii = tir.Var("io"), tir.Var("ii")
    j = io * 4 + ii
    body = loops([(io, 8), (ii, 4)], tir.BufferStore(B, A[j // 4, j % 4] * 2.0, [j]))
    g = simplify(func([A, B], body))
    assert simplify(g) is g
    # the same body put back together by hand is a new object: simplified again (to the
    # same text), not taken on trust
    rebuilt = g.with_body(loops([(io, 8), (ii, 4)], tir.BufferStore(B, A[j // 4, j % 4] * 2.0,
                                                                     [j])))
    h = simplify(rebuilt)
    assert h is not rebuilt and h.script() == g.script()
    assert not nodes(h, E.FloorDiv)


def test_build_after_lower_runs_no_second_simplify():
    """lower's last Simplify comes after its hoisting, so build's Simplify steps meet its
    output unchanged (they re-simplified whole deep pipelines)."""
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, k: A[i, k] * 2.0, name="B")
    C = te.compute((n - 1, n), lambda i, k: B[i, k] + B[i + 1, k], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], 8)
    s[B].compute_at(s[C], io)
    f = tepad.lower(s, [A, C])["main"]
    log = PassLog()
    run_pipeline(f, (BUILD,), Options(), log)
    steps = {st.label: st for st in log.steps}
    assert not steps["simplify.vectorized"].changed


def test_condition_under_likely_is_known_inside_the_branch():
    n = tir.Var("n", "int32")
    out = tir.decl_buffer((16,), "float32", "out")
    i = tir.Var("i", "int32")
    likely = tir.Call("bool", "tir.likely", [i < n])
    inner = tir.IfThenElse(tir.Call("bool", "tir.likely", [i < n]),
                           tir.BufferStore(out, tir.Cast("float32", i), [i]))
    f = tir.PrimFunc([out.data, n], tir.For(i, 0, 16, body=tir.IfThenElse(likely, inner)),
                     {out.data: out})
    g = simplify(f)
    ifs = [x for x in _stmts(g.body) if isinstance(x, tir.IfThenElse)]
    assert len(ifs) == 1
    got = np.full(16, -1.0, "float32")
    tepad.build(g)(got, 9)
    np.testing.assert_array_equal(got, np.where(np.arange(16) < 9, np.arange(16), -1.0))


def _stmts(s):
    out = []
    tir.post_order_visit(s, lambda x: out.append(x))
    return out


def test_let_of_a_constant_is_inlined_and_dropped():
    n = tir.Var("n", "int32")
    out = tir.decl_buffer((16,), "float32", "out")
    i = tir.Var("i", "int32")
    loop = tir.For(i, 0, n, body=tir.IfThenElse(
        i < 12, tir.BufferStore(out, tir.Cast("float32", i * 2), [i])))
    f = tir.PrimFunc([out.data], tir.LetStmt(n, 10, loop), {out.data: out})
    g = simplify(f)
    assert isinstance(g.body, tir.For) and int(g.body.extent) == 10
    assert isinstance(g.body.body, tir.BufferStore)       # i < 12 holds for i < 10
    got = np.full(16, -1.0, "float32")
    tepad.build(g)(got)
    np.testing.assert_array_equal(got, np.where(np.arange(16) < 10, np.arange(16) * 2.0, -1.0))


def test_let_used_by_a_buffer_definition_stays():
    m = tir.Var("m", "int32")
    out = tir.decl_buffer((16,), "float32", "out")
    view = tir.decl_buffer((m,), "float32", "view", data=out.data)
    f = tir.PrimFunc([out.data], tir.LetStmt(m, 16, tir.BufferStore(view, 1.0, [0])),
                     {out.data: out})
    assert isinstance(simplify(f).body, tir.LetStmt)
