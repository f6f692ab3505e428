"""remove_assume alone: no tir.assume remains; assume-only loops vanish; nothing else changes."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.layout import to_physical
from tepad.lower.passes import remove_assume
from tepad.tir import stmt as S

from lower_helpers import calls, func, loops, nodes, rand


def padded_input_func():
    A = te.placeholder((6, 7), "float32", name="A")
    B = te.compute((6, 7), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i, j: [i, j // 4, j % 4], pad_value=0.0)
    return tepad.lower(s, [A, B])["main"]


def test_assume_loop_nest_is_removed_entirely():
    f = padded_input_func()
    assert calls(f, "tir.assume")
    n_loops = len(nodes(f, S.For))
    g = remove_assume(f)
    assert not calls(g, "tir.assume")
    assert "assume" not in g.script()
    # the 3-deep nest that only evaluated assumptions is gone; the compute nest stays as it was
    assert len(nodes(g, S.For)) == n_loops - 3
    assert tir.structural_equal(g.body, f.body.seq[1])


def test_numerics_unchanged():
    g = remove_assume(padded_input_func())
    a = rand((6, 7))
    b = np.zeros((6, 7), "float32")
    tepad.build(g)(to_physical(a, lambda i, j: [i, j // 4, j % 4], 0.0), b)
    np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)


def test_assume_inside_expression_becomes_true_and_if_branches_are_cleaned():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    store = tir.BufferStore(A, A[i] * 2.0, [i])
    body = loops([(i, 4)], tir.seq(
        tir.IfThenElse(tir.assume(A[i] > tir.const(0.0)), store),
        # then-branch only an assumption: the if becomes `if not c: else-branch`
        tir.IfThenElse(i < 2, tir.Evaluate(tir.assume(A[i] == tir.const(1.0))),
                       tir.BufferStore(A, A[i] + 1.0, [i]))))
    g = remove_assume(func([A], body))
    assert not calls(g, "tir.assume")
    ifs = nodes(g, S.IfThenElse)
    assert len(ifs) == 2
    first = [s for s in ifs if s.then_case is store][0]
    second = [s for s in ifs if s is not first][0]
    assert isinstance(first.condition, tir.IntImm) and first.condition.value == 1
    assert second.else_case is None and isinstance(second.condition, tir.Not)
    assert str(second.then_case.value) == "A[i] + T.float32(1.0)"
    a = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    tepad.build(g)(a)
    np.testing.assert_array_equal(a, [2.0, 4.0, 7.0, 9.0])


def test_statement_form():
    i = tir.Var("i")
    st = loops([(i, 3)], tir.Evaluate(tir.assume(i < 3)))
    assert tir.is_no_op(remove_assume(st))


def test_nothing_to_do_returns_same_object():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B])["main"]
    assert remove_assume(f) is f
