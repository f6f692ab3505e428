"""Tensor-core fragment scopes ``wmma.matrix_a`` / ``wmma.matrix_b`` / ``wmma.accumulator``:
InferBound sizes them per warp/thread as ``local`` (one 16 x 16 fragment each), not as global
(the whole matrix); the emulator computes the untensorized schedule's numbers and, tensorized
with TVM-style wmma intrinsics, the fragment loops'; the NVPTX back end emits
``wmma.*.sync`` that ptxas accepts for sm_80."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.cuda import ptx_of
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.tir.storage_scope import FRAGMENT_SCOPES, split_storage_scope, storage_rank

from emulator_kernels import emulate_cuda
from nvptx_helpers import needs_ptxas, ptxas_ok
from tensorcore_schedules import (intrin_gemm, intrin_load_matrix, tensorize_wmma,
                                  wmma_matmul)

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _allocation_sizes(func):
    out = {}

    def f(n):
        if isinstance(n, tir.Allocate):
            size = 1
            for e in n.extents:
                size *= int(e.value)
            out[n.annotations.get("scope")] = out.get(n.annotations.get("scope"), []) + [size]
    tir.stmt_functor.post_order_visit(func.body, f)
    return out


def test_fragment_scopes_rank_as_local():
    for scope in FRAGMENT_SCOPES:
        assert storage_rank(scope) == "local"
        assert split_storage_scope(scope)[0] == "local"
    with pytest.raises(tepad.TepadError, match="'wmma.matrix_a', 'wmma.matrix_b'"):
        split_storage_scope("wmma.matrix_c", "cache_read(A)")


@pytest.mark.parametrize("n, warps", [(64, (2, 2)), (128, (2, 4))])
def test_fragments_are_one_16x16_tile_per_warp(n, warps):
    s, args, _ = wmma_matmul(n, warps)
    sizes = _allocation_sizes(lower_for_codegen(s, args, "mm", Options(target="cuda")))
    for scope in FRAGMENT_SCOPES:
        assert sizes[scope] == [256], (scope, sizes)
    # the shared tiles: one 16 x (16 * warps) strip of A and of B per k step
    assert sorted(sizes["shared"]) == sorted([16 * 16 * warps[0], 16 * 16 * warps[1]])


@pytest.mark.parametrize("n, warps", [(16, (1, 1)), (64, (2, 2)), (64, (1, 2))])
def test_untensorized_fragments_emulated(n, warps):
    s, args, _ = wmma_matmul(n, warps)
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(n)
    a = rng.random((n, n)).astype("float16")
    b = rng.random((n, n)).astype("float16")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a.astype("float32") @ b.astype("float32"), rtol=1e-5)


# ------------------------------------------------------------------ tensorized with wmma
@pytest.mark.parametrize("n, warps", [(16, (1, 1)), (64, (2, 2)), (64, (1, 2)), (128, (2, 4))])
def test_wmma_tensorized_matmul_emulated(n, warps):
    s, args, _ = wmma_matmul(n, warps, tensorize_with=tensorize_wmma)
    gpu = lower_for_codegen(s, args, "mm", Options(target="cuda"))
    ops = set()
    tir.stmt_functor.post_order_visit(gpu.body, lambda e: ops.add(e.op)
                                      if isinstance(e, tir.Call) else None)
    assert {"tir.tvm_fill_fragment", "tir.tvm_load_matrix_sync", "tir.tvm_mma_sync",
            "tir.tvm_store_matrix_sync"} <= ops
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(n + warps[1])
    a = (rng.random((n, n)) - 0.5).astype("float16")
    b = (rng.random((n, n)) - 0.5).astype("float16")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a.astype("float32") @ b.astype("float32"), rtol=1e-5,
                               atol=1e-5)


@needs_ptxas
@pytest.mark.parametrize("n, warps", [(16, (1, 1)), (64, (2, 2))])
def test_wmma_ptx_uses_tensor_cores_and_ptxas_accepts_it(n, warps, tmp_path):
    s, args, _ = wmma_matmul(n, warps, tensorize_with=tensorize_wmma)
    ptx = ptx_of(lower_for_codegen(s, args, "mm", Options(target="cuda")), "cuda -arch=sm_80")
    assert "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16" in ptx
    assert "wmma.load.b.sync.aligned.row.m16n16k16.shared.f16" in ptx
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx
    assert "wmma.store.d.sync.aligned.row.m16n16k16.global.f32" in ptx
    assert ".local" not in ptx          # fragments stay in registers
    ptxas_ok(ptx, tmp_path, arch="sm_80")


def test_fragment_used_by_intrinsics_and_elements_is_refused():
    def half_tensorized(s, AF, BF, CF, C, cf_axes, c_axes):
        ci, cj, ki = cf_axes
        s[AF].tensorize(AF.op.axis[0], intrin_load_matrix("wmma.matrix_a"))
        s[BF].tensorize(BF.op.axis[0], intrin_load_matrix("wmma.matrix_b"))
        s[CF].tensorize(ci, intrin_gemm())          # C's store stays element by element
    s, args, _ = wmma_matmul(16, tensorize_with=half_tensorized)
    with pytest.raises(tepad.TepadError, match=r"fragment C.wmma.accumulator .* used both by "
                                               r"tensor-core intrinsics and element by element"):
        ptx_of(lower_for_codegen(s, args, "mm", Options(target="cuda")))


def test_wmma_shape_other_than_16_is_refused():
    A = tir.decl_buffer((256,), "float32", "A")
    ib = tir.ir_builder.create()
    bx = te.thread_axis("blockIdx.x")
    ib.scope_attr(bx, "thread_extent", 1)
    frag = ib.allocate("float32", 256, "acc", scope="wmma.accumulator")
    ib.emit(tir.call_intrin("handle", "tir.tvm_fill_fragment", frag.data, 8, 32, 16, 0, 0.0))
    f = tir.PrimFunc([A], ib.get()).with_attr("global_symbol", "odd")
    with pytest.raises(tepad.TepadError, match=r"tvm_fill_fragment of shape \[8, 32, 16\]"):
        tepad.build(f, target="cuda")


def test_real_cuda_build_launches_with_c_by_pointer(monkeypatch):
    """Without the emulator (a fake driver records the launch): C is used by the kernel only
    through the store intrinsic's access_ptr, so it is a handle parameter, launched with C's
    device pointer like the buffers A and B."""
    from nvptx_helpers import FakeDriver
    from tepad.runtime.cuda_driver import use_driver
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(FakeDriver()) as fake:
        s, args, _ = wmma_matmul(32, (1, 2), tensorize_with=tensorize_wmma)
        f = tepad.build(s, args, "cuda -arch=sm_80")
        assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in \
            f.imported_modules[0].get_source("ptx")
        dev = tepad.cuda(0)
        a = tepad.nd.array(np.ones((32, 32), "float16"), dev)
        b = tepad.nd.array(np.ones((32, 32), "float16"), dev)
        c = tepad.nd.empty((32, 32), "float32", dev)
        f(a, b, c)
        (fn, grid, block, shared, launch_args), = fake.launches
        assert (grid, block) == ((2, 1, 1), (32, 1, 2))
        assert launch_args == [a.data_ptr, b.data_ptr, c.data_ptr]


def test_cuda_c_of_the_tensorized_matmul():
    """The printed CUDA C writes the intrinsics as nvcuda::wmma calls on fragments declared
    with their layouts; nvcc accepts it where the toolkit is installed."""
    import shutil
    s, args, _ = wmma_matmul(32, (1, 2), tensorize_with=tensorize_wmma)
    src = tepad.build(s, args, "cuda -arch=sm_80").imported_modules[0].get_source()
    assert "#include <mma.h>" in src
    assert "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, " \
           "nvcuda::wmma::row_major>" in src
    assert "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> " in src
    assert "nvcuda::wmma::fill_fragment(" in src and "nvcuda::wmma::mma_sync(" in src
    assert "nvcuda::wmma::store_matrix_sync(" in src and "nvcuda::wmma::mem_row_major)" in src
    assert "float* __restrict__ C" in src       # typed by its access_ptr
    if shutil.which("nvcc"):
        from tepad.contrib.nvcc import compile_cuda
        assert b"wmma.mma.sync" in compile_cuda(src, "ptx", arch="sm_80")
