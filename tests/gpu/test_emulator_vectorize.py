"""The emulator runs a thread's innermost loop as vector code when its iterations touch
disjoint memory (vectorize_independent_loops), and keeps it scalar otherwise; either way the
kernel stores what numpy computes (race check on: threads also run reversed)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.emulated import emulated_function
from tepad.lower.passes.vectorize_independent import independent_iterations

from emulator_kernels import emulate_cuda, func, launch

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _vector_stores(f):
    out = []
    tir.post_order_visit(f.body, lambda n: out.append(n) if isinstance(n, tir.BufferStore)
                         and tir.dtype.lanes(n.indices[0].dtype) > 1 else None)
    return out


def _register_tiled_matmul(n, threads=4, tile=4):
    """C = A @ B with a (threads x threads) block, each thread a (tile x tile) register tile
    accumulated in local memory, k staged through shared memory: the pattern of TVM's
    opt_conv_cuda tutorial (the tile's inner loop is a serial loop of the thread)."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    CL = s.cache_write(C, "local")
    block = threads * tile
    i, j = C.op.axis
    bi, i = s[C].split(i, factor=block)
    bj, j = s[C].split(j, factor=block)
    ti, i = s[C].split(i, nparts=threads)
    tj, j = s[C].split(j, nparts=threads)
    s[C].reorder(bi, bj, ti, tj, i, j)
    s[C].bind(bi, te.thread_axis("blockIdx.y"))
    s[C].bind(bj, te.thread_axis("blockIdx.x"))
    s[C].bind(ti, te.thread_axis("threadIdx.y"))
    s[C].bind(tj, te.thread_axis("threadIdx.x"))
    s[CL].compute_at(s[C], tj)
    ko, ki = s[CL].split(CL.op.reduce_axis[0], factor=4)
    s[CL].reorder(ko, ki, *s[CL].op.axis)
    for T in (AA, BB):
        s[T].compute_at(s[CL], ko)
        r, c = s[T].op.axis
        fused = s[T].fuse(r, c)
        _, f = s[T].split(fused, factor=threads * threads)
        fy, fx = s[T].split(f, factor=threads)
        s[T].bind(fy, te.thread_axis("threadIdx.y"))
        s[T].bind(fx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_register_tile_runs_as_vectors_and_matches_numpy():
    n = 32
    s, args = _register_tiled_matmul(n)
    _, cpu = emulated_function(s, args)
    stores = _vector_stores(cpu)
    assert any(st.buffer.name.startswith("C.local") for st in stores), str(cpu)
    mod = tepad.build(s, args, target="cuda")
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype("float32")
    b = rng.uniform(-1, 1, (n, n)).astype("float32")
    c = np.zeros((n, n), "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a.astype("float64") @ b.astype("float64"), rtol=1e-4,
                               atol=1e-5)


def _prefix_sum_kernel(n, per_thread):
    """Each thread turns its ``per_thread`` slice of A into running sums in place: a serial
    loop whose iteration j reads what iteration j - 1 stored."""
    A = tir.decl_buffer((n,), "float32", "A")
    ib = tir.ir_builder.create()
    tx = launch(ib, "threadIdx.x", n // per_thread)
    a = ib.buffer_ptr(A)
    with ib.for_range(0, per_thread - 1, "j") as j:
        a[tx * per_thread + j + 1] = a[tx * per_thread + j + 1] + a[tx * per_thread + j]
    return func("prefix", [A], ib)


def test_loop_carried_dependence_stays_scalar_and_exact():
    n, per = 32, 8
    f = _prefix_sum_kernel(n, per)
    _, cpu = emulated_function(f)
    assert not _vector_stores(cpu)
    mod = tepad.build(f, target="cuda")
    x = np.arange(n, dtype="float32")
    got = x.copy()
    mod(got)
    np.testing.assert_array_equal(got, np.cumsum(x.reshape(-1, per), axis=1).reshape(-1))


def test_innermost_thread_loop_over_consecutive_elements_is_vectorized():
    n = 1000
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=64)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    _, cpu = emulated_function(s, [A, B])
    assert _vector_stores(cpu)
    mod = tepad.build(s, [A, B], target="cuda")
    a = np.random.default_rng(1).uniform(size=n).astype("float32")
    b = np.zeros(n, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def _loop(extent, store_index, load_index):
    """``for i in range(extent): X[store_index(i)] = X[load_index(i)] + 1`` on a flat
    float32 buffer X."""
    X = tir.decl_buffer((64,), "float32", "X")
    i = tir.Var("i", "int32")
    body = tir.BufferStore(X, tir.BufferLoad(X, [load_index(i)]) + tir.const(1.0, "float32"),
                           [store_index(i)])
    return tir.For(i, tir.const(0, "int32"), tir.const(extent, "int32"),
                   tir.ForKind.SERIAL, body)


@pytest.mark.parametrize("extent,store,load,ok", [
    (8, lambda i: i, lambda i: i, True),                 # in place, lane by lane
    (8, lambda i: i + 1, lambda i: i, False),            # reads the previous iteration
    (4, lambda i: i, lambda i: i + 4, True),             # the other half: no overlap
    (5, lambda i: i, lambda i: i + 4, False),            # iteration 4 stores what 0 read
    (8, lambda i: i * 0, lambda i: i, False),            # every iteration stores X[0]
    (8, lambda i: i * 2, lambda i: i * 2 + 1, True),     # even stores, odd loads
    (8, lambda i: i * 2, lambda i: i, False),            # different strides
])
def test_independent_iterations(extent, store, load, ok):
    assert independent_iterations(_loop(extent, store, load)) is ok


def test_views_of_one_allocation_count_their_offsets_and_types():
    """``Xv`` is X seen one element further: ``Xv[i] = X[i] + 1`` is ``X[i + 1] = X[i] + 1``,
    a dependence; a view of another element type is not compared at all."""
    X = tir.decl_buffer((64,), "float32", "X")
    i = tir.Var("i", "int32")
    shifted = tir.decl_buffer((63,), "float32", "Xv", data=X.data, elem_offset=1)
    as_int = tir.decl_buffer((64,), "int32", "Xi", data=X.data)

    def loop(view, value):
        return tir.For(i, tir.const(0, "int32"), tir.const(8, "int32"), tir.ForKind.SERIAL,
                       tir.BufferStore(view, value, [i]))
    one = tir.const(1.0, "float32")
    assert independent_iterations(loop(X, tir.BufferLoad(X, [i]) + one))
    assert not independent_iterations(loop(shifted, tir.BufferLoad(X, [i]) + one))
    assert not independent_iterations(
        loop(X, tir.BufferLoad(as_int, [i + 8]).astype("float32")))
