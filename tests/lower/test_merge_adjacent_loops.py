"""merge_adjacent_loops alone: adjacent equal-range serial loops fuse when dependencies allow."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.passes import merge_adjacent_loops
from tepad.tir import stmt as S

from lower_helpers import fors, func, nodes, rand

N = 8


def pair(second_read_offset, extent2=N, kind2="serial"):
    """for i: B[i] = A[i] + 1 ;  for j: C[j] = B[j + off] * 2  (B padded by 1 on each side)."""
    A = tir.decl_buffer((N + 2,), "float32", "A")
    B = tir.decl_buffer((N + 2,), "float32", "B")
    C = tir.decl_buffer((N,), "float32", "C")
    i, j = tir.Var("i"), tir.Var("j")
    l1 = tir.For(i, 0, N, "serial", tir.BufferStore(B, A[i + 1] + 1.0, [i + 1]))
    l2 = tir.For(j, 0, extent2, kind2,
                 tir.BufferStore(C, B[j + 1 + second_read_offset] * 2.0, [j]))
    return func([A, B, C], tir.seq(l1, l2))


@pytest.mark.parametrize("off", [0, -1])
def test_independent_or_backward_dependence_merges(off):
    """Reading B[j] or B[j - 1]: written by iteration j / j - 1 of the first loop, which in the
    merged loop has already run."""
    f = pair(off)
    g = merge_adjacent_loops(f)
    (loop,) = fors(g)
    assert int(loop.extent) == N and isinstance(loop.body, S.SeqStmt)
    assert len(loop.body.seq) == 2
    # the second body now uses the first loop's var
    assert {loop.loop_var} == set().union(*(tir.collect_vars(s.indices[0])
                                            for s in nodes(g, S.BufferStore)))
    a = rand((N + 2,))
    b = np.zeros(N + 2, "float32")
    c = np.zeros(N, "float32")
    tepad.build(g)(a, b, c)
    b_ref = np.zeros(N + 2, "float32")
    b_ref[1:N + 1] = a[1:N + 1] + 1.0
    np.testing.assert_allclose(c, b_ref[1 + off:1 + off + N] * 2.0, rtol=1e-6)


def test_forward_dependence_is_not_merged():
    """Reading B[j + 1]: written by a *later* iteration of the first loop."""
    f = pair(+1)
    assert merge_adjacent_loops(f) is f


@pytest.mark.parametrize("kw", [{"extent2": N - 1}, {"kind2": "parallel"}])
def test_different_ranges_or_kinds_are_not_merged(kw):
    f = pair(0, **kw)
    assert merge_adjacent_loops(f) is f


def test_write_after_read_dependence():
    """First loop reads A[i - 1] + ..., second writes A[j]: for i > j the second loop would
    overwrite A[i - 1] before the first loop read it; not merged. A[j + 1] is fine."""
    A = tir.decl_buffer((N + 2,), "float32", "A")
    B = tir.decl_buffer((N + 2,), "float32", "B")
    i, j = tir.Var("i"), tir.Var("j")

    def f(off):
        return func([A, B], tir.seq(
            tir.For(i, 1, N, "serial", tir.BufferStore(B, A[i + off], [i])),
            tir.For(j, 1, N, "serial", tir.BufferStore(A, tir.const(0.0), [j]))))
    bad = f(-1)
    assert merge_adjacent_loops(bad) is bad
    good = f(+1)
    g = merge_adjacent_loops(good)
    assert len(fors(g)) == 1
    a = rand((N + 2,))
    b = np.zeros(N + 2, "float32")
    tepad.build(g)(a.copy(), b)
    np.testing.assert_array_equal(b[1:N + 1], a[2:N + 2])


def test_three_loops_merge_into_one():
    A = tir.decl_buffer((N,), "int32", "A")
    vs = [tir.Var(f"v{k}") for k in range(3)]
    body = tir.seq(*[tir.For(v, 0, N, "serial", tir.BufferStore(A, A[v] + (k + 1), [v]))
                     for k, v in enumerate(vs)])
    g = merge_adjacent_loops(func([A], body))
    (loop,) = fors(g)
    assert len(nodes(g, S.BufferStore)) == 3
    a = np.zeros(N, "int32")
    tepad.build(g)(a)
    assert (a == 6).all()
