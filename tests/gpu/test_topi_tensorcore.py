"""TVM's ``topi.cuda.dense_tensorcore`` / ``batch_matmul_tensorcore`` with their schedules and
the ``topi.cuda.tensor_intrin`` wmma declarations: the kernels use tensor-core intrinsics,
the emulator computes numpy's numbers, ptxas accepts the PTX, unsupported shapes and dtypes
are TepadErrors."""
import numpy as np
import pytest

import tepad
from tepad import te, tir, topi
from tepad.backend.cuda import ptx_of
from tepad.lower.pipeline import Options, lower_for_codegen

from emulator_kernels import emulate_cuda
from nvptx_helpers import needs_ptxas, ptxas_ok

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)

WMMA_OPS = {"tir.tvm_fill_fragment", "tir.tvm_load_matrix_sync", "tir.tvm_mma_sync",
            "tir.tvm_store_matrix_sync"}


def _ops(s, args):
    ops = set()
    gpu = lower_for_codegen(s, args, "k", Options(target="cuda"))
    tir.stmt_functor.post_order_visit(gpu.body, lambda e: ops.add(e.op)
                                      if isinstance(e, tir.Call) else None)
    return ops


def _half(rng, shape):
    return (rng.random(shape) - 0.5).astype("float16")


def _dense(M, K, N, bias=False):
    A = te.placeholder((M, K), name="A", dtype="float16")
    W = te.placeholder((N, K), name="W", dtype="float16")
    b = te.placeholder((N,), name="b", dtype="float32") if bias else None
    with tepad.target.Target("cuda"):
        out = topi.cuda.dense_tensorcore(A, W, b)
        s = topi.cuda.schedule_dense_tensorcore([out])
    return s, [A, W] + ([b] if bias else []) + [out]


@pytest.mark.parametrize("M, K, N", [(32, 32, 32), (16, 48, 32), (64, 16, 16)])
def test_dense_tensorcore_emulated(M, K, N):
    s, args = _dense(M, K, N)
    assert WMMA_OPS <= _ops(s, args)
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(M + K + N)
    a, w = _half(rng, (M, K)), _half(rng, (N, K))
    out = np.zeros((M, N), "float32")
    f(a, w, out)
    np.testing.assert_allclose(out, a.astype("float32") @ w.astype("float32").T,
                               rtol=1e-5, atol=1e-5)


def test_dense_tensorcore_with_bias_emulated():
    s, args = _dense(32, 32, 32, bias=True)
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(1)
    a, w = _half(rng, (32, 32)), _half(rng, (32, 32))
    b = rng.random(32).astype("float32")
    out = np.zeros((32, 32), "float32")
    f(a, w, b, out)
    np.testing.assert_allclose(out, a.astype("float32") @ w.astype("float32").T + b,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("B, M, K, N", [(2, 32, 32, 32), (3, 16, 32, 48)])
def test_batch_matmul_tensorcore_emulated(B, M, K, N):
    x = te.placeholder((B, M, K), name="x", dtype="float16")
    y = te.placeholder((B, N, K), name="y", dtype="float16")
    with tepad.target.Target("cuda"):
        out = topi.cuda.batch_matmul_tensorcore(x, y)
        s = topi.cuda.schedule_batch_matmul_tensorcore(out)
    assert out.shape[0] == B and out.dtype == "float32"
    assert WMMA_OPS <= _ops(s, [x, y, out])
    f = tepad.build(s, [x, y, out], "cuda")
    rng = np.random.default_rng(B * M)
    xa, ya = _half(rng, (B, M, K)), _half(rng, (B, N, K))
    res = np.zeros((B, M, N), "float32")
    f(xa, ya, res)
    want = np.einsum("bmk,bnk->bmn", xa.astype("float32"), ya.astype("float32"))
    np.testing.assert_allclose(res, want, rtol=1e-5, atol=1e-5)


@needs_ptxas
def test_dense_tensorcore_ptx_uses_tensor_cores_and_ptxas_accepts_it(tmp_path):
    s, args = _dense(32, 32, 32)
    ptx = ptx_of(lower_for_codegen(s, args, "k", Options(target="cuda")), "cuda -arch=sm_80")
    assert "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16" in ptx
    assert "wmma.load.b.sync.aligned.col.m16n16k16.shared.f16" in ptx
    assert "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32" in ptx
    assert "wmma.store.d.sync.aligned.row.m16n16k16.global.f32" in ptx
    ptxas_ok(ptx, tmp_path, arch="sm_80")


def test_refused_shapes_and_dtypes():
    A = te.placeholder((24, 32), name="A", dtype="float16")
    W = te.placeholder((32, 32), name="W", dtype="float16")
    with pytest.raises(tepad.TepadError, match=r"dense_tensorcore: sizes \{'M': 24\} .*"
                                               r"multiples of 16"):
        topi.cuda.dense_tensorcore(A, W)
    A32 = te.placeholder((32, 32), name="A", dtype="float32")
    with pytest.raises(tepad.TepadError, match="data has dtype 'float32'.*float16"):
        topi.cuda.dense_tensorcore(A32, W)
    A16 = te.placeholder((32, 32), name="A", dtype="float16")
    with pytest.raises(tepad.TepadError, match="out_dtype 'float16'.*float32 only"):
        topi.cuda.dense_tensorcore(A16, W, out_dtype="float16")
    x = te.placeholder((2, 32, 32), name="x", dtype="float16")
    with pytest.raises(tepad.TepadError, match="transpose_a=False, transpose_b=True"):
        topi.cuda.batch_matmul_tensorcore(x, x, transpose_b=False)
    y = te.placeholder((2, 32, 40), name="y", dtype="float16")
    with pytest.raises(tepad.TepadError, match="batch_matmul_tensorcore: .*agree on B and K"):
        topi.cuda.batch_matmul_tensorcore(x, y)


def test_tensor_intrin_refuses_other_fragment_shapes():
    from tepad.topi.cuda import tensor_intrin as ti
    with pytest.raises(tepad.TepadError, match=r"intrin_wmma_load_matrix_A: wmma fragment "
                                               r"shape \(8, 32, 16\).*\(16, 16, 16\) only"):
        ti.intrin_wmma_load_matrix_A(None, [te.var("s"), 1], (8, 32, 16), "row_major",
                                     (8, 16), (8, 16), "float16")
    with pytest.raises(tepad.TepadError, match="intrin_wmma_load_matrix_W: input dtype "
                                               "'int8'.*float16"):
        ti.intrin_wmma_load_matrix_W(None, [te.var("s"), 1], (16, 16, 16), "col_major",
                                     (16, 16), (16, 16), "int8")
    with pytest.raises(tepad.TepadError, match="intrin_wmma_store_matrix: accumulation dtype "
                                               "'float16'.*float32 only"):
        ti.intrin_wmma_store_matrix([te.var("s"), 1], None, (16, 16, 16), "float16",
                                    (16, 16), (16, 16))
