"""The GPU emulator on hand-built lowered kernels: barriers inside the k loop of a tiled
matmul, a shared-memory tree reduction, values living across barriers (local accumulators and
let-bound values), compared with numpy."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.emulated import emulated_module
from tepad.lower.passes.emulate_gpu_threads import emulate_gpu_threads, has_barrier

from emulator_kernels import (SYNC, block_row_sum, emulate_cuda, func, launch, neighbour_sum,
                              tiled_matmul)

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _loops(stmt):
    out = []
    tir.post_order_visit(stmt, lambda n: out.append(n) if isinstance(n, tir.For) else None)
    return out


def test_tiled_matmul_with_barriers_in_the_k_loop():
    n, tile = 64, 8
    mod = tepad.build(tiled_matmul(n, tile), target="cuda")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype("float32")
    b = rng.standard_normal((n, n)).astype("float32")
    c = np.zeros((n, n), "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_k_loop_is_hoisted_above_two_thread_phases_and_the_accumulator_is_per_thread():
    n, tile = 32, 4
    cpu = emulate_gpu_threads(tiled_matmul(n, tile))
    assert not has_barrier(cpu.body)
    ko = [f for f in _loops(cpu.body) if f.loop_var.name == "ko"]
    assert len(ko) == 1
    # inside the k loop: one thread nest loading the tiles, one computing (the two phases)
    inner_thread_nests = [f for f in ko[0].body.seq if isinstance(f, tir.For)]
    assert [f.loop_var.name for f in inner_thread_nests] == ["threadIdx_y", "threadIdx_y"]
    allocs = []
    tir.post_order_visit(cpu.body, lambda x: allocs.append(x)
                         if isinstance(x, tir.Allocate) else None)
    sizes = {a.buffer_var.name: a.extents[0].value for a in allocs}
    assert sizes == {"A_shared": tile * tile, "B_shared": tile * tile, "acc": tile * tile}
    blocks = [f for f in _loops(cpu.body) if f.kind == tir.ForKind.PARALLEL]
    assert len(blocks) == 1 and blocks[0].extent.value == (n // tile) ** 2


def test_a_missing_barrier_gives_a_wrong_product_and_the_race_check_names_it():
    """Threads run one after another: a thread reading a tile before the other threads of
    its block stored it sees stale shared memory, as a racing GPU thread could; run in both
    orders, the results differ. (The kernel is emulated directly: a cuda build would run
    thread_sync, which puts the barriers back.)"""
    n, tile = 16, 4
    a = np.arange(n * n, dtype="float32").reshape(n, n) / 100
    b = np.ones((n, n), "float32")
    for barriers in (True, False):
        mod = emulated_module(tiled_matmul(n, tile, barriers))
        c = np.zeros((n, n), "float32")
        mod(a, b, c)
        assert np.allclose(c, a @ b) == barriers
        checked = emulated_module(tiled_matmul(n, tile, barriers), race_check=True)
        if barriers:
            checked(a, b, c)
        else:
            with pytest.raises(tepad.TepadError, match=r"kernel tiled_matmul: a data race on "
                                                        r"C \(first at flat index \d+\)"):
                checked(a, b, c)


def test_race_check_finds_threads_writing_one_element():
    """Every thread of a block stores its own value into out[block]: no barrier orders
    that, and the reversed run stores another thread's value."""
    X = tir.decl_buffer((64,), "float32", "X")
    out = tir.decl_buffer((2,), "float32", "out")
    ib = tir.ir_builder.create()
    bx = launch(ib, "blockIdx.x", 2)
    tx = launch(ib, "threadIdx.x", 32)
    x, o = ib.buffer_ptr(X), ib.buffer_ptr(out)
    o[bx] = x[bx * 32 + tx]
    mod = tepad.build(func("last_writer", [X, out], ib), target="cuda")
    with pytest.raises(tepad.TepadError, match=r"kernel last_writer: a data race on out"):
        mod(np.arange(64, dtype="float32"), np.zeros(2, "float32"))


