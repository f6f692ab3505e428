"""The GPU passes checked by running their output: schedules built for ``cuda`` run through
the emulator (TEPAD_CUDA=emulate) and are compared with numpy. A barrier thread_sync left
out, a vthread copy shared by mistake or a wrong tree step gives wrong numbers here."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tepad
from tepad import te

from gpu_helpers import tiled_matmul
from test_gpu_allreduce import rfactor_rows, split_rows
from test_gpu_vthread import _vthread_matmul

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _emulate(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")


def _matmul_check(s, args, n=64):
    f = tepad.build(s, args, target="cuda")
    a = RNG.random((n, n), dtype="float32")
    b = RNG.random((n, n), dtype="float32")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@pytest.mark.parametrize("tile", [8, 16])
def test_shared_memory_tiled_matmul(tile):
    _matmul_check(*tiled_matmul(tile=tile))


def test_vthread_matmul():
    _matmul_check(*_vthread_matmul())


def _rows(s, args, shape):
    f = tepad.build(s, args, target="cuda")
    a = RNG.random(shape, dtype="float32")
    b = np.zeros(shape[0], "float32")
    f(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize("predicate", [True, False])
def test_reduction_tutorial_rfactor_threadidx(predicate):
    _rows(*rfactor_rows(predicate=predicate), (64, 64))


@pytest.mark.parametrize("n,m,threads", [(16, 96, 32), (16, 96, 24), (5, 37, 8), (3, 7, 6),
                                         (4, 40, 1)])
def test_split_reduce_bound_to_threads(n, m, threads):
    _rows(*split_rows(n, m, threads), (n, m))


def test_allreduce_in_a_serial_loop_reuses_its_buffer_safely():
    # each block reduces 4 rows one after another: the tree's shared buffer is rewritten
    # while the previous row's result is being read (thread_sync's WAR barrier)
    n, m = 16, 32
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [A, B], target="cuda")
    a = RNG.random((n, m), dtype="float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_allclose(b, (a * a).sum(axis=1), rtol=1e-5)


def test_max_reduction_across_threads_with_rows_on_threadidx_y():
    n, m = 32, 20
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [A, B], target="cuda")
    a = RNG.standard_normal((n, m)).astype("float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a.max(axis=1))


def test_argmax_across_threads():
    n, m = 8, 50
    A = te.placeholder((n, m), name="A")
    argmax = te.comm_reducer(
        lambda x, y: (tepad.tir.Select(x[1] >= y[1], x[0], y[0]),
                      tepad.tir.Select(x[1] >= y[1], x[1], y[1])),
        lambda t0, t1: (tepad.tir.const(-1, t0), te.min_value(t1)), name="argmax")
    k = te.reduce_axis((0, m), "k")
    I, V = te.compute((n,), lambda i: argmax((k, A[i, k]), axis=k), name="T")
    s = te.create_schedule(I.op)
    ko, ki = s[I].split(I.op.reduce_axis[0], factor=16)
    s[I].bind(I.op.axis[0], te.thread_axis("blockIdx.x"))
    s[I].bind(ki, te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [A, I, V], target="cuda")
    a = RNG.permutation(n * m).reshape(n, m).astype("float32")     # no ties
    idx = np.zeros(n, "int32")
    val = np.zeros(n, "float32")
    f(a, idx, val)
    np.testing.assert_array_equal(idx, a.argmax(axis=1))
    np.testing.assert_array_equal(val, a.max(axis=1))


def test_default_local_and_shared_stages():
    n = 256
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((n,), lambda i: B[n - 1 - i] + 1.0, name="C")   # reads other threads' B
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=n)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].compute_at(s[C], bx)                  # no scope: shared (one copy per block)
    s[B].bind(s[B].op.axis[0], te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [A, C], target="cuda")
    a = RNG.random(n, dtype="float32")
    c = np.zeros(n, "float32")
    f(a, c)
    np.testing.assert_allclose(c, a[::-1] * 3.0 + 1.0, rtol=1e-6)


def test_reduction_over_two_thread_dimensions():
    A = te.placeholder((8, 96), name="A")
    k = te.reduce_axis((0, 96), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=12)      # 8 x 12 threads reduce together
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ko, te.thread_axis("threadIdx.y"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    _rows(s, [A, B], (8, 96))


def test_reduction_across_threadidx_y_with_rows_on_threadidx_x():
    A = te.placeholder((32, 20), name="A")
    k = te.reduce_axis((0, 20), "k")
    B = te.compute((32,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    bo, bi = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bo, te.thread_axis("blockIdx.x"))
    s[B].bind(bi, te.thread_axis("threadIdx.x"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.y"))
    _rows(s, [A, B], (32, 20))


def test_opt_conv_cuda_schedule():
    from gpu_helpers import opt_conv_cuda
    s, args = opt_conv_cuda()
    f = tepad.build(s, args, target="cuda")
    a = RNG.random((4, 4, 16, 64), dtype="float32")
    w = RNG.random((3, 3, 16, 64), dtype="float32")
    b = np.zeros((4, 4, 64, 64), "float32")
    f(a, w, b)
    ap = np.pad(a, ((1, 1), (1, 1), (0, 0), (0, 0)))
    ref = sum(np.einsum("hwcn,cf->hwfn", ap[y:y + 4, x:x + 4], w[y, x])
              for y in range(3) for x in range(3))
    np.testing.assert_allclose(b, ref, rtol=1e-4)


# --- TVM's integration/test_reduce.py GPU cases, as behaviour ------------------------------------

def test_tvm_rfactor_threads_with_a_where_clause():
    m, n, nthread = 10, 1027, 16
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n))
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k, where=(i > 1)), name="B")
    s = te.create_schedule(B.op)
    ko, kf = s[B].split(k, factor=nthread)
    BF = s.rfactor(B, kf)
    bx, ty = s[B].split(s[B].op.axis[0], factor=nthread)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    tx = s[B].op.reduce_axis[0]
    thread_x = te.thread_axis("threadIdx.x")
    s[B].bind(tx, thread_x)
    s[BF].compute_at(s[B], tx)
    s[B].set_store_predicate(thread_x.var.equal(0))
    f = tepad.build(tepad.lower(s, [A, B]), target="cuda", name="mysum")
    a = RNG.random((m, n), dtype="float32")
    b = np.zeros(m, "float32")
    f(a, b)
    expect = a.sum(axis=1)
    expect[:2] = 0
    np.testing.assert_allclose(b, expect, rtol=1e-4)


def test_tvm_rfactor_elemwise_threads():
    m, n, nthread = 10, 1025, 16
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n))
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    BB = te.compute((m,), lambda i: B[i] + 1.0, name="BB")
    C = te.compute((m,), lambda i: BB[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    s[BB].compute_inline()
    bx, ty = s[C].split(s[C].op.axis[0], factor=nthread)
    ko, kf = s[B].split(k, factor=nthread)
    BF = s.rfactor(B, kf)
    s[B].compute_at(s[C], ty)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    tx = s[B].op.reduce_axis[0]
    thread_x = te.thread_axis("threadIdx.x")
    s[B].bind(tx, thread_x)
    s[BF].compute_at(s[B], tx)
    s[B].set_store_predicate(thread_x.var.equal(0))
    s[C].set_store_predicate(thread_x.var.equal(0))
    f = tepad.build(tepad.lower(s, [A, C]), target="cuda", name="mysum")
    a = RNG.random((m, n), dtype="float32")
    c = np.zeros(m, "float32")
    f(a, c)
    np.testing.assert_allclose(c, a.sum(axis=1) + 2.0, rtol=1e-4)


def test_tvm_rfactor_argmax():
    argmax = te.comm_reducer(
        lambda x, y: (tepad.tir.Select(x[1] >= y[1], x[0], y[0]),
                      tepad.tir.Select(x[1] >= y[1], x[1], y[1])),
        lambda t0, t1: (tepad.tir.const(-1, t0), te.min_value(t1)), name="argmax")
    m, n, nthread = 10, 1027, 16
    A0 = te.placeholder((m, n), name="A0", dtype="int32")
    A1 = te.placeholder((m, n), name="A1", dtype="float32")
    k = te.reduce_axis((0, n))
    B0, B1 = te.compute((m,), lambda i: argmax((A0[i, k], A1[i, k]), axis=k), name="B")
    s = te.create_schedule(B0.op)
    ko, kf = s[B0].split(k, factor=nthread)
    BF0, BF1 = s.rfactor(B0, kf)
    bx, ty = s[B0].split(s[B0].op.axis[0], factor=nthread)
    s[B0].bind(bx, te.thread_axis("blockIdx.x"))
    s[B0].bind(ty, te.thread_axis("threadIdx.y"))
    tx = s[B0].op.reduce_axis[0]
    thread_x = te.thread_axis("threadIdx.x")
    s[B0].bind(tx, thread_x)
    s[BF0.op].compute_at(s[B0], tx)
    s[B0].set_store_predicate(thread_x.var.equal(0))
    f = tepad.build(tepad.lower(s, [A0, A1, B0, B1]), target="cuda", name="argmax")
    idx = np.repeat(np.arange(n, dtype="int32").reshape(1, n), m, axis=0)
    val = RNG.random((m, n), dtype="float32")
    r0, r1 = np.zeros(m, "int32"), np.zeros(m, "float32")
    f(idx, val, r0, r1)
    np.testing.assert_array_equal(r0, val.argmax(axis=1))
    np.testing.assert_array_equal(r1, val.max(axis=1))


def test_reduction_over_a_symbolic_row_length():
    n = te.var("n")
    A = te.placeholder((8, n), name="A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=32)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [A, B], target="cuda")
    for m in (1, 31, 37, 100):
        a = RNG.random((8, m), dtype="float32")
        b = np.zeros(8, "float32")
        f(a, b)
        np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


@pytest.mark.slow
@settings(max_examples=15)
@given(n=st.integers(1, 12), m=st.integers(1, 70), threads=st.integers(1, 40),
       rows=st.integers(1, 4), reducer=st.sampled_from(["sum", "max"]),
       rfactor=st.booleans())
def test_random_cross_thread_reductions(n, m, threads, rows, reducer, rfactor):
    """Any thread count (power of two or not), rows per block on threadIdx.y, rfactor or a
    plain split: the tree reduction gives numpy's answer."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    fn = te.sum if reducer == "sum" else te.max
    B = te.compute((n,), lambda i: fn(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=threads)
    tx = te.thread_axis("threadIdx.x")
    if rfactor:
        BF = s.rfactor(B, ki)
        bo, bi = s[B].split(s[B].op.axis[0], factor=rows)
        s[B].bind(s[B].op.reduce_axis[0], tx)
        s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    else:
        bo, bi = s[B].split(B.op.axis[0], factor=rows)
        s[B].bind(ki, tx)
    s[B].bind(bo, te.thread_axis("blockIdx.x"))
    s[B].bind(bi, te.thread_axis("threadIdx.y"))
    f = tepad.build(s, [A, B], target="cuda")
    a = RNG.standard_normal((n, m)).astype("float32")
    b = np.zeros(n, "float32")
    f(a, b)
    expect = a.sum(axis=1) if reducer == "sum" else a.max(axis=1)
    np.testing.assert_allclose(b, expect, rtol=1e-4, atol=1e-5)


def test_reduction_run_by_threads_of_another_dimension_too():
    from test_gpu_allreduce import block_reduction_then_threads
    s, args = block_reduction_then_threads(m=32)
    f = tepad.build(s, args, target="cuda")
    a = RNG.random((4, 32), dtype="float32")
    c = np.zeros((4, 8), "float32")
    f(a, c)
    np.testing.assert_allclose(c, a.sum(axis=1)[:, None] * np.arange(1, 9), rtol=1e-5)


def test_reduction_under_a_vthread():
    from test_gpu_allreduce import vthread_rows
    _rows(*vthread_rows(16, 24), (16, 24))
