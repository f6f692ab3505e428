"""``time_evaluator`` checks the arguments once per evaluation and runs each block's
``number`` calls in a native loop (as TVM's C++ evaluator does), so a tiny kernel is timed
without Python's per-call argument checking."""
import time

import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir
from tepad.runtime.native_loop import NativeRepeat, loop_ir


def _counting_kernel(name):
    """A kernel that calls the packed function ``name`` once per call (and copies A to B)."""
    A = te.placeholder((4,), name="A")
    B = te.extern((4,), [A], lambda ins, outs: tir.call_packed(name, ins[0], outs[0]),
                  name="B")
    return tvm.build(te.create_schedule(B.op), [A, B])


def test_each_block_calls_the_kernel_number_times():
    calls = []

    def count(a, b):
        calls.append(1)
        np.asarray(b)[:] = np.asarray(a)
    tvm.register_func("compat_test.count_calls", count, override=True)
    f = _counting_kernel("compat_test.count_calls")
    a = np.arange(4, dtype="float32")
    b = np.zeros(4, "float32")
    res = f.time_evaluator(f.entry_name, tvm.cpu(0), number=7, repeat=3)(a, b)
    assert len(calls) == 1 + 7 * 3               # one checked call, then 3 blocks of 7
    assert len(res.results) == 3
    np.testing.assert_array_equal(b, a)


def test_min_repeat_ms_grows_the_block():
    calls = []
    tvm.register_func("compat_test.quick", lambda a, b: calls.append(1), override=True)
    f = _counting_kernel("compat_test.quick")
    a = np.zeros(4, "float32")
    b = np.zeros(4, "float32")
    t0 = time.perf_counter()
    res = f.time_evaluator(f.entry_name, number=1, repeat=2, min_repeat_ms=5)(a, b)
    elapsed = time.perf_counter() - t0
    assert len(res.results) == 2
    # a call of a few microseconds: blocks of one call are far below 5 ms, so they grew
    # (to hundreds of calls) until a block lasted 5 ms; both blocks together take >= 10 ms
    assert len(calls) > 20
    assert elapsed >= 0.010


def test_a_failure_inside_the_loop_is_raised():
    state = {"n": 0}

    def fails_on_third(a, b):
        state["n"] += 1
        if state["n"] == 3:
            raise ValueError("third call fails")
    tvm.register_func("compat_test.fails", fails_on_third, override=True)
    f = _counting_kernel("compat_test.fails")
    with pytest.raises(ValueError, match="third call fails"):
        f.time_evaluator(f.entry_name, number=5)(np.zeros(4, "float32"),
                                                 np.zeros(4, "float32"))


def test_symbolic_shapes_and_scalar_arguments_in_the_loop():
    n = te.var("n")
    s = te.var("s", "float32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * s, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B, s])
    a = np.random.rand(37).astype("float32")
    b = np.zeros(37, "float32")
    res = f.time_evaluator(f.entry_name, tvm.cpu(0), number=50, repeat=2)(a, b, 1.5)
    assert res.mean > 0
    np.testing.assert_allclose(b, a * 1.5, rtol=1e-6)
    with pytest.raises(tvm.TepadError):                  # the arguments are still checked
        f.time_evaluator(f.entry_name)(a, np.zeros(36, "float32"), 1.5)


def test_a_tiny_kernel_is_timed_below_the_python_call_cost():
    n = 32
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    f = tvm.build(te.create_schedule(C.op), [A, B, C])
    a, b = np.random.rand(n).astype("float32"), np.random.rand(n).astype("float32")
    c = np.zeros(n, "float32")
    kernel = f.time_evaluator(f.entry_name, tvm.cpu(0), number=2000, repeat=5)(a, b, c).min
    t0 = time.perf_counter()
    for _ in range(2000):
        f(a, b, c)
    python_call = (time.perf_counter() - t0) / 2000
    # the Python call checks the three arguments (microseconds); the kernel alone is a few
    # vector instructions (nanoseconds); a 4x margin keeps a busy machine from failing it
    assert kernel * 4 < python_call, (kernel, python_call)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_ctx_keyword_of_time_evaluator(monkeypatch):
    monkeypatch.setattr(tvm.errors, "_WARNED", set())
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    with pytest.warns(DeprecationWarning, match="ctx= keyword of time_evaluator"):
        ev = f.time_evaluator(f.entry_name, ctx=tvm.cpu(0), number=3)
    assert len(ev(np.zeros(8, "float32"), np.zeros(8, "float32")).results) == 1


def test_loop_ir_of_a_signature():
    text = loop_ir(["ptr", "i32", "float"])
    assert "call i32 %kernel(ptr %a0, i32 %a1, float %a2)" in text
    with pytest.raises(NotImplementedError):
        NativeRepeat("define void @k(ptr %a) {\n  ret void\n}", "k", None)
