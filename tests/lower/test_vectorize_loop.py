"""vectorize_loop alone: VECTORIZED loops -> Ramp/Broadcast vector statements."""
import importlib
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.passes import vectorize_loop
from tepad.tir import expr as E
from tepad.tir import stmt as S
from tepad.tir.stmt import ForKind

from lower_helpers import fors, func, nodes, rand


def axpy(n, kind="vectorized", guard=None):
    """for i in vectorized(n): C[i] = A[i] * 2 + B[0]  (flat buffers, as after StorageFlatten)."""
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((1,), "float32", "B")
    C = tir.decl_buffer((n,), "float32", "C")
    i = tir.Var("i")
    st = tir.BufferStore(C, A[i] * 2.0 + B[0], [i])
    if guard is not None:
        st = tir.IfThenElse(guard(i), st)
    return func([A, B, C], tir.For(i, 0, n, kind, st))


def check(f, n):
    a, b = rand((n,)), rand((1,))
    c = np.full(n, -1.0, "float32")
    tepad.build(f)(a, b, c)
    return a, b, c


def test_loop_becomes_one_vector_store():
    f = axpy(8)
    g = vectorize_loop(f)
    assert not fors(g)
    (st,) = nodes(g, S.BufferStore)
    assert isinstance(st.indices[0], E.Ramp) and st.indices[0].lanes == 8
    assert st.value.dtype == "float32x8"
    assert nodes(g, E.Broadcast)                   # the scalars B[0] and 2.0 are broadcast
    a, b, c = check(g, 8)
    np.testing.assert_allclose(c, a * 2.0 + b[0], rtol=1e-6)


@pytest.mark.parametrize("n,max_lanes,widths", [
    (32, 8, {8}),            # a serial loop over 4 vector bodies
    (12, 8, {8, 4}),         # 8 + 4
    (10, 64, {8}),           # 8 + a scalar tail of 2
])
def test_wide_and_odd_extents(n, max_lanes, widths):
    g = vectorize_loop(axpy(n), max_lanes=max_lanes)
    assert not fors(g, "vectorized")
    got = {x.lanes for x in nodes(g, E.Ramp)}
    assert got == widths
    assert all(x.lanes <= max_lanes for x in nodes(g, E.Ramp))
    a, b, c = check(g, n)
    np.testing.assert_allclose(c, a * 2.0 + b[0], rtol=1e-6)


def test_lane_dependent_guard_gets_a_vector_and_a_scalar_path():
    g = vectorize_loop(axpy(8, guard=lambda i: tir.likely(i < 5)))
    ite = g.body
    assert isinstance(ite, S.IfThenElse)
    assert nodes(ite.then_case, E.Ramp)                       # vector path
    assert isinstance(ite.else_case, S.For) and ite.else_case.kind == ForKind.SERIAL
    a, b, c = check(g, 8)
    np.testing.assert_allclose(c[:5], a[:5] * 2.0 + b[0], rtol=1e-6)
    assert (c[5:] == -1.0).all()


def test_lane_dependent_guard_gets_a_vector_and_a_masked_vector_path(monkeypatch):
    monkeypatch.setattr(importlib.import_module("tepad.lower.passes.vectorize_loop"),
                        "TAILS", "masked")
    g = vectorize_loop(axpy(8, guard=lambda i: tir.likely(i < 5)))
    ite = g.body
    assert isinstance(ite, S.IfThenElse)
    assert nodes(ite.then_case, E.Ramp)                       # vector path
    masked = ite.else_case                                    # the guard as a lane mask
    assert isinstance(masked, S.IfThenElse) and masked.condition.dtype == "boolx8"
    assert not fors(masked) and nodes(masked.then_case, E.Ramp)
    a, b, c = check(g, 8)
    np.testing.assert_allclose(c[:5], a[:5] * 2.0 + b[0], rtol=1e-6)
    assert (c[5:] == -1.0).all()


def test_symbolic_extent_becomes_annotated_serial_loop():
    A = tir.decl_buffer((64,), "float32", "A")
    n, i = tir.Var("n"), tir.Var("i")
    f = func([A], tir.For(i, 0, n, "vectorized", tir.BufferStore(A, A[i] + 1.0, [i])))
    g = vectorize_loop(f)
    (loop,) = fors(g)
    assert loop.kind == ForKind.SERIAL and loop.annotations.get("llvm.vectorize") is True
    assert not nodes(g, E.Ramp)


def test_store_index_not_depending_on_the_lane_is_not_vectorized():
    A = tir.decl_buffer((8,), "float32", "A")
    S_ = tir.decl_buffer((1,), "float32", "S")
    i = tir.Var("i")
    f = func([A, S_], tir.For(i, 0, 8, "vectorized", tir.BufferStore(S_, S_[0] + A[i], [0])))
    g = vectorize_loop(f)
    (loop,) = fors(g)
    assert loop.kind == ForKind.SERIAL and not nodes(g, E.Ramp)
    a = rand((8,))
    s = np.zeros(1, "float32")
    tepad.build(g)(a, s)
    np.testing.assert_allclose(s[0], a.sum(), rtol=1e-5)


def test_nothing_to_do_returns_same_object():
    f = axpy(8, kind="serial")
    assert vectorize_loop(f) is f


def test_loop_over_vector_elements_becomes_one_wider_vector():
    # a loop over the float32x4 elements of a buffer (each access a Ramp of 4 lanes):
    # vectorizing it over 4 elements gives consecutive Ramps of 16 lanes
    A = tir.decl_buffer((32,), "float32", "A")
    C = tir.decl_buffer((32,), "float32", "C")
    i, j = tir.Var("i"), tir.Var("j")
    at = tir.Ramp(i * 16 + j * 4, 1, 4)
    st = tir.BufferStore(C, tir.BufferLoad(A, [at]) * tir.Broadcast(tir.const(3.0, "float32"), 4)
                         + tir.Broadcast(tir.const(1.0, "float32"), 4), [at])
    f = func([A, C], tir.For(i, 0, 2, "serial", tir.For(j, 0, 4, "vectorized", st)))
    g = vectorize_loop(f)
    assert [x.loop_var.name for x in fors(g)] == ["i"]
    (store,) = nodes(g, S.BufferStore)
    assert isinstance(store.indices[0], E.Ramp) and store.indices[0].lanes == 16
    a = rand((32,))
    c = np.zeros(32, "float32")
    tepad.build(g)(a, c)
    np.testing.assert_allclose(c, a * 3.0 + 1.0, rtol=1e-6)
