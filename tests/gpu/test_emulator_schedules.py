"""GPU schedules (bind to blockIdx/threadIdx, shared stages) built for ``cuda`` and run
through the emulator, compared with numpy and with the oracle ``tepad.testing.reference``."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import tepad
from tepad import te, tir
from tepad.backend import emulated as build_emulated
from tepad.backend.emulated import EmulatedModule
from tepad.testing.reference import reference

from emulator_kernels import emulate_cuda

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _vector_add(n, factor=64):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=factor)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]


def test_vector_add_as_in_tvm_get_started():
    """The CUDA part of TVM's get-started tutorial: arrays on the (emulated) cuda device, the
    device module's source is the PTX of the kernel."""
    n = te.var("n")
    s, args = _vector_add(n)
    tgt_gpu = tepad.target.Target(target="cuda", host="llvm")
    fadd = tepad.build(s, args, target=tgt_gpu, name="myadd")
    assert isinstance(fadd, EmulatedModule) and fadd.entry_name == "myadd"
    dev = tepad.device(tgt_gpu.kind.name, 0)
    assert dev.exist
    for size in (1, 64, 1000, 1025):
        a = tepad.nd.array(np.random.uniform(size=size).astype("float32"), dev)
        b = tepad.nd.array(np.random.uniform(size=size).astype("float32"), dev)
        c = tepad.nd.array(np.zeros(size, dtype="float32"), dev)
        fadd(a, b, c)
        np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    src = fadd.imported_modules[0].get_source("ptx")
    assert ".entry myadd" in src and "bar.sync" not in src
    assert fadd.get_source("ll").startswith("; ModuleID")    # the emulated CPU code


def test_a_kernel_the_ptx_back_end_refuses_shows_the_labelled_emulated_ir(monkeypatch):
    def refuse(func, target=None):
        raise tepad.TepadError("no PTX for this kernel")
    monkeypatch.setattr(build_emulated, "ptx_of", refuse)
    s, args = _vector_add(256)
    mod = tepad.build(s, args, "cuda", name="vadd")
    src = mod.imported_modules[0].get_source("ptx")
    assert src.startswith("; tepad GPU emulator (TEPAD_CUDA=emulate): no PTX, the NVPTX back "
                          "end could not make PTX: no PTX for this kernel.\n; What follows is "
                          "the LLVM IR of kernel vadd")
    assert src.endswith(mod.get_source("ll"))


def test_non_dividing_split_is_guarded():
    s, args = _vector_add(1000, factor=64)
    mod = tepad.build(s, args, target="cuda")
    a, b = np.random.rand(1000).astype("float32"), np.random.rand(1000).astype("float32")
    c = np.full(1000, -1.0, "float32")
    mod(tepad.nd.array(a), tepad.nd.array(b), c)
    np.testing.assert_allclose(c, a + b)


def test_two_dimensional_bind():
    H, W = 70, 45
    A = te.placeholder((H, W), name="A")
    B = te.compute((H, W), lambda i, j: A[i, j] * 3.0 - A[H - 1 - i, j], name="B")
    s = te.create_schedule(B.op)
    by, bx, ty, tx = s[B].tile(B.op.axis[0], B.op.axis[1], 8, 16)
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(ty, te.thread_axis("threadIdx.y"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], target=tepad.target.Target("cuda"))
    a = np.random.rand(H, W).astype("float32")
    b = np.zeros((H, W), "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a * 3 - a[::-1], rtol=1e-5, atol=1e-6)


def test_shared_stage_computed_at_the_block():
    n, rows = 64, 8
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] + A[i, n - 1 - j], name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "shared", [B])
    bi, ti = s[B].split(B.op.axis[0], factor=rows)
    s[B].bind(bi, te.thread_axis("blockIdx.x"))
    s[B].bind(ti, te.thread_axis("threadIdx.x"))
    s[AA].compute_at(s[B], bi)
    mod = tepad.build(s, [A, B], target="cuda")
    a = np.random.rand(n, n).astype("float32")
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_allclose(b, a + a[:, ::-1], rtol=1e-6)


