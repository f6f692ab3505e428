"""build(..., bounds_check=True): an access outside a buffer raises TepadError, never touches
memory. The kernels here are built by hand, deliberately wrong."""
import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.passes.instrument_bound_checks import instrument_bound_checks
from tepad.tir import (Allocate, AssertStmt, BufferStore, For, ForKind, IntImm, PrimFunc, Ramp,
                       Var, decl_buffer, post_order_visit)


def _func(body_fn, n=None, dtype="float32"):
    """PrimFunc main(A, B) with A, B of shape (n,) (n symbolic unless given)."""
    n = n if n is not None else Var("n")
    A = decl_buffer((n,), dtype, "A")
    B = decl_buffer((n,), dtype, "B")
    pa, pb = Var("A", "handle"), Var("B", "handle")
    body = body_fn(A, B, n)
    return PrimFunc([pa, pb], body, {pa: A, pb: B}, {"global_symbol": "main"})


def _loop(n, body_fn, kind=ForKind.SERIAL):
    i = Var("i")
    return For(i, 0, n, kind, body_fn(i))


def _count_asserts(f):
    found = []
    post_order_visit(f.body, lambda x: found.append(x) if isinstance(x, AssertStmt) else None)
    return len(found)


def test_load_past_the_end_is_caught():
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(B, A[i + 1], [i])))
    mod = tepad.build(f, bounds_check=True)
    a = np.arange(10, dtype="float32")
    b = np.zeros(10, "float32")
    with pytest.raises(TepadError, match=r"bounds check failed: load of buffer A at index "
                                         r"i \+ 1 outside \[0, n\)"):
        mod(a, b)


def test_negative_store_index_is_caught_before_the_store():
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(B, A[i], [i - 1])), n=8)
    mod = tepad.build(f, bounds_check=True)
    a = np.arange(8, dtype="float32")
    b = np.full(8, -7.0, "float32")
    with pytest.raises(TepadError, match=r"store of buffer B at index i - 1 outside \[0, 8\)"):
        mod(a, b)
    assert (b == -7.0).all()   # the first iteration failed: nothing was written


def test_in_range_kernel_still_runs():
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(B, A[i] * 2.0, [i])))
    g = instrument_bound_checks(f)
    assert _count_asserts(g) == 2       # one load, one store
    mod = tepad.build(f, bounds_check=True)
    a = np.arange(5, dtype="float32")
    b = np.zeros(5, "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, a * 2)


def test_vector_ramp_access_is_checked_lane_by_lane():
    # B[ramp(4*io, 1, 4)] = A[ramp(4*io + 1, 1, 4)]: the last vector reads one past the end
    def body(A, B, n):
        io = Var("io")
        return For(io, 0, 2, ForKind.SERIAL,
                   BufferStore(B, A[Ramp(io * 4 + 1, IntImm(1), 4)], [Ramp(io * 4, IntImm(1), 4)]))
    f = _func(body, n=8)
    mod = tepad.build(f, bounds_check=True)
    with pytest.raises(TepadError, match=r"load of buffer A at index T.Ramp\(io \* 4 \+ 1, 1, "
                                         r"4\) outside \[0, 8\)"):
        mod(np.zeros(8, "float32"), np.zeros(8, "float32"))


def test_untaken_if_then_else_branch_is_not_checked():
    # B[i] = if_then_else(i > 0, A[i - 1], 0): A[-1] is never read, so no error
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(
        B, tir.if_then_else(i > 0, A[i - 1], tir.const(0.0, "float32")), [i])))
    mod = tepad.build(f, bounds_check=True)
    a = np.arange(1, 7, dtype="float32")
    b = np.zeros(6, "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, np.r_[0, a[:-1]])
    # ... but the taken branch is: i < n + 1 reads A[n]
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(
        B, tir.if_then_else(i >= 0, A[i + 1], tir.const(0.0, "float32")), [i])))
    with pytest.raises(TepadError, match="load of buffer A"):
        tepad.build(f, bounds_check=True)(a, b)


def test_allocated_buffer_is_checked():
    def body(A, B, n):
        t = Var("T", "handle")
        Tb = decl_buffer((4,), "float32", "T", data=t)
        i = Var("i")
        fill = For(i, 0, 5, ForKind.SERIAL, BufferStore(Tb, A[i], [i]))   # 5 > 4
        return Allocate(t, "float32", [4], IntImm(1, "bool"), fill)
    f = _func(body, n=8)
    mod = tepad.build(f, bounds_check=True)
    with pytest.raises(TepadError, match=r"store of buffer T at index i outside \[0, 4\)"):
        mod(np.zeros(8, "float32"), np.zeros(8, "float32"))


def test_error_inside_a_parallel_loop_propagates():
    f = _func(lambda A, B, n: _loop(n, lambda i: BufferStore(B, A[i * 2], [i]),
                                    kind=ForKind.PARALLEL))
    mod = tepad.build(f, bounds_check=True)
    with pytest.raises(TepadError, match=r"load of buffer A at index i \* 2"):
        mod(np.zeros(64, "float32"), np.zeros(64, "float32"))


def test_scheduled_programs_build_and_run_with_bounds_check():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.if_then_else(i > 0, A[i - 1], A[i] * 2.0), name="B")
    C = te.compute((n,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].vectorize(xi)
    s[B].compute_at(s[C], xo)
    mod = tepad.build(s, [A, C], bounds_check=True)
    assert _count_asserts(mod.func) >= 4          # the built (flat, instrumented) function
    for size in (1, 7, 16):
        a = np.arange(size, dtype="float32")
        c = np.zeros(size, "float32")
        mod(a, c)
        np.testing.assert_allclose(c, np.where(np.arange(size) > 0, np.r_[0, a[:-1]], a * 2) + 1)


def test_pass_rejects_non_primfunc():
    with pytest.raises(TypeError):
        instrument_bound_checks("not a function")
