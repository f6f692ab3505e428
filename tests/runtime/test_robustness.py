"""A Module is safe to share between threads and to call with bad arguments, repeatedly."""
import gc
import threading

import numpy as np
import pytest

import tepad
from tepad import te


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def _matmul_module(parallel):
    n = te.var("n")
    A = te.placeholder((n, 32), name="A")
    B = te.placeholder((32, 24), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((n, 24), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    if parallel:
        s[C].parallel(io)
    s[C].vectorize(C.op.axis[1])
    return tepad.build(s, [A, B, C]), (A, B, C)


@pytest.mark.parametrize("parallel", [False, True])
def test_concurrent_calls_from_threads_are_correct(parallel):
    mod, _ = _matmul_module(parallel)
    errors = []
    rng = np.random.default_rng(0)
    b = rng.standard_normal((32, 24)).astype("float32")

    def worker(seed):
        try:
            r = np.random.default_rng(seed)
            for it in range(40):
                rows = int(r.integers(1, 40))
                a = r.standard_normal((rows, 32)).astype("float32")
                c = np.full((rows, 24), np.nan, "float32")
                mod(a, b, c)
                np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        except BaseException as err:  # collected and re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_bad_calls_do_not_leak_or_crash():
    mod, _ = _matmul_module(parallel=False)
    a = np.ones((5, 32), "float32")
    b = np.ones((32, 24), "float32")
    c = np.zeros((5, 24), "float32")
    bad = [
        (a,),                                     # too few arguments
        (a, b, c, c),                             # too many
        (a.astype("float64"), b, c),              # wrong dtype
        (a, b, np.zeros((6, 24), "float32")),     # inconsistent symbolic size
        (a, np.ones((31, 24), "float32"), c),     # wrong constant shape
        (np.ones((5, 64), "float32")[:, ::2], b, c),   # not contiguous
        ([[1.0]], b, c),                          # not an array
    ]
    ro = np.zeros((5, 24), "float32")
    ro.flags.writeable = False
    bad.append((a, b, ro))                        # read-only output

    def round_(n):
        for k in range(n):
            with pytest.raises((TypeError, ValueError)):
                mod(*bad[k % len(bad)])
            mod(a, b, c)

    round_(500)            # warm up caches / allocator before measuring
    gc.collect()
    before = _rss_bytes()
    round_(5000)           # 5,000 bad calls + 5,000 good calls
    gc.collect()
    grown = _rss_bytes() - before
    assert grown < 20 * 2 ** 20, f"RSS grew by {grown / 2 ** 20:.1f} MB"
    np.testing.assert_allclose(c, a @ b)


def test_failed_kernel_calls_do_not_leak():
    """A kernel failing its bounds check after a heap allocation frees it on the error path."""
    from tepad import TepadError
    from tepad.tir import (Allocate, BufferStore, For, ForKind, IntImm, PrimFunc, SeqStmt, Var,
                           decl_buffer)
    n = Var("n")
    A = decl_buffer((n,), "float32", "A")
    pa = Var("A", "handle")
    t = Var("T", "handle")
    Tb = decl_buffer((20000,), "float32", "T", data=t)     # 80 kB: heap, not stack
    i = Var("i")
    body = Allocate(t, "float32", [20000], IntImm(1, "bool"), SeqStmt([
        For(i, 0, n, ForKind.SERIAL, BufferStore(Tb, A[i], [i * 4000])),
        For(i, 0, n, ForKind.SERIAL, BufferStore(A, Tb[i * 4000], [i]))]))
    mod = tepad.build(PrimFunc([pa], body, {pa: A}, {"global_symbol": "main"}),
                      bounds_check=True)
    ok, bad = np.ones(5, "float32"), np.ones(8, "float32")
    mod(ok)
    with pytest.raises(TepadError, match="store of buffer T"):
        mod(bad)
    gc.collect()
    before = _rss_bytes()
    for _ in range(3000):
        with pytest.raises(TepadError):
            mod(bad)
        mod(ok)
    gc.collect()
    assert _rss_bytes() - before < 20 * 2 ** 20     # 3,000 leaked 80 kB buffers would be 234 MB
