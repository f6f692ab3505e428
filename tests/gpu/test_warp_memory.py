"""Storage scope ``warp`` (TVM's LowerWarpMemory): a buffer spread over the lanes of a warp.

The schedules are TVM's warp-memory examples in our words: a cache_read of A into ``warp``
computed at the block loop, its axis split by 32 and bound to ``threadIdx.x``, read by the
neighbouring lane. Checked three ways: numerics through the emulator (which keeps one copy per
warp row and orders the stores before the reads) against numpy; the real lowering's IR (per
lane registers, ``tvm_warp_shuffle``) and its PTX through ptxas; and the patterns neither can
handle, refused with the buffer named.
"""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.cuda import ptx_of
from tepad.lower.passes.lower_warp_memory import lower_warp_memory, plan_warp_allocation
from tepad.lower.pipeline import Options, lower_for_codegen

from emulator_kernels import emulate_cuda, func, launch
from nvptx_helpers import needs_ptxas, ptxas_ok

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def rotate_in_warps(m=128, dtype="float32"):
    """B[i] = A[the next lane's element of i's group of 32], A staged through warp memory."""
    A = te.placeholder((m,), name="A", dtype=dtype)
    B = te.compute((m,), lambda i: A[i // 32 * 32 + (i + 1) % 32], name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "warp", [B])
    bo, bi = s[B].split(B.op.axis[0], 64)
    _, lane = s[B].split(bi, factor=32)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(lane, tx)
    s[B].bind(bo, te.thread_axis("blockIdx.x"))
    s[AA].compute_at(s[B], bo)
    _, ai = s[AA].split(s[AA].op.axis[0], 32)
    s[AA].bind(ai, tx)
    return s, [A, B]


def _expected_rotation(a):
    i = np.arange(a.size)
    return a[i // 32 * 32 + (i + 1) % 32]


def _kernel_body(f):
    return lower_warp_memory(lower_for_codegen(f[0], f[1], "f", Options(target="cuda")))


def _allocations(func):
    out = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: out.append(n)
                                      if isinstance(n, tir.Allocate) else None)
    return out


def _calls(func, op):
    out = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: out.append(n)
                                      if isinstance(n, tir.Call) and n.op == op else None)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rotation_through_warp_memory_emulated(dtype):
    s, args = rotate_in_warps(dtype=dtype)
    f = tepad.build(s, args, "cuda")
    a = np.arange(128).astype(dtype)
    b = np.zeros(128, dtype)
    f(a, b)
    np.testing.assert_array_equal(b, _expected_rotation(a))


def test_real_lowering_keeps_two_registers_per_lane_and_shuffles():
    lowered = _kernel_body(rotate_in_warps())
    [alloc] = _allocations(lowered)
    assert alloc.annotations["scope"] == "local"
    assert [int(e.value) for e in alloc.extents] == [2]      # 64 elements over 32 lanes
    shuffles = _calls(lowered, "tir.tvm_warp_shuffle")
    assert len(shuffles) == 1
    assert [int(a.value) for a in shuffles[0].args[3:]] == [32, 32]   # width, warp size


@needs_ptxas
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ptx_has_shfl_sync_and_ptxas_accepts_it(dtype, tmp_path):
    s, args = rotate_in_warps(dtype=dtype)
    ptx = ptx_of(lower_for_codegen(s, args, "rot", Options(target="cuda")), "cuda -arch=sm_80")
    assert "shfl.sync.idx.b32" in ptx
    assert ".local" not in ptx          # the lane's two elements stay in registers
    ptxas_ok(ptx, tmp_path, arch="sm_80")


def half_a_warp(n=16, m=16):
    """B[j, i] = A[j, (i + 1) % m]: threadIdx.x of extent 16 under threadIdx.y, so two rows
    share a warp and each has its own warp buffer (shuffles of width 16)."""
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda j, i: A[j, (i + 1) % m], name="B")
    s = te.create_schedule(B.op)
    tx, ty = te.thread_axis("threadIdx.x"), te.thread_axis("threadIdx.y")
    AA = s.cache_read(A, "warp", [B])
    y, x = B.op.axis
    z, y = s[B].split(y, nparts=2)
    s[B].bind(x, tx)
    s[B].bind(y, ty)
    s[B].bind(z, te.thread_axis("blockIdx.x"))
    s[AA].compute_at(s[B], y)
    s[AA].bind(AA.op.axis[1], tx)
    return s, [A, B]