def test_row_sum_one_thread_per_row():
    n, m = 300, 17
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], target="cuda")
    a = np.random.rand(n, m).astype("float32")
    b = np.zeros(n, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


def test_time_evaluator_on_the_emulated_device():
    s, args = _vector_add(256)
    mod = tepad.build(s, args, target="cuda")
    a = np.ones(256, "float32")
    c = np.zeros(256, "float32")
    res = mod.time_evaluator(mod.entry_name, tepad.cuda(0), number=2)(a, a, c)
    assert res.mean > 0
    np.testing.assert_array_equal(c, 2 * a)


@pytest.mark.slow
@given(rows=st.integers(1, 40), cols=st.integers(1, 40), fx=st.sampled_from([1, 3, 8, 32]),
       fy=st.sampled_from([1, 2, 5]), reduce=st.booleans(), seed=st.integers(0, 2**16))
def test_random_gpu_schedules_match_the_oracle(rows, cols, fx, fy, reduce, seed):
    A = te.placeholder((rows, cols), name="A")
    if reduce:
        k = te.reduce_axis((0, cols), name="k")
        B = te.compute((rows,), lambda i: te.max(A[i, k] * 2.0, axis=k), name="B")
        s = te.create_schedule(B.op)
        bx, tx = s[B].split(B.op.axis[0], factor=fx)
        s[B].bind(bx, te.thread_axis("blockIdx.x"))
        s[B].bind(tx, te.thread_axis("threadIdx.x"))
    else:
        B = te.compute((rows, cols), lambda i, j: te.exp(A[i, j]) - A[i, (j + 1) % cols],
                       name="B")
        s = te.create_schedule(B.op)
        by, bx, ty, tx = s[B].tile(B.op.axis[0], B.op.axis[1], fy, fx)
        s[B].bind(by, te.thread_axis("blockIdx.y"))
        s[B].bind(bx, te.thread_axis("blockIdx.x"))
        s[B].bind(ty, te.thread_axis("threadIdx.y"))
        s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], target="cuda")
    a = np.random.default_rng(seed).standard_normal((rows, cols)).astype("float32")
    b = np.zeros([int(d) for d in B.shape], "float32")
    mod(a, b)
    np.testing.assert_allclose(b, reference(B, {A: a}), rtol=1e-5, atol=1e-5)


def test_saved_emulated_module_loads_back_as_a_cpu_library(tmp_path):
    """TVM's get-started saves the cuda module's host object, links it and loads it back."""
    n = te.var("n")
    s, args = _vector_add(n)
    fadd = tepad.build(s, args, target=tepad.target.Target(target="cuda", host="llvm"),
                       name="myadd")
    fadd.save(str(tmp_path / "myadd.o"))
    fadd.imported_modules[0].save(str(tmp_path / "myadd.ptx"))
    assert (tmp_path / "myadd.ptx").read_text() == fadd.imported_modules[0].get_source("ptx")
    tepad.contrib.cc.create_shared(str(tmp_path / "myadd.so"), [str(tmp_path / "myadd.o")])
    fadd1 = tepad.runtime.load_module(str(tmp_path / "myadd.so"))
    a = tepad.nd.array(np.random.rand(300).astype("float32"))
    b = tepad.nd.array(np.random.rand(300).astype("float32"))
    c = tepad.nd.array(np.zeros(300, "float32"))
    fadd1(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


def test_reduction_tutorial_rows_bound_to_threads():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    xo, xi = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, B], "cuda")
    a = np.random.uniform(size=(70, 45)).astype("float32")
    b = np.zeros(70, "float32")
    mod(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4)


def test_two_kernels_run_in_order_through_global_scratch():
    """Two root stages bound separately are two launches; the second reads what every block
    of the first wrote (reversed, so across blocks)."""
    A = te.placeholder((100,), name="A")
    B = te.compute((100,), lambda i: A[i] + 1, name="B")
    C = te.compute((100,), lambda i: B[99 - i] * 2, name="C")
    s = te.create_schedule(C.op)
    for T in (B, C):
        bx, tx = s[T].split(T.op.axis[0], factor=32)
        s[T].bind(bx, te.thread_axis("blockIdx.x"))
        s[T].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, [A, C], "cuda")
    a = np.random.rand(100).astype("float32")
    c = np.zeros(100, "float32")
    mod(a, c)
    np.testing.assert_allclose(c, (a[::-1] + 1) * 2, rtol=1e-6)
    blocks = []
    tir.post_order_visit(mod.func.body, lambda n: blocks.append(n)
                         if isinstance(n, tir.For) and n.kind == tir.ForKind.PARALLEL else None)
    assert len(blocks) == 2


@pytest.mark.parametrize("transform_a", [False, True])
@pytest.mark.parametrize("transform_b", [False, True])
@pytest.mark.parametrize("cache_a", [False, True])
@pytest.mark.parametrize("cache_b", [False, True])
def test_transformed_layouts_with_shared_caches(transform_a, transform_b, cache_a, cache_b):
    """TVM's TestTransformCache on a GPU target: shared cache_read / cache_write stages bound
    to threadIdx.x / threadIdx.y, the output bound to threadIdx.z, layouts transformed."""
    A = te.placeholder((16,), name="A")
    B = te.compute(A.shape, lambda i: A[i], name="B")
    s = te.create_schedule(B.op)
    if cache_a:
        AA = s.cache_read(A, "shared", [B])
        s[AA].bind(AA.op.axis[0], te.thread_axis("threadIdx.x"))
    if cache_b:
        BB = s.cache_write(B, "shared")
        s[BB].bind(BB.op.axis[0], te.thread_axis("threadIdx.y"))
    if transform_a:
        s[A].transform_layout(lambda i: [i // 4, i % 4])
    axes = s[B].transform_layout(lambda i: [i // 4, i % 4]) if transform_b else B.op.axis
    s[B].bind(axes[0], te.thread_axis("threadIdx.z"))
    mod = tepad.build(s, [A, B], target="cuda")
    a = np.random.uniform(0, 100, 16).astype("float32")
    b = np.zeros((4, 4) if transform_b else 16, "float32")
    mod(a.reshape(4, 4) if transform_a else a, b)
    np.testing.assert_array_equal(b.reshape(-1), a)
