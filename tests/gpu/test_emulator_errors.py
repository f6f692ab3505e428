"""What the GPU emulator refuses, with the kernel named: barriers that not every thread of a
block reaches (GPU semantics would deadlock), grid-wide barriers, warp-level intrinsics."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.emulated import EmulatedModule
from tepad.lower.passes.emulate_gpu_threads import emulate_gpu_threads

from emulator_kernels import emulate_cuda, SYNC, func, launch

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _kernel(name, body):
    """One block of 32 threads over X (64 floats); ``body(ib, tx, x, sh)`` writes the rest."""
    X = tir.decl_buffer((64,), "float32", "X")
    ib = tir.ir_builder.create()
    launch(ib, "blockIdx.x", 2)
    sh = ib.allocate("float32", 32, "sh", scope="shared")
    tx = launch(ib, "threadIdx.x", 32)
    body(ib, tx, ib.buffer_ptr(X), sh)
    return func(name, [X], ib)


def test_barrier_in_a_branch_on_the_thread_index():
    def body(ib, tx, x, sh):
        with ib.if_scope(tx < 16):
            sh[tx] = x[tx]
            ib.emit(SYNC)
            x[tx] = sh[31 - tx]
    f = _kernel("half_sync", body)
    with pytest.raises(tepad.TepadError, match=r"kernel half_sync: a barrier .*branch on the "
                                                r"thread index.*wait forever"):
        emulate_gpu_threads(f)
    with pytest.raises(tepad.TepadError, match="half_sync"):
        tepad.build(f, target="cuda")


def test_barrier_in_a_loop_whose_trip_count_depends_on_the_thread():
    def body(ib, tx, x, sh):
        with ib.for_range(0, tx, "k"):
            ib.emit(SYNC)
    with pytest.raises(tepad.TepadError, match=r"kernel uneven: .*loop over k.*thread index"):
        emulate_gpu_threads(_kernel("uneven", body))


def test_barrier_behind_a_thread_dependent_let_is_fine_but_not_in_its_branch():
    def ok(ib, tx, x, sh):
        v = ib.let("v", tx * 2)
        sh[tx] = x[v]
        ib.emit(SYNC)
        x[tx] = sh[31 - tx] + tir.Cast("float32", v)
    emulate_gpu_threads(_kernel("let_ok", ok))

    def bad(ib, tx, x, sh):
        v = ib.let("v", tx % 2)
        with ib.if_scope(v == 0):
            ib.emit(SYNC)
    with pytest.raises(tepad.TepadError, match=r"kernel let_bad: .*branch on the thread index"):
        emulate_gpu_threads(_kernel("let_bad", bad))


def test_barrier_in_a_block_uniform_branch_is_emulated():
    def body(ib, tx, x, sh):
        with ib.if_scope(x[0] > tir.const(0.0, "float32")):
            sh[tx] = x[tx]
            ib.emit(SYNC)
            x[32 + tx] = sh[31 - tx]
    f = _kernel("uniform_branch", body)
    mod = tepad.build(f, target="cuda")
    for sign in (1, -1):
        x = np.arange(64, dtype="float32") * sign + sign
        want = x.copy()
        if sign > 0:
            want[32:] = x[31::-1]
        mod(x)
        np.testing.assert_array_equal(x, want)


def test_grid_barrier_and_warp_intrinsics_are_refused():
    def grid(ib, tx, x, sh):
        ib.emit(tir.Call("int32", "tir.tvm_storage_sync", [tir.StringImm("global")]))
    with pytest.raises(tepad.TepadError, match=r"kernel grid: a grid-wide barrier"):
        emulate_gpu_threads(_kernel("grid", grid))

    def shuffle(ib, tx, x, sh):
        x[tx] = tir.Call("float32", "tir.tvm_warp_shuffle",
                         [tir.const(0, "uint32"), x[tx], tx + 1, 32, 32])
    with pytest.raises(tepad.TepadError, match=r"kernel shfl: tir.tvm_warp_shuffle is a "
                                                r"warp-level intrinsic"):
        emulate_gpu_threads(_kernel("shfl", shuffle))


def test_one_tag_launched_with_two_extents():
    X = tir.decl_buffer((64,), "float32", "X")
    ib = tir.ir_builder.create()
    launch(ib, "blockIdx.x", 2)
    x = ib.buffer_ptr(X)
    with ib.new_scope():
        t1 = launch(ib, "threadIdx.x", 32)
        x[t1] = tir.const(1.0, "float32")
    with ib.new_scope():
        t2 = launch(ib, "threadIdx.x", 16)
        x[t2] = tir.const(2.0, "float32")
    with pytest.raises(tepad.TepadError, match=r"kernel two: threadIdx.x is launched with "
                                                r"extent 32 and 16"):
        emulate_gpu_threads(func("two", [X], ib))


def test_without_the_switch_cuda_is_not_emulated(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA")
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    try:         # a real GPU build, or a clear error where there is none
        mod = tepad.build(s, [A, B], target="cuda")
    except tepad.TepadError:
        return
    assert not isinstance(mod, EmulatedModule)


def test_target_host_must_be_a_cpu():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(tepad.TepadError, match="target_host 'cuda"):
        tepad.build(s, [A, B], target="cuda", target_host="cuda")


def test_the_targets_device_limits_are_checked():
    A = te.placeholder((256,), name="A")
    B = te.compute((256,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.x"))
    tepad.build(s, [A, B], target="cuda")
    with pytest.raises(tepad.TepadError, match=r"kernel main: 256 threads per block "
                                                r"\(threadIdx.x 256\) is over the target's "
                                                r"limit of 128"):
        tepad.build(s, [A, B], target="cuda -max_num_threads=128")
