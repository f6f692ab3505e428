"""remove_no_op alone: statements that provably do nothing are removed."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.passes import remove_no_op
from tepad.tir import stmt as S

from lower_helpers import calls, fors, func, loops, nodes

ZERO = tir.const(0.0)


def bufs():
    return tir.decl_buffer((8,), "float32", "A"), tir.decl_buffer((8,), "float32", "B")


def test_write_back_is_removed_with_its_loop():
    A, B = bufs()
    i = tir.Var("i")
    keep = loops([(i, 8)], tir.BufferStore(B, A[i], [i]))
    f = func([A, B], tir.seq(loops([(i, 8)], tir.BufferStore(A, A[i], [i])), keep))
    g = remove_no_op(f)
    assert tir.structural_equal(g.body, keep)


def test_overwritten_store_is_removed():
    A, B = bufs()
    f = func([A, B], tir.seq(tir.BufferStore(A, B[0], [3]), tir.BufferStore(A, B[1], [3])))
    g = remove_no_op(f)
    (st,) = nodes(g, S.BufferStore)
    assert str(st.value) == "B[1]"
    # but not when the second store reads the first one's value
    f2 = func([A, B], tir.seq(tir.BufferStore(A, B[0], [3]), tir.BufferStore(A, A[3] + 1.0, [3])))
    assert remove_no_op(f2) is f2


def test_store_overwritten_by_a_full_loop_nest():
    A, B = bufs()
    i = tir.Var("i")
    full = loops([(i, 8)], tir.BufferStore(A, B[i], [i]))
    f = func([A, B], tir.seq(tir.BufferStore(A, ZERO, [5]), full))
    assert tir.structural_equal(remove_no_op(f).body, full)
    # a loop that covers only part of A does not make the first store dead
    part = tir.For(i, 0, 4, "serial", tir.BufferStore(A, B[i], [i]))
    f2 = func([A, B], tir.seq(tir.BufferStore(A, ZERO, [5]), part))
    assert remove_no_op(f2) is f2


def test_store_of_assumed_value_is_removed_but_assume_kept():
    A, B = bufs()
    i = tir.Var("i")
    assume = loops([(i, 8)], tir.Evaluate(tir.assume(tir.any(i < 6, A[i] == ZERO))))
    f = func([A, B], tir.seq(assume,
                             tir.BufferStore(A, ZERO, [7]),       # known: A[7] == 0
                             tir.BufferStore(A, ZERO, [2]),       # not known
                             tir.BufferStore(B, A[7], [0])))
    g = remove_no_op(f)
    assert len(calls(g, "tir.assume")) == 1
    stores = nodes(g, S.BufferStore)
    assert [(s.buffer.name, str(s.indices[0])) for s in stores] == [("A", "2"), ("B", "0")]
    a = np.arange(8, dtype="float32")
    a[6:] = 0.0
    b = np.zeros(8, "float32")
    tepad.build(tepad.lower.passes.remove_assume(g))(a, b)
    np.testing.assert_array_equal(a, [0, 1, 0, 3, 4, 5, 0, 0])


def test_fact_is_dropped_after_a_write_in_between():
    A, B = bufs()
    f = func([A, B], tir.seq(tir.Evaluate(tir.assume(A[7] == ZERO)),
                             tir.BufferStore(A, tir.const(1.0), [7]),
                             tir.BufferStore(B, A[7], [0]),
                             tir.BufferStore(A, ZERO, [7])))           # A[7] is 1 here: keep
    g = remove_no_op(f)
    assert len(nodes(g, S.BufferStore)) == 3


def test_padding_loop_storing_the_assumed_value_is_removed():
    A, B = bufs()
    i = tir.Var("i")
    assume = loops([(i, 8)], tir.Evaluate(tir.assume(tir.any(i < 6, A[i] == ZERO))))
    pad = tir.For(i, 6, 2, "serial", tir.BufferStore(A, ZERO, [i]))     # A[6:8] = 0: no-op
    g = remove_no_op(func([A, B], tir.seq(assume, pad)))
    assert not nodes(g, S.BufferStore)


def test_a_loop_that_really_changes_the_buffer_loses_the_fact():
    A, B = bufs()
    i = tir.Var("i")
    assume = loops([(i, 8)], tir.Evaluate(tir.assume(tir.any(i < 6, A[i] == ZERO))))
    # A[6] = 0 is a no-op, A[7] = 1 is not: the loop stays whole, and so does the later store
    # of 0 to A[7], which the loop made necessary
    pad = tir.For(i, 6, 2, "serial", tir.BufferStore(
        A, tir.if_then_else(i == 6, ZERO, tir.const(1.0)), [i]))
    again = tir.BufferStore(A, ZERO, [7])
    g = remove_no_op(func([A, B], tir.seq(assume, pad, again)))
    assert len(nodes(g, S.BufferStore)) == 2


def test_empty_and_zero_trip_loops_removed():
    A, B = bufs()
    i, n = tir.Var("i"), tir.Var("n")
    st = tir.BufferStore(B, A[0], [0])
    body = tir.seq(tir.For(i, 0, 0, "serial", st),
                   tir.For(i, 0, 4, "serial", tir.Evaluate(0)),
                   tir.IfThenElse(n > 0, tir.Evaluate(0), tir.Evaluate(1)),
                   st)
    g = remove_no_op(func([A, B], body))
    assert g.body is st


def test_nothing_to_do_returns_same_object():
    A, B = bufs()
    i = tir.Var("i")
    f = func([A, B], loops([(i, 8)], tir.BufferStore(B, A[i] * 2.0, [i])))
    assert remove_no_op(f) is f


def test_overwritten_store_whose_index_reads_the_buffer():
    """``X[X[0]] = 5; X[X[0]] = 7`` with X[0] == 0: the first store sets X[0] = 5, so the
    second writes X[5]. Dropping the first store writes X[0] = 7 instead."""
    X = tir.decl_buffer((8,), "int32", "X")
    f = func([X], tir.seq(tir.BufferStore(X, tir.const(5), [X[0]]),
                          tir.BufferStore(X, tir.const(7), [X[0]])))
    x = np.zeros(8, "int32")
    tepad.build(f)(x)
    assert x[0] == 5 and x[5] == 7                          # what the input does
    y = np.zeros(8, "int32")
    tepad.build(remove_no_op(f))(y)
    np.testing.assert_array_equal(y, x)