@pytest.mark.parametrize("cols,threads", [(256, 64), (100, 32), (7, 16)])
def test_block_reduction_through_shared_memory(cols, threads):
    rows = 5
    mod = tepad.build(block_row_sum(rows, cols, threads), target="cuda")
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype("float32")
    out = np.zeros(rows, "float32")
    mod(x, out)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_thread_dependent_let_lives_across_a_barrier():
    n, threads = 96, 32
    mod = tepad.build(neighbour_sum(n, threads), target="cuda")
    x = np.random.default_rng(2).standard_normal(n).astype("float32")
    out = np.zeros(n, "float32")
    mod(x, out)
    xb = x.reshape(-1, threads)
    want = 2 * xb + 2 * np.roll(xb, -1, axis=1)
    np.testing.assert_allclose(out, want.reshape(-1), rtol=1e-6)
    cpu = emulate_gpu_threads(neighbour_sum(n, threads))
    allocs = []
    tir.post_order_visit(cpu.body, lambda x: allocs.append(x)
                         if isinstance(x, tir.Allocate) else None)
    assert {a.buffer_var.name: a.extents[0].value for a in allocs} == \
        {"sh": threads, "v_per_thread": threads}


def test_serial_block_loop_without_parallel_blocks():
    cpu = emulate_gpu_threads(tiled_matmul(16, 4), parallel_blocks=False)
    assert not [f for f in _loops(cpu.body) if f.kind == tir.ForKind.PARALLEL]


def test_function_without_launches_is_returned_unchanged():
    A = tir.decl_buffer((4,), "float32", "A")
    ib = tir.ir_builder.create()
    a = ib.buffer_ptr(A)
    a[0] = tir.const(1.0, "float32")
    f = tir.PrimFunc([A], ib.get())
    assert emulate_gpu_threads(f) is f


def test_shared_memory_overflow_is_caught_with_bounds_check():
    """A shared tile one element too small: ``bounds_check=True`` names the buffer and the
    thread index instead of writing past it."""
    X = tir.decl_buffer((64,), "float32", "X")
    ib = tir.ir_builder.create()
    bx = launch(ib, "blockIdx.x", 2)
    sh = ib.allocate("float32", 32, "sh", scope="shared")
    tx = launch(ib, "threadIdx.x", 32)
    x = ib.buffer_ptr(X)
    sh[tx + 1] = x[bx * 32 + tx]
    ib.emit(SYNC)
    x[bx * 32 + tx] = sh[tx]
    mod = tepad.build(func("shift", [X], ib), target="cuda", bounds_check=True)
    with pytest.raises(tepad.TepadError, match=r"store of buffer sh at index threadIdx_x \+ 1 "
                                                r"outside \[0, 32\)"):
        mod(np.zeros(64, "float32"))


def test_every_thread_makes_its_atomic_add():
    """TVM's GPU atomic test: 16 blocks of 64 threads each add 1 to A[0] atomically. The
    statement reads no thread index, but it has an effect: it runs once per thread, not once
    per block (and the blocks run in parallel)."""
    size = 1024

    def do_atomic_add(A):
        ib = tir.ir_builder.create()
        old = ib.allocate("int32", (1,), name="atomic_add_return", scope="local")
        a = ib.buffer_ptr(A)
        with ib.new_scope():
            launch(ib, "threadIdx.x", 64)
            launch(ib, "blockIdx.x", (size + 63) // 64)
            old[0] = tir.call_intrin("int32", "tir.atomic_add",
                                     tir.call_intrin("handle", "tir.address_of", a[0]),
                                     tir.const(1, "int32"))
        return ib.get()

    A = te.placeholder((size,), dtype="int32", name="A")
    C = te.extern((size,), [A], lambda ins, _: do_atomic_add(ins[0]), dtype="int32")
    s = te.create_schedule(C.op)
    mod = tepad.build(s, [A, C], target="nvptx")
    a = np.zeros(size, "int32")
    mod(a, np.zeros(size, "int32"))
    want = np.zeros(size, "int32")
    want[0] = size
    np.testing.assert_array_equal(a, want)
