"""instrument_bound_checks alone: every access of a flattened function is guarded."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError
from tepad.lower.passes import instrument_bound_checks
from tepad.tir import stmt as S

from lower_helpers import func, loops, nodes, rand


def shifted(n=8, shift=1, m=None):
    """for i in range(m or n): B[i] = A[i + shift]  -- out of bounds when shift > 0."""
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    i = tir.Var("i")
    return func([A, B], loops([(i, m or n)], tir.BufferStore(B, A[i + shift] * 2.0, [i])))


def test_each_access_gets_an_assert_before_it():
    f = shifted()
    g = instrument_bound_checks(f)
    asserts = nodes(g, S.AssertStmt)
    assert asserts
    text = " ".join(a.message.value for a in asserts)
    assert "A" in text and "B" in text and "load" in text and "store" in text
    # the store runs only after its checks: it is nested inside the assert chain
    (store,) = nodes(g, S.BufferStore)
    assert any(store in nodes(a, S.BufferStore) for a in asserts)


def test_out_of_bounds_read_raises_before_any_memory_is_touched():
    g = instrument_bound_checks(shifted(shift=1))
    mod = tepad.build(g)
    with pytest.raises(TepadError, match=r"A"):
        mod(rand((8,)), np.zeros(8, "float32"))


def test_in_bounds_kernel_runs_and_computes_the_same():
    g = instrument_bound_checks(shifted(shift=0))
    a = rand((8,))
    b = np.zeros(8, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b, a * 2.0, rtol=1e-6)


def test_without_the_pass_nothing_checks():
    """The control: the same out-of-bounds function builds and runs unchecked (reading one
    element past A, inside the numpy allocation's slack), so the error above is the pass's."""
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i")
    f = func([A], loops([(i, 8)], tir.BufferStore(A, A[i] + 1.0, [i + 1])))
    g = instrument_bound_checks(f)
    assert nodes(g, S.AssertStmt) and not nodes(f, S.AssertStmt)
    with pytest.raises(TepadError, match=r"store"):
        tepad.build(g)(np.zeros(16, "float32")[:8])


@pytest.mark.parametrize("shift,ok", [(0, True), (1, False)])
def test_vector_accesses_are_checked_lane_by_lane(shift, ok):
    """B[ramp(4i, 4)] = A[ramp(4i + shift, 4)]: with shift 1 only the last lane of the last
    iteration is outside A."""
    A = tir.decl_buffer((12,), "float32", "A")
    B = tir.decl_buffer((12,), "float32", "B")
    i = tir.Var("i")
    f = func([A, B], loops([(i, 3)], tir.BufferStore(
        B, A[tir.Ramp(i * 4 + shift, tir.const(1), 4)] + tir.Broadcast(tir.const(1.0), 4),
        [tir.Ramp(i * 4, tir.const(1), 4)])))
    g = instrument_bound_checks(f)
    assert nodes(g, S.AssertStmt)
    a = rand((12,))
    b = np.zeros(12, "float32")
    mod = tepad.build(g)
    if ok:
        mod(a, b)
        np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)
    else:
        with pytest.raises(TepadError, match="A"):
            mod(a, b)


def test_constant_in_range_indices_need_no_check():
    A = tir.decl_buffer((4,), "float32", "A")
    f = func([A], tir.BufferStore(A, A[0] + 1.0, [3]))
    g = instrument_bound_checks(f)
    assert not nodes(g, S.AssertStmt)
