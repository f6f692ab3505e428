"""Parallel loops on tepad's thread pool: chunks claimed by the caller and the awake workers."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.codegen import parallel, pool
from tepad.runtime import build_module
from codegen_helpers import make_func, loop

F = tir.ForKind


@pytest.fixture
def always_pool(monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_WORK", 0)   # tiny loops use the pool too


def _count_func(n):
    """``C[i] += A[i] + i`` over a parallel loop: an iteration run twice or never shows."""
    A, C = tir.Buffer((n,), "int32", "A"), tir.Buffer((n,), "int32", "C")
    return make_func([A, C], lambda a, c: loop(n, lambda i: tir.BufferStore(c, c[i] + a[i] + i, [i]),
                                               F.PARALLEL))


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_many_chunks_each_iteration_once(always_pool, threads):
    n = tir.Var("n")
    mod = build_module(_count_func(n), num_threads=threads)
    # more chunks than iterations, fewer, exactly as many; extents 0 and 1
    for size in (0, 1, 2, threads * parallel.CHUNKS_PER_THREAD,
                 threads * parallel.CHUNKS_PER_THREAD + 1, 997, 50_000):
        a = np.arange(size, dtype="int32")
        c = np.zeros(size, "int32")
        for _ in range(3):
            mod(a, c)
        np.testing.assert_array_equal(c, 3 * 2 * a)


def test_constant_extents_zero_and_one(always_pool):
    for size in (0, 1):
        A, C = tir.Buffer((max(size, 1),), "int32", "A"), tir.Buffer((max(size, 1),), "int32", "C")
        f = make_func([A, C], lambda a, c: loop(size, lambda i: tir.BufferStore(c, a[i] + 7, [i]),
                                                F.PARALLEL))
        mod = build_module(f, num_threads=2)
        a = np.arange(1, dtype="int32") + 5
        c = np.zeros(1, "int32")
        mod(a, c)
        assert c[0] == (12 if size else 0)


def test_nested_parallel_and_a_reduction_per_row(always_pool):
    """A parallel row loop with a parallel inner loop (run serially inside a chunk) and a
    sum over each row."""
    rows, cols = 67, 45
    A = te.placeholder((rows, cols), "float32", name="A")
    k = te.reduce_axis((0, cols), name="k")
    S = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="S")
    B = te.compute((rows, cols), lambda i, j: A[i, j] - S[i], name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    s[B].parallel(B.op.axis[1])
    s[S].compute_at(s[B], B.op.axis[0])
    mod = tepad.build(s, [A, B])
    a = np.random.default_rng(1).random((rows, cols), dtype="float32")
    b = np.empty_like(a)
    for _ in range(5):
        mod(a, b)
        np.testing.assert_allclose(b, a - a.sum(1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_parallel_reduction_with_rfactor(always_pool):
    n = 40_000
    A = te.placeholder((n,), "float32", name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((1,), lambda _: te.sum(A[k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=1000)
    BF = s.rfactor(B, ko)
    s[BF].parallel(BF.op.axis[0])
    mod = tepad.build(s, [A, B])
    a = np.random.default_rng(2).random(n, dtype="float32")
    b = np.zeros(1, "float32")
    mod(a, b)
    np.testing.assert_allclose(b[0], a.astype("float64").sum(), rtol=1e-4)


def test_two_python_threads_call_parallel_kernels_at_once(always_pool):
    """The second caller finds the pool busy and runs its chunks itself: both correct."""
    n = tir.Var("n")
    mod = build_module(_count_func(n), num_threads=2)
    errors = []

    def work():
        try:
            for _ in range(200):
                a = np.arange(3001, dtype="int32")
                c = np.zeros(3001, "int32")
                mod(a, c)
                np.testing.assert_array_equal(c, 2 * a)
        except Exception as e:       # noqa: BLE001 - reported below
            errors.append(e)
    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[0]


def test_failure_in_a_chunk_is_reported(always_pool):
    """A check failing in one chunk (an index read from memory) raises TepadError with the
    value, whichever thread ran it; the next call works."""
    A = te.placeholder((100,), "float32", name="A")
    I = te.placeholder((5000,), "int32", name="I")
    B = te.compute((5000,), lambda i: A[I[i]], name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    mod = tepad.build(s, [A, I, B])
    a = np.arange(100, dtype="float32")
    idx = np.arange(5000, dtype="int32") % 100
    b = np.zeros(5000, "float32")
    idx[4321] = 100
    with pytest.raises(tepad.TepadError, match=r"tensor A at index I\[.*\] = 100, outside the "
                                               r"valid range \[0, 100\)"):
        mod(a, idx, b)
    idx[4321] = 0
    mod(a, idx, b)
    np.testing.assert_array_equal(b, a[idx])


_NUM_THREADS = """
import numpy as np, tepad
from tepad import te
from tepad.codegen import parallel, pool
parallel.PARALLEL_MIN_WORK = 0
A = te.placeholder((10000,), "float32", name="A")
B = te.compute(A.shape, lambda i: A[i] * 3.0, name="B")
s = te.create_schedule(B.op)
s[B].parallel(B.op.axis[0])
mod = tepad.build(s, [A, B])
a = np.random.rand(10000).astype("float32"); b = np.empty_like(a)
mod(a, b)
assert np.allclose(b, a * 3)
print(mod.kernel.num_threads, pool._state["started"])
"""


@pytest.mark.parametrize("threads", ["1", "3"])
def test_tepad_num_threads_sizes_the_team(threads):
    env = dict(os.environ, TEPAD_NUM_THREADS=threads)
    r = subprocess.run([sys.executable, "-c", _NUM_THREADS], capture_output=True, text=True,
                       env=env, timeout=120, cwd=os.path.dirname(os.path.dirname(
                           os.path.dirname(os.path.abspath(__file__)))))
    assert r.returncode == 0, r.stderr[-2000:]
    # a one-thread build never calls the pool, so it starts no worker
    assert r.stdout.split() == [threads, str(int(threads) - 1)]


def test_parallel_kernel_completes_while_every_core_is_busy(always_pool):
    """One spinning process per core holds the CPUs; parallel kernels still finish and are
    correct (no timing asserted: the benchmark in benchmarks/bench_busy.py measures it)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(os.cpu_count() or 1)]
    try:
        n = 1 << 16
        A = te.placeholder((n,), "float32", name="A")
        B = te.compute(A.shape, lambda i: A[i] * 2.0 + 1.0, name="B")
        s = te.create_schedule(B.op)
        s[B].parallel(B.op.axis[0])
        mod = tepad.build(s, [A, B])
        a = np.random.default_rng(3).random(n, dtype="float32")
        for _ in range(300):
            b = np.zeros_like(a)
            mod(a, b)
            np.testing.assert_array_equal(b, a * 2 + 1)
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()


def test_pool_runtime_is_valid_for_this_host():
    ir_text = pool.pool_ir()
    assert "define i32 @tepad_pool_run" in ir_text and "define void @tepad_pool_worker" in ir_text
    assert pool.run_address() != 0
