"""Parallel, vectorized and unrolled loops."""
import re
import threading

import numpy as np
import pytest

from tepad import tir
from tepad.codegen import parallel
from tepad.codegen.analysis import static_work
from tepad.runtime import build_module
from tepad.lower.passes.unroll_loop import unroll_loop
from tepad.lower.passes.vectorize_loop import vectorize_loop
from codegen_helpers import make_func, loop

F = tir.ForKind



def uses_pool(ll: str) -> bool:
    """Whether a kernel's LLVM IR calls the thread pool (loads its parallel hook)."""
    return re.search(r'= load [^\n]*, ptr @"?tepad_parallel_hook', ll) is not None


def _has(node, cls):
    found = []
    tir.post_order_visit(node, lambda n: found.append(n) if isinstance(n, cls) else None)
    return bool(found)


def _fors(node):
    out = []
    tir.post_order_visit(node, lambda n: out.append(n) if isinstance(n, tir.For) else None)
    return out


def test_parallel_loop_symbolic():
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i] * 2.0 + 1.0, [i]), F.PARALLEL))
    mod = build_module(f)
    assert uses_pool(mod.ll)
    for size in [0, 1, 3, 1000, 100_003]:
        a = np.random.rand(size).astype("float32")
        c = np.zeros(size, "float32")
        mod(a, c)
        np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_parallel_loop_chunks_every_extent(monkeypatch):
    """Chunks drawn from one counter: every iteration runs exactly once for extents that do
    not divide into the chunks (or are smaller than the team, 0 and 1 included), with 2 and 3
    threads."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_WORK", 0)   # tiny loops: use the team anyway
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "int32", "A"), tir.Buffer((n,), "int32", "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, c[i] + a[i] + i, [i]),
                                            F.PARALLEL))
    for threads in (2, 3):
        mod = build_module(f, num_threads=threads)
        assert uses_pool(mod.ll)
        for size in (0, 1, 2, 3, 7, 64, 1001):
            a = np.arange(size, dtype="int32")
            c = np.zeros(size, "int32")
            mod(a, c)       # c[i] += ...: an iteration run twice (or never) shows
            np.testing.assert_array_equal(c, 2 * a)


_NO_WORKERS = """
import numpy as np, sys
sys.path.insert(0, {helpers!r})
from tepad import tir
from tepad.codegen import parallel, pool
from tepad.runtime import build_module
from codegen_helpers import make_func, loop
parallel.PARALLEL_MIN_WORK = 0
pool.ensure_workers = lambda n: 0          # workers that never wake: none is started
A, C = tir.Buffer((1000,), "int32", "A"), tir.Buffer((1000,), "int32", "C")
f = make_func([A, C], lambda a, c: loop(1000, lambda i: tir.BufferStore(c, c[i] + a[i], [i]),
                                        tir.ForKind.PARALLEL))
mod = build_module(f, num_threads=4)
a = np.arange(1000, dtype="int32")
for _ in range(50):
    c = np.zeros(1000, "int32")
    mod(a, c)
    assert (c == a).all(), c
