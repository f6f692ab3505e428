"""hoist_expression alone: loop-invariant conditions (and lets) move out of loops."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.passes import hoist_expression
from tepad.lower.passes.hoist_expression import HoistConditional, HoistLetBinding
from tepad.tir import stmt as S

from lower_helpers import fors, func, loops, nodes


def two_d(cond_of, else_of=None):
    """for i in 4: for j in 6: if cond(i, j): A[i, j] = i * 10 + j [else ...]."""
    A = tir.decl_buffer((4, 6), "int32", "A")
    i, j = tir.Var("i"), tir.Var("j")
    then = tir.BufferStore(A, i * 10 + j, [i, j])
    other = else_of(A, i, j) if else_of else None
    return func([A], loops([(i, 4), (j, 6)], tir.IfThenElse(cond_of(i, j), then, other))), i, j


def run(f):
    a = np.full((4, 6), -1, "int32")
    tepad.build(f)(a)
    return a


def ref(pred, other=-1):
    return np.array([[i * 10 + j if pred(i, j) else other for j in range(6)]
                     for i in range(4)], "int32")


def test_invariant_condition_leaves_the_inner_loop():
    f, i, j = two_d(lambda i, j: i < 2)
    g = hoist_expression(f)
    outer = g.body
    assert isinstance(outer, S.For) and outer.loop_var is i
    assert isinstance(outer.body, S.IfThenElse)               # if now outside the j loop
    assert isinstance(outer.body.then_case, S.For) and outer.body.then_case.loop_var is j
    np.testing.assert_array_equal(run(g), ref(lambda i, j: i < 2))


def test_if_else_hoisted_with_both_branches():
    f, i, j = two_d(lambda i, j: i < 2, lambda A, i, j: tir.BufferStore(A, tir.const(7), [i, j]))
    g = hoist_expression(f)
    ite = g.body.body
    assert isinstance(ite, S.IfThenElse)
    assert isinstance(ite.then_case, S.For) and isinstance(ite.else_case, S.For)
    np.testing.assert_array_equal(run(g), ref(lambda i, j: i < 2, other=7))


def test_boolean_expression_splits_conjuncts():
    f, i, j = two_d(lambda i, j: tir.all(i == 1, j < 3))
    g = hoist_expression(f)
    outer_if = g.body.body
    assert str(outer_if.condition) == "i == 1"
    inner_if = outer_if.then_case.body
    assert isinstance(inner_if, S.IfThenElse) and str(inner_if.condition) == "j < 3"
    np.testing.assert_array_equal(run(g), ref(lambda i, j: i == 1 and j < 3))
    # with IF_ELSE_STMT only, a mixed condition stays where it is
    h = hoist_expression(f, conditionals=HoistConditional.IF_ELSE_STMT)
    assert h is f


def test_condition_depending_on_the_loop_or_a_written_buffer_stays():
    f, i, j = two_d(lambda i, j: j < 3)
    assert hoist_expression(f) is f
    A = tir.decl_buffer((4,), "int32", "A")
    k = tir.Var("k")
    body = loops([(k, 4)], tir.IfThenElse(A[0] < 3, tir.BufferStore(A, A[0] + 1, [0])))
    g = func([A], body)
    assert hoist_expression(g) is g
    a = np.zeros(4, "int32")
    tepad.build(hoist_expression(g))(a)
    assert a[0] == 3                        # the condition is re-read every iteration


def test_no_flags_does_nothing():
    f, _, _ = two_d(lambda i, j: i < 2)
    assert hoist_expression(f, conditionals=HoistConditional.NONE,
                            let_bindings=HoistLetBinding.NONE) is f


def test_let_required_by_condition_is_hoisted_with_it():
    A = tir.decl_buffer((4, 6), "int32", "A")
    i, j, x = tir.Var("i"), tir.Var("j"), tir.Var("x")
    body = loops([(i, 4), (j, 6)], tir.LetStmt(x, i * 2, tir.IfThenElse(
        x < 4, tir.BufferStore(A, x + j, [i, j]))))
    f = func([A], body)
    g = hoist_expression(f)
    let = g.body.body
    assert isinstance(let, S.LetStmt) and isinstance(let.body, S.IfThenElse)
    assert isinstance(let.body.then_case, S.For)
    a = np.full((4, 6), -1, "int32")
    tepad.build(g)(a)
    exp = np.array([[i * 2 + j if i * 2 < 4 else -1 for j in range(6)] for i in range(4)])
    np.testing.assert_array_equal(a, exp)


def test_adjacent_same_guards_merge():
    A = tir.decl_buffer((4,), "int32", "A")
    B = tir.decl_buffer((4,), "int32", "B")
    i, n = tir.Var("i"), tir.Var("n")
    body = loops([(i, 4)], tir.seq(tir.IfThenElse(n > 0, tir.BufferStore(A, i, [i])),
                                   tir.IfThenElse(n > 0, tir.BufferStore(B, i, [i]))))
    g = hoist_expression(body)
    assert isinstance(g, S.IfThenElse) and len(nodes(g, S.IfThenElse)) == 1
    assert isinstance(g.then_case, S.For) and len(nodes(g, S.BufferStore)) == 2
