"""reduce_loop_extents alone: guards on the loop var become loop bounds."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.passes import reduce_loop_extents
from tepad.tir import stmt as S

from lower_helpers import fors, func, nodes

ana = tepad.arith.Analyzer()


def guarded(cond_of, extent=16, else_case=None, mn=0):
    A = tir.decl_buffer((32,), "int32", "A")
    i = tir.Var("i")
    store = tir.BufferStore(A, A[i] + i + 1, [i])
    body = tir.For(i, mn, extent, "serial", tir.IfThenElse(cond_of(i), store, else_case))
    return func([A], body)


def run(f):
    a = np.arange(32, dtype="int32")
    tepad.build(f)(a)
    return a


def ref(pred, extent=16, mn=0):
    a = np.arange(32, dtype="int32")
    for i in range(mn, mn + extent):
        if pred(i):
            a[i] += i + 1
    return a


@pytest.mark.parametrize("cond,pred,lo,ext", [
    (lambda i: i < 10, lambda i: i < 10, 0, 10),
    (lambda i: tir.likely(i >= 3), lambda i: i >= 3, 3, 13),
    (lambda i: tir.all(2 < i, i <= 7), lambda i: 2 < i <= 7, 3, 5),
    (lambda i: i == 5, lambda i: i == 5, 5, 1),
    (lambda i: 12 > i, lambda i: i < 12, 0, 12),
])
def test_guard_becomes_bounds(cond, pred, lo, ext):
    f = guarded(cond)
    g = reduce_loop_extents(f)
    (loop,) = fors(g)
    assert not nodes(g, S.IfThenElse)
    assert int(ana.simplify(loop.min)) == lo and int(ana.simplify(loop.extent)) == ext
    np.testing.assert_array_equal(run(g), ref(pred))


def test_other_conjuncts_stay_in_the_guard():
    n = tir.Var("n")
    A = tir.decl_buffer((32,), "int32", "A")
    i = tir.Var("i")
    body = tir.For(i, 0, 16, "serial", tir.IfThenElse(
        tir.all(i < 9, i % 2 == 0), tir.BufferStore(A, i, [i])))
    g = reduce_loop_extents(func([A], body))
    (loop,) = fors(g)
    assert int(ana.simplify(loop.extent)) == 9
    (guard,) = nodes(g, S.IfThenElse)
    assert "i < 9" not in str(guard.condition) and "% 2" in str(guard.condition)
    a = np.full(32, -1, "int32")
    tepad.build(g)(a)
    np.testing.assert_array_equal(a[:16], [i if i < 9 and i % 2 == 0 else -1 for i in range(16)])


def test_empty_range_gets_extent_zero():
    g = reduce_loop_extents(guarded(lambda i: i > 40))
    (loop,) = fors(g)
    assert int(ana.simplify(loop.extent)) == 0
    np.testing.assert_array_equal(run(g), np.arange(32, dtype="int32"))


@pytest.mark.parametrize("make", [
    lambda: guarded(lambda i: i < 10,        # an else branch: not a pure guard
                    else_case=tir.BufferStore(tir.decl_buffer((1,), "int32", "X"),
                                              tir.const(0), [0])),
    lambda: guarded(lambda i: i % 3 == 0),
])
def test_not_applicable_returns_same_object(make):
    f = make()
    assert reduce_loop_extents(f) is f


def test_bound_reading_a_buffer_the_body_writes():
    """``for i in range(10): if i < A[0]: A[0] -= 1`` runs 3 times from A[0] = 5
    (i = 0, 1, 2 while A[0] goes 5, 4, 3, 2); hoisting ``A[0]`` into the extent runs it 5 times."""
    A = tir.decl_buffer((1,), "int32", "A")
    i = tir.Var("i")
    body = tir.For(i, 0, 10, "serial", tir.IfThenElse(
        i < A[0], tir.BufferStore(A, A[0] - 1, [0])))
    f = func([A], body)
    a = np.array([5], "int32")
    tepad.build(f)(a)
    assert a[0] == 2                                   # the semantics of the input
    g = reduce_loop_extents(f)
    b = np.array([5], "int32")
    tepad.build(g)(b)
    assert b[0] == 2
