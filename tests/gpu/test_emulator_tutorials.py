"""End to end through GPU lowering (default scopes, thread_sync, cross-thread reduction
through shared memory) and the emulator: the CUDA parts of TVM's reduction tutorial and a
shared-memory tiled matmul schedule as TVM's tutorials write it, compared with numpy and the
oracle."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import tepad as tvm
import tepad.testing
from tepad import te, tir
from tepad.backend.emulated import emulated_function
from tepad.lower.passes.emulate_gpu_threads import SYNC
from tepad.testing.reference import reference

from emulator_kernels import emulate_cuda
from gpu_helpers import rfactor_rows

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _count_syncs(func):
    out = []
    tir.post_order_visit(func.body, lambda n: out.append(n)
                         if isinstance(n, tir.Call) and n.op == SYNC else None)
    return len(out)


def _row_sum_cross_thread(n, m, factor=16, rows_per_block=32):
    """reduction.py: rfactor over the inner reduce split, rows over blockIdx.x / threadIdx.y,
    the factored axis over threadIdx.x, the store by thread 0."""
    s, (A, B) = rfactor_rows(n, m, factor, rows_per_block)
    return s, A, B


def test_reduction_tutorial_cross_thread_reduction():
    n, m = te.var("n"), te.var("m")
    s, A, B = _row_sum_cross_thread(n, m)
    fcuda = tvm.build(s, [A, B], "cuda")
    assert "emulated" in repr(fcuda)
    assert "bar.sync" in fcuda.imported_modules[0].get_source("ptx")     # PTX with barriers
    dev = tvm.cuda(0)
    for nn, mm in ((128, 128), (70, 37), (1, 1)):
        a = tvm.nd.array(np.random.uniform(size=(nn, mm)).astype(A.dtype), dev)
        b = tvm.nd.array(np.zeros(nn, dtype=B.dtype), dev)
        fcuda(a, b)
        tvm.testing.assert_allclose(b.numpy(), np.sum(a.numpy(), axis=1), rtol=1e-4)
    gpu, cpu = emulated_function(s, [A, B])
    assert _count_syncs(gpu) > 0 and _count_syncs(cpu) == 0


def test_cross_thread_reduction_without_rfactor():
    n, m = 40, 100
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=32)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(ki, te.thread_axis("threadIdx.x"))
    mod = tvm.build(s, [A, B], "cuda")
    a = np.random.standard_normal((n, m)).astype("float32")
    b = np.zeros(n, "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, a.max(axis=1))


def _shared_matmul(N, tile, vthreads=1):
    """C = A @ B with TVM's GPU matmul recipe: output tiles per block, a local accumulator
    per thread (cache_write "local"), tiles of A and B through shared memory at the outer k
    loop, fetched cooperatively by the block's threads."""
    A = te.placeholder((N, N), name="A")
    B = te.placeholder((N, N), name="B")
    k = te.reduce_axis((0, N), "k")
    C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    CL = s.cache_write(C, "local")
    bi, bj, ti, tj = s[C].tile(C.op.axis[0], C.op.axis[1], tile, tile)
    s[C].bind(bi, te.thread_axis("blockIdx.y"))
    s[C].bind(bj, te.thread_axis("blockIdx.x"))
    if vthreads > 1:
        vo, ti = s[C].split(ti, nparts=vthreads)
        s[C].bind(vo, te.thread_axis("vthread"))
        s[C].reorder(vo, ti, tj)
    s[C].bind(ti, te.thread_axis("threadIdx.y"))
    s[C].bind(tj, te.thread_axis("threadIdx.x"))
    s[CL].compute_at(s[C], tj)
    ko, ki = s[CL].split(s[CL].op.reduce_axis[0], factor=tile)
    threads_y = tile // vthreads
    for st in (AA, BB):
        s[st].compute_at(s[CL], ko)
        fused = s[st].fuse(*s[st].op.axis)
        ty, tx = s[st].split(fused, factor=tile)
        _, ty = s[st].split(ty, factor=threads_y)
        s[st].bind(ty, te.thread_axis("threadIdx.y"))
        s[st].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