print("ok")
"""


def test_parallel_loop_without_awake_workers_runs_on_the_caller():
    """No worker ever wakes (none started): the calling thread claims every chunk itself and
    returns, never waiting for a worker (a subprocess: the pool is process-wide)."""
    import os
    import subprocess
    import sys
    helpers = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", _NO_WORKERS.format(helpers=helpers)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_parallel_2d_with_inner_allocate_and_nested_parallel():
    """Outer parallel loop with a per-thread temporary; the inner parallel loop runs serially."""
    rows, cols = 37, 50
    A2, C2 = tir.Buffer((rows, cols), "float32", "A"), tir.Buffer((rows, cols), "float32", "C")
    tv = tir.Var("row", "handle")
    T = tir.Buffer((cols,), "float32", "row", data=tv)

    def body(a, c):
        def per_row(i):
            fill = loop(cols, lambda j: tir.BufferStore(T, a[i * cols + j] + 1.0, [j]), F.PARALLEL, name="j")
            use = loop(cols, lambda j: tir.BufferStore(c, T[cols - 1 - j] * 2.0, [i * cols + j]), name="k")
            return tir.Allocate(tv, "float32", [cols], tir.const(True), tir.seq(fill, use))
        return loop(rows, per_row, F.PARALLEL)
    mod = build_module(make_func([A2, C2], body))
    a = np.random.rand(rows, cols).astype("float32")
    c = np.zeros_like(a)
    mod(a, c)
    np.testing.assert_allclose(c, (a[:, ::-1] + 1) * 2, rtol=1e-6)


def test_parallel_assert_failure_propagates():
    import tepad
    n = tir.Var("n")
    A = tir.Buffer((n,), "int32", "A")
    f = make_func([A], lambda a: loop(n, lambda i: tir.AssertStmt(
        a[i] >= 0, tir.StringImm("A must be non-negative"), tir.BufferStore(a, a[i] + 1, [i])), F.PARALLEL))
    mod = build_module(f)
    a = np.arange(100, dtype="int32")
    mod(a)
    np.testing.assert_array_equal(a, np.arange(100) + 1)
    a[77] = -5
    with pytest.raises(tepad.TepadError, match="non-negative"):
        mod(a)


def _vec_func(extent, body_fn, dtype="float32"):
    A, B, C = (tir.Buffer((extent,), dtype, nm) for nm in "ABC")
    return make_func([A, B, C], lambda a, b, c: loop(extent, lambda i: body_fn(a, b, c, i), F.VECTORIZED))


def test_vectorize_elementwise():
    f = vectorize_loop(_vec_func(8, lambda a, b, c, i: tir.BufferStore(c, a[i] * b[i] + 1.0, [i])))
    assert _has(f.body, tir.Ramp) and not _fors(f.body)
    mod = build_module(f)
    assert "<8 x float>" in mod.ll
    a, b = np.random.rand(8).astype("float32"), np.random.rand(8).astype("float32")
    c = np.zeros(8, "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a * b + 1, rtol=1e-6)


def test_vectorize_inner_of_2d_with_select_cast_and_guard():
    rows, cols = 5, 16
    A2, C2 = tir.Buffer((rows, cols), "float32", "A"), tir.Buffer((rows, cols), "int32", "C")

    def body(a, c):
        def row(i):
            return loop(cols, lambda j: tir.BufferStore(
                c, tir.cast("int32", tir.select(a[i * cols + j] > 0.5, a[i * cols + j] * 10.0, tir.const(-1.0)))
                + tir.if_then_else(j < 15, tir.cast("int32", a[i * cols + j + 1] * 100.0), tir.const(7)),
                [i * cols + j]), F.VECTORIZED, name="j")
        return loop(rows, row)
    f = vectorize_loop(make_func([A2, C2], body))
    assert _has(f.body, tir.Ramp)
    assert [x.kind for x in _fors(f.body)] == [F.SERIAL]
    mod = build_module(f)
    assert "x i32>" in mod.ll
    a = np.random.rand(rows, cols).astype("float32")
    c = np.zeros((rows, cols), "int32")
    mod(a, c)
    first = np.where(a > 0.5, a * np.float32(10), np.float32(-1)).astype("int32")
    second = np.full((rows, cols), 7, "int32")
    second[:, :15] = (a[:, 1:] * np.float32(100)).astype("int32")
    np.testing.assert_array_equal(c, first + second)


def test_vectorize_guarded_load_under_vector_condition():
    """if_then_else(i < n, A[i], 0) with lanes past the end of A: masked load, no fault."""
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((16,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(16, lambda i: tir.BufferStore(
        c, tir.if_then_else(i < n, a[i], tir.const(0.0)) + 1.0, [i]), F.VECTORIZED))
    f = vectorize_loop(f)
    assert _has(f.body, tir.Ramp)
    mod = build_module(f)
    for size in [3, 16]:
        a = np.random.rand(size).astype("float32")
        c = np.zeros(16, "float32")
        mod(a, c)
        want = np.zeros(16, "float32")
        want[:size] = a
        np.testing.assert_allclose(c, want + 1, rtol=1e-6)


def test_vectorize_large_extent_splits_and_tail():
    for extent in [256, 100]:
        f = vectorize_loop(_vec_func(extent, lambda a, b, c, i: tir.BufferStore(c, a[i] - b[i], [i])))
        assert _has(f.body, tir.Ramp)
        a, b = np.random.rand(extent).astype("float32"), np.random.rand(extent).astype("float32")
        c = np.zeros(extent, "float32")
        build_module(f)(a, b, c)
        np.testing.assert_allclose(c, a - b, rtol=1e-6)


def test_vectorize_fallback_leaves_serial_loop():
    """A reduction into one element cannot be widened: the loop stays serial and correct."""
    f = _vec_func(8, lambda a, b, c, i: tir.BufferStore(c, c[0] + a[i], [0]))
    g = vectorize_loop(f)
    assert [x.kind for x in _fors(g.body)] == [F.SERIAL]
    a = np.arange(8, dtype="float32")
    c = np.zeros(8, "float32")
    build_module(g)(a, a.copy(), c)
    assert c[0] == a.sum()


def test_vectorize_symbolic_extent_falls_back():
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    f = vectorize_loop(make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i], [i]), F.VECTORIZED)))
    assert [x.kind for x in _fors(f.body)] == [F.SERIAL]
    a = np.random.rand(13).astype("float32")
    c = np.zeros(13, "float32")
    build_module(f)(a, c)
    np.testing.assert_array_equal(c, a)


def test_unroll_loop():
    rows = 6
    A2, C2 = tir.Buffer((rows, 4), "int32", "A"), tir.Buffer((rows, 4), "int32", "C")

    def body(a, c):
        return loop(rows, lambda i: loop(4, lambda j: tir.BufferStore(
            c, a[i * 4 + j] * (j + 1), [i * 4 + j]), F.UNROLLED, name="j"))
    f = unroll_loop(make_func([A2, C2], body))
    kinds = [x.kind for x in _fors(f.body)]
    assert kinds == [F.SERIAL]
    assert isinstance(f.body.body, tir.SeqStmt) and len(f.body.body.seq) == 4
    a = np.arange(rows * 4, dtype="int32").reshape(rows, 4)
    c = np.zeros_like(a)
    build_module(f)(a, c)
    np.testing.assert_array_equal(c, a * np.arange(1, 5))


def test_unroll_symbolic_extent_becomes_serial():
    n = tir.Var("n")
    A = tir.Buffer((n,), "int32", "A")
    f = unroll_loop(make_func([A], lambda a: loop(n, lambda i: tir.BufferStore(a, a[i] + 1, [i]), F.UNROLLED)))
    assert [x.kind for x in _fors(f.body)] == [F.SERIAL]
    a = np.zeros(5, "int32")
    build_module(f)(a)
    np.testing.assert_array_equal(a, 1)


def test_concurrent_calls_from_python_threads():
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "float32", "A"), tir.Buffer((n,), "float32", "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i] * 3.0, [i]), F.PARALLEL))
    mod = build_module(f)
    errors = []

    def work(k):
        try:
            for r in range(20):
                a = np.full(1000 + k * 10 + r, k, "float32")
                c = np.zeros_like(a)
                mod(a, c)
                np.testing.assert_array_equal(c, a * 3)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def _par_func(n, per_row=1):
    A = tir.Buffer((n * per_row,), "float32", "A")
    C = tir.Buffer((n,), "float32", "C")

    def body(a, c):
        def row(i):
            acc = a[i * per_row]
            for j in range(1, per_row):
                acc = acc + a[i * per_row + j]
            return tir.BufferStore(c, acc, [i])
        return loop(n, row, F.PARALLEL)
    return make_func([A, C], body)


def test_small_parallel_loop_runs_serially_without_the_team():
    """A constant-size parallel loop with little work (64 rows of 4) never starts the team:
    the optimized IR never calls the pool (the unoptimized IR keeps the outlined body)."""
    f = _par_func(64, 4)
    assert static_work(f.body) == 64 * (1 + 4)
    mod = build_module(f, num_threads=2)
    assert uses_pool(mod.unoptimized_ll) and "par0.serial" in mod.unoptimized_ll
    assert not uses_pool(mod.ll)
    a = np.random.rand(256).astype("float32")
    c = np.zeros(64, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a.reshape(64, 4).sum(1), rtol=1e-6)


def test_large_parallel_loop_keeps_the_team():
    rows = parallel.PARALLEL_MIN_WORK // 5 + 1          # just above the threshold
    f = _par_func(rows, 4)
    assert static_work(f.body) >= parallel.PARALLEL_MIN_WORK
    mod = build_module(f, num_threads=2)
    assert uses_pool(mod.ll)
    a = np.random.rand(rows * 4).astype("float32")
    c = np.zeros(rows, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a.reshape(rows, 4).sum(1), rtol=1e-5)


def test_symbolic_parallel_loop_tests_its_size_at_run_time():
    """Symbolic extent, constant work per iteration: both paths are kept and the extent
    decides at run time; either way every iteration runs once."""
    n = tir.Var("n")
    A, C = tir.Buffer((n,), "int32", "A"), tir.Buffer((n,), "int32", "C")
    f = make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, a[i] + 1, [i]), F.PARALLEL))
    mod = build_module(f, num_threads=2)
    assert uses_pool(mod.ll)
    assert "par0.serial" in mod.unoptimized_ll
    for size in (0, 5, 1000, 600_000):
        a = np.arange(size, dtype="int32")
        c = np.zeros(size, "int32")
        mod(a, c)
        np.testing.assert_array_equal(c, a + 1)


def test_single_thread_build_never_starts_the_team():
    f = _par_func(1 << 19, 4)                # large work, but TEPAD_NUM_THREADS=1 semantics
    mod = build_module(f, num_threads=1)
    assert not uses_pool(mod.ll)
    a = np.random.rand((1 << 19) * 4).astype("float32")
    c = np.zeros(1 << 19, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, a.reshape(-1, 4).sum(1), rtol=1e-5)


_EXIT_WHILE_SPINNING = """
import numpy as np, tepad
from tepad import te
A = te.placeholder((1 << 16,), "float32", name="A")
B = te.compute(A.shape, lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
s[B].parallel(B.op.axis[0])
mod = tepad.build(s, [A, B])
a = np.ones(1 << 16, np.float32)
b = np.empty_like(a)
mod(a, b)
assert (b == 2).all()
"""


def test_interpreter_exit_with_spinning_workers():
    """The pool's workers still spin when the interpreter exits right after a parallel call;
    the pool's code is never freed, so the exit is clean."""
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    for _ in range(4):
        r = subprocess.run([sys.executable, "-c", _EXIT_WHILE_SPINNING], capture_output=True,
                           text=True, env=env, timeout=120)
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