def test_half_a_warp_per_row_emulated():
    s, args = half_a_warp()
    a = np.random.default_rng(0).random((16, 16)).astype("float32")
    b = np.zeros_like(a)
    tepad.build(s, args, "cuda")(a, b)
    np.testing.assert_array_equal(b, np.roll(a, -1, axis=1))
    gpu = lower_for_codegen(s, args, "f", Options(target="cuda"))
    [shuffle] = _calls(lower_warp_memory(gpu), "tir.tvm_warp_shuffle")
    assert int(shuffle.args[3].value) == 16


@needs_ptxas
def test_half_a_warp_ptx(tmp_path):
    s, args = half_a_warp()
    ptx = ptx_of(lower_for_codegen(s, args, "f", Options(target="cuda")), "cuda -arch=sm_80")
    assert "shfl.sync.idx.b32" in ptx
    ptxas_ok(ptx, tmp_path, arch="sm_80")


def test_two_warp_buffers_emulated():
    m = 32
    A = te.placeholder((m,), name="A")
    B = te.placeholder((m,), name="B")
    C = te.compute((m,), lambda i: A[(i + 1) % m] + B[(i + 1) % m], name="C")
    s = te.create_schedule(C.op)
    tx, bx = te.thread_axis("threadIdx.x"), te.thread_axis("blockIdx.x")
    AA, BB = s.cache_read(A, "warp", [C]), s.cache_read(B, "warp", [C])
    xo, xi = s[C].split(C.op.axis[0], nparts=1)
    s[C].bind(xi, tx)
    s[C].bind(xo, bx)
    for T in (AA, BB):
        s[T].compute_at(s[C], xo)
        s[T].bind(s[T].split(s[T].op.axis[0], nparts=1)[1], tx)
    a, b = np.arange(m).astype("float32"), (np.arange(m) * 3.0).astype("float32")
    c = np.zeros(m, "float32")
    tepad.build(s, [A, B, C], "cuda")(a, b, c)
    np.testing.assert_array_equal(c, np.roll(a, -1) + np.roll(b, -1))