@pytest.mark.parametrize("N,tile,vthreads", [(64, 8, 1), (48, 16, 1), (32, 8, 2), (50, 8, 1),
                                              (37, 4, 2)])
def test_shared_memory_matmul_schedule(N, tile, vthreads):
    s, (A, B, C) = _shared_matmul(N, tile, vthreads)
    mod = tvm.build(s, [A, B, C], target="cuda")
    rng = np.random.default_rng(N)
    a = rng.standard_normal((N, N)).astype("float32")
    b = rng.standard_normal((N, N)).astype("float32")
    c = np.zeros((N, N), "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    gpu, cpu = emulated_function(s, [A, B, C])
    assert _count_syncs(gpu) >= 2 and _count_syncs(cpu) == 0


@pytest.mark.slow
@given(rows=st.integers(1, 24), cols=st.integers(1, 70), threads=st.sampled_from([1, 2, 5, 8, 32]),
       rows_per_block=st.sampled_from([1, 3, 4]), op=st.sampled_from(["sum", "max", "min"]),
       seed=st.integers(0, 2**16))
def test_random_cross_thread_reductions_match_the_oracle(rows, cols, threads, rows_per_block,
                                                          op, seed):
    red = {"sum": te.sum, "max": te.max, "min": te.min}[op]
    s, (A, B) = rfactor_rows(rows, cols, threads, rows_per_block, reducer=red, scale=2.0)
    mod = tvm.build(s, [A, B], "cuda")
    a = np.random.default_rng(seed).standard_normal((rows, cols)).astype("float32")
    b = np.zeros(rows, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, reference(B, {A: a}), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
@given(tile_y=st.sampled_from([1, 2, 4, 8]), tile_x=st.sampled_from([1, 2, 4, 8, 16]),
       extra_h=st.integers(0, 20), extra_w=st.integers(0, 20), stencil=st.booleans(),
       shared=st.booleans(), local=st.booleans(), cooperative=st.booleans(),
       seed=st.integers(0, 2**16))
def test_random_shared_and_local_stages_match_the_oracle(tile_y, tile_x, extra_h, extra_w,
                                                         stencil, shared, local, cooperative,
                                                         seed):
    """A stencil (or elementwise) stage tiled over blocks and threads, its input staged in
    shared memory at the block (fetched by every thread or cooperatively), its result
    accumulated in a local stage; against the oracle, with the race check on."""
    H, W = tile_y + extra_h + 2, tile_x + extra_w + 2
    A = te.placeholder((H, W), name="A")
    if stencil:
        B = te.compute((H - 2, W - 2), lambda i, j: A[i, j] + A[i + 1, j + 1] * 2.0 +
                       A[i + 2, j], name="B")
    else:
        B = te.compute((H, W), lambda i, j: A[i, j] * 3.0 - 1.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "shared", [B]) if shared else None
    BL = s.cache_write(B, "local") if local else None
    by, bx, ty, tx = s[B].tile(B.op.axis[0], B.op.axis[1], tile_y, tile_x)
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    if local:
        s[BL].compute_at(s[B], tx)
    if shared:
        s[AA].compute_at(s[B], bx)
        if cooperative:
            fused = s[AA].fuse(*s[AA].op.axis)
            rest, fx = s[AA].split(fused, factor=tile_x)
            _, fy = s[AA].split(rest, factor=tile_y)
            s[AA].bind(fy, te.thread_axis("threadIdx.y"))
            s[AA].bind(fx, te.thread_axis("threadIdx.x"))
    mod = tvm.build(s, [A, B], "cuda")
    a = np.random.default_rng(seed).standard_normal((H, W)).astype("float32")
    b = np.zeros([int(d) for d in B.shape], "float32")
    mod(a, b)
    np.testing.assert_allclose(b, reference(B, {A: a}), rtol=1e-5, atol=1e-5)
