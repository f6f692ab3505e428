"""remove_branching_through_overcompute alone: drop guards whose skipped work is a no-op."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.layout import to_physical
from tepad.lower.passes import remove_branching_through_overcompute as rbto
from tepad.tir import stmt as S

from lower_helpers import func, loops, nodes, rand

MAP = lambda i, j: [i, j // 4, j % 4]       # noqa: E731


def row_sum(pad):
    """RFC 0077 row summation: B[i] = sum_k A[i, k], A (16, 14) stored (16, 4, 4)."""
    A = te.placeholder((16, 14), "float32", name="A")
    k = te.reduce_axis((0, 14), "k")
    B = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].split(k, factor=4)
    s[A].transform_layout(MAP, pad_value=pad)
    return tepad.lower(s, [A, B])["main"]


def test_row_summation_with_zero_padding_loses_its_guard():
    f = row_sum(0.0)
    assert len(nodes(f, S.IfThenElse)) == 1
    g = rbto(f)
    assert not nodes(g, S.IfThenElse)
    assert "B[i_1] = B[i_1] + A[i_1, k_outer, k_inner]" in g.script()
    a = rand((16, 14))
    b = np.zeros(16, "float32")
    tepad.build(g)(to_physical(a, MAP, 0.0), b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5, atol=1e-5)


def test_nonzero_or_no_pad_value_keeps_the_guard():
    for pad in (1.0, None):
        g = rbto(row_sum(pad))
        assert len(nodes(g, S.IfThenElse)) == 1, pad


def test_equal_branches_under_the_negation_collapse():
    """``if i < 4: A[i] = B[i] else: A[i] = B[min(i, 7)]``: for i >= 4 both are the same."""
    A = tir.decl_buffer((8,), "float32", "A")
    B = tir.decl_buffer((8,), "float32", "B")
    i = tir.Var("i")
    body = loops([(i, 8)], tir.IfThenElse(i < 4, tir.BufferStore(A, B[i], [i]),
                                          tir.BufferStore(A, B[tir.min(i, 7)], [i])))
    g = rbto(func([A, B], body))
    assert not nodes(g, S.IfThenElse)
    a = np.zeros(8, "float32")
    b = rand((8,))
    tepad.build(g)(a, b)
    np.testing.assert_array_equal(a, b)


def test_guard_protecting_an_out_of_bounds_access_is_kept():
    """Under ``not (i < 8)`` the write-back ``A[i] = A[i]`` is a no-op, but A has 8 cells."""
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 10)], tir.IfThenElse(i < 8, tir.BufferStore(A, A[i], [i]))))
    g = rbto(f)
    assert len(nodes(g, S.IfThenElse)) == 1


def test_nothing_to_do_returns_same_object():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 8)], tir.BufferStore(A, A[i] * 2.0, [i])))
    assert rbto(f) is f
