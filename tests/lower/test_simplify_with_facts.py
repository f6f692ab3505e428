"""simplify_with_facts alone: simplify plus tir.assume facts and known buffer contents."""
import numpy as np

import tepad
from tepad import tir
from tepad.lower.passes import simplify, simplify_with_facts, remove_assume
from tepad.tir import expr as E
from tepad.tir import stmt as S

from lower_helpers import calls, func, loops, nodes


def test_scalar_assume_makes_division_constant_and_assume_is_kept():
    A = tir.decl_buffer((16,), "int32", "A")
    n, i = tir.Var("n"), tir.Var("i")
    body = tir.seq(tir.Evaluate(tir.assume(tir.all(n >= 0, n < 8))),
                   loops([(i, 16)], tir.BufferStore(A, n // 8 + i, [i])))
    f = func([A], body)
    assert "n // 8" in str(simplify(f).body)                     # plain simplify cannot
    g = simplify_with_facts(f)
    (st,) = nodes(g, S.BufferStore)
    assert str(st.value) == "i"
    assert len(calls(g, "tir.assume")) == 1


def test_assume_only_holds_after_it():
    A = tir.decl_buffer((16,), "int32", "A")
    n, i = tir.Var("n"), tir.Var("i")
    body = tir.seq(loops([(i, 16)], tir.BufferStore(A, n // 8, [i])),
                   tir.Evaluate(tir.assume(tir.all(n >= 0, n < 8))))
    g = simplify_with_facts(func([A], body))
    assert "n // 8" in str(g.body)


def padded_input():
    """assume nest on A (pad cells 14, 15 hold 0), then B[0] = sum over all 16 cells of A."""
    A = tir.decl_buffer((16,), "float32", "A")
    B = tir.decl_buffer((1,), "float32", "B")
    i, k = tir.Var("i"), tir.Var("k")
    assume = loops([(i, 16)], tir.Evaluate(tir.assume(tir.any(i < 14, A[i] == tir.const(0.0)))))
    return A, B, k, assume


def test_buffer_fact_replaces_a_load_in_its_box():
    A, B, k, assume = padded_input()
    body = tir.seq(assume, tir.BufferStore(B, A[15] + A[3], [0]))
    g = simplify_with_facts(func([A, B], body))
    (st,) = [s for s in nodes(g, S.BufferStore) if s.buffer is B]
    assert str(st.value) == "A[3]"                        # A[15] is padding: 0
    a = np.arange(16, dtype="float32")
    a[14:] = 0.0
    b = np.zeros(1, "float32")
    tepad.build(remove_assume(g))(a, b)
    assert b[0] == 3.0


def test_load_in_a_loop_is_replaced_only_where_provable():
    A, B, k, assume = padded_input()
    body = tir.seq(assume, tir.For(k, 14, 2, "serial", tir.BufferStore(B, B[0] + A[k], [0])),
                   tir.For(k, 10, 6, "serial", tir.BufferStore(B, B[0] + A[k], [0])))
    g = simplify_with_facts(func([A, B], body))
    first, second = [s for s in nodes(g, S.BufferStore)]
    assert str(first.value) == "B[0]"                     # k in [14, 16): A[k] == 0
    assert "A[k]" in str(second.value)                    # k in [10, 16): not provable


def test_fact_dropped_after_a_write():
    A, B, k, assume = padded_input()
    body = tir.seq(assume, tir.BufferStore(A, tir.const(5.0), [15]),
                   tir.BufferStore(B, A[15], [0]))
    g = simplify_with_facts(func([A, B], body))
    # the assumed 0.0 is gone: the load stays, or the value just stored replaces it
    assert str(nodes(g, S.BufferStore)[-1].value) in ("A[15]", "T.float32(5.0)")


def test_padding_loop_is_a_fact_for_later_reads():
    A = tir.decl_buffer((16,), "float32", "A")
    B = tir.decl_buffer((1,), "float32", "B")
    i = tir.Var("i")
    pad = loops([(i, 16)], tir.IfThenElse(i >= 12, tir.BufferStore(A, tir.const(2.0), [i])))
    body = tir.seq(pad, tir.BufferStore(B, A[13] * A[1], [0]))
    g = simplify_with_facts(func([A, B], body))
    v = str(nodes(g, S.BufferStore)[-1].value)
    assert "A[13]" not in v and "A[1]" in v and "2.0" in v
    a = np.arange(16, dtype="float32")
    b = np.zeros(1, "float32")
    tepad.build(g)(a, b)
    assert b[0] == 2.0


def test_nothing_to_do_returns_same_object():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 8)], tir.BufferStore(A, A[i] * 2.0, [i])))
    assert simplify_with_facts(f) is f