@pytest.mark.parametrize("m", [31, 32, 33, 65])
def test_sizes_not_a_multiple_of_the_warp_round_up(m):
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, tx)
    AA = s.cache_read(A, "warp", [B])
    s[AA].bind(s[AA].split(s[AA].op.axis[0], factor=32)[1], tx)
    s[AA].compute_at(s[B], xo)
    a = np.random.default_rng(m).random(m).astype("float32")
    b = np.zeros(m, "float32")
    tepad.build(s, [A, B], "cuda")(a, b)
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_each_lane_reading_its_own_elements_needs_no_shuffle():
    """A cache_write into warp memory read back by the lane that wrote it (TVM's same-thread
    case): plain register loads."""
    m = n = 64
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=[k]), name="B")
    s = te.create_schedule(B.op)
    BB = s.cache_write(B, "warp")
    tx = te.thread_axis("threadIdx.x")
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(xi, tx)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[BB].compute_at(s[B], xo)
    s[BB].bind(s[BB].split(s[BB].op.axis[0], factor=32)[1], tx)
    lowered = lower_warp_memory(lower_for_codegen(s, [A, B], "f", Options(target="cuda")))
    assert not _calls(lowered, "tir.tvm_warp_shuffle")
    a = np.random.default_rng(1).random((m, n)).astype("float32")
    b = np.zeros(m, "float32")
    tepad.build(s, [A, B], "cuda")(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


# ------------------------------------------------------------------ refused patterns
def _hand_kernel(name, body, scope="warp"):
    """One block; ``body(ib, t, x, y)`` with ``t`` the 64-element buffer in ``scope``, reading
    X (64 floats) and writing Y (64 floats)."""
    X = tir.decl_buffer((64,), "float32", "X")
    Y = tir.decl_buffer((64,), "float32", "Y")
    ib = tir.ir_builder.create()
    launch(ib, "blockIdx.x", 1)
    t = ib.allocate("float32", 64, "t", scope=scope)
    body(ib, t, ib.buffer_ptr(X), ib.buffer_ptr(Y))
    return func(name, [X, Y], ib)


def _refused(f, match):
    with pytest.raises(tepad.TepadError, match=match):
        lower_warp_memory(f)
    with pytest.raises(tepad.TepadError, match=match):
        tepad.build(f, target="cuda")         # the emulator applies the same rules


def test_warp_buffer_without_a_lane_launch_is_refused():
    def body(ib, t, x, y):
        y[0] = t[0]
    _refused(_hand_kernel("nolane", body), r"warp memory t: no threadIdx.x launch")


def test_store_into_another_lane_is_refused():
    def body(ib, t, x, y):
        tx = launch(ib, "threadIdx.x", 32)
        t[(tx + 1) % 32] = x[tx]
        y[tx] = t[tx]
    _refused(_hand_kernel("otherlane", body), r"warp memory t: store at index .* "
                                              r"(another lane|threadIdx.x times)")


def test_lane_dependent_register_is_refused():
    def body(ib, t, x, y):
        tx = launch(ib, "threadIdx.x", 32)
        t[tx] = x[tx]
        t[tx + 32] = x[tx + 32]
        y[tx] = t[tx * 2]            # lanes 16.. read their second register: no shuffle does that
    _refused(_hand_kernel("lanereg", body), r"warp memory t: load at index .* differs between "
                                            r"the lanes")


def test_wide_lane_launch_is_refused():
    def body(ib, t, x, y):
        tx = launch(ib, "threadIdx.x", 64)
        t[tx] = x[tx]
        y[tx] = t[63 - tx]
    _refused(_hand_kernel("wide", body), r"warp memory t: threadIdx.x extent 64 must divide "
                                         r"the warp size 32")


def test_plan_of_a_strided_warp_buffer():
    """Stores ``t[2 * tx + j]``: each lane holds 2 consecutive elements per group of 64."""
    def body(ib, t, x, y):
        tx = launch(ib, "threadIdx.x", 32)
        with ib.for_range(0, 2, name="j") as j:
            t[tx * 2 + j] = x[tx * 2 + j]
        y[tx] = t[(tx * 2 + 2) % 64]
    f = _hand_kernel("strided", body)
    allocs = _allocations(f)
    plan = plan_warp_allocation(allocs[0])
    assert (plan.width, plan.coeff, plan.size, plan.local_size) == (32, 2, 64, 2)
    x = np.random.default_rng(2).random(64).astype("float32")
    y = np.zeros(64, "float32")
    tepad.build(f, target="cuda")(x, y)
    np.testing.assert_array_equal(y[:32], x[(np.arange(32) * 2 + 2) % 64])


def test_emulator_pass_alone_refuses_an_unlowered_warp_buffer():
    from tepad.lower.passes.emulate_gpu_threads import emulate_gpu_threads
    s, args = rotate_in_warps()
    gpu = lower_for_codegen(s, args, "rot", Options(target="cuda"))
    with pytest.raises(tepad.TepadError, match=r"kernel rot: warp buffer A.warp reached "
                                               r"emulate_gpu_threads"):
        emulate_gpu_threads(gpu)


def test_tvm_name_lower_warp_memory_on_the_lowered_module():
    """TVM's local-scope check: after LowerWarpMemory the buffer is 'local' with 2 elements."""
    s, args = rotate_in_warps()
    mod = tepad.lower(s, args, name="f")
    out = tepad.tir.transform.LowerWarpMemory()(mod)["f"]
    [alloc] = _allocations(out)
    assert alloc.annotations["scope"] == "local" and int(alloc.extents[0].value) == 2
