"""TVM's contrib helpers TE programs call: ``cblas`` / ``mkl`` matrix products as extern
stages (numpy's BLAS), LLVM IR linked in with ``pragma("import_llvm")`` (``contrib.clang``
makes it from C when a clang is there), and the ``contrib.nvcc`` helpers."""
import shutil

import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir
from tepad.contrib import cblas, clang, mkl, nvcc

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("transa", [False, True])
@pytest.mark.parametrize("transb", [False, True])
@pytest.mark.parametrize("lib", [cblas, mkl])
def test_matmul_every_transpose(lib, transa, transb):
    n, k, m = 6, 5, 7
    A = te.placeholder((k, n) if transa else (n, k), name="A")
    B = te.placeholder((m, k) if transb else (k, m), name="B")
    C = lib.matmul(A, B, transa, transb)
    D = te.compute(C.shape, lambda i, j: C[i, j] + 1.0, name="D")   # a stage after the call
    f = tvm.build(te.create_schedule(D.op), [A, B, D])
    a = RNG.random([int(d) for d in A.shape]).astype("float32")
    b = RNG.random([int(d) for d in B.shape]).astype("float32")
    d = np.zeros((n, m), "float32")
    f(a, b, d)
    lhs = a.T if transa else a
    rhs = b.T if transb else b
    ref = np.einsum("ik,kj->ij", lhs.astype("float64"), rhs.astype("float64")) + 1.0
    np.testing.assert_allclose(d, ref, rtol=1e-5)


@pytest.mark.parametrize("iterative", [False, True])
def test_batch_matmul_broadcasts_a_batch_of_one(iterative):
    A = te.placeholder((3, 4, 5), "float64", name="A")
    B = te.placeholder((1, 6, 5), "float64", name="B")
    C = cblas.batch_matmul(A, B, transb=True, iterative=iterative)
    assert [int(x) for x in C.shape] == [3, 4, 6]
    f = tvm.build(te.create_schedule(C.op), [A, B, C])
    a = RNG.random((3, 4, 5))
    b = RNG.random((1, 6, 5))
    c = np.zeros((3, 4, 6))
    f(a, b, c)
    ref = np.einsum("bik,jk->bij", a, b[0])
    np.testing.assert_allclose(c, ref, rtol=1e-12)


def test_matmul_refuses_mismatched_inputs():
    A = te.placeholder((4, 5), name="A")
    with pytest.raises(tvm.TepadError, match="must be 2-d"):
        cblas.matmul(A, te.placeholder((5,), name="B"))
    with pytest.raises(tvm.TepadError, match="dtypes differ"):
        cblas.matmul(A, te.placeholder((5, 3), "float64", name="B"))


MY_ADD_LL = """
define float @compat_my_add(float %a, float %b) {
  %s = fadd float %a, %b
  %t = fmul float %s, 2.0
  ret float %t
}
"""


def _import_llvm_kernel(ll_code):
    A = te.placeholder((16,), name="A")
    B = te.placeholder((16,), name="B")
    C = te.compute((16,), lambda i: tir.call_pure_extern("float32", "compat_my_add", A[i],
                                                         B[i]), name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].pragma(xo, "import_llvm", ll_code)
    return tvm.build(s, [A, B, C])


def test_pragma_import_llvm_links_the_ir_into_the_kernel():
    f = _import_llvm_kernel(MY_ADD_LL)
    a, b = RNG.random(16).astype("float32"), RNG.random(16).astype("float32")
    c = np.zeros(16, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, (a + b) * 2.0, rtol=1e-6)
    assert not any(ln.startswith("declare") and "compat_my_add" in ln
                   for ln in f.ll.splitlines())         # defined in the module, not external


def test_pragma_import_llvm_with_bad_ir_is_a_tepad_error():
    with pytest.raises(tvm.TepadError, match="import_llvm #0: the LLVM IR given does not parse"):
        _import_llvm_kernel("define float @compat_my_add(float %a, float %b) { nonsense }")


@pytest.mark.skipif(not clang.find_clang(required=False), reason="no clang on this machine")
def test_create_llvm_from_c_and_import_it():
    ll = clang.create_llvm('extern "C" float compat_my_add(float a, float b) '
                           '{ return (a + b) * 2.0f; }')
    f = _import_llvm_kernel(ll)
    a, b = RNG.random(16).astype("float32"), RNG.random(16).astype("float32")
    c = np.zeros(16, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, (a + b) * 2.0, rtol=1e-6)


def test_create_llvm_without_clang_says_so(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(clang, "_zig", lambda: None)
    with pytest.raises(tvm.TepadError, match="no clang found"):
        clang.create_llvm("int f() { return 1; }")


@pytest.mark.skipif(clang._zig() is None, reason="the ziglang wheel is not installed")
def test_create_llvm_with_the_ziglang_clang(monkeypatch):
    """Without a clang on PATH, the ziglang wheel's clang compiles the C++ micro-kernel, and
    its IR links into a kernel."""
    monkeypatch.setenv("PATH", "")
    assert clang.find_clang() == [clang._zig()]
    ll = clang.create_llvm('extern "C" float compat_my_mul(float a, float b) '
                           '{ return a * b + 1.0f; }')
    assert "define" in ll and "compat_my_mul" in ll and "!dbg" not in ll
    f = _import_llvm_kernel(ll.replace("compat_my_mul", "compat_my_add"))
    a, b = RNG.random(16).astype("float32"), RNG.random(16).astype("float32")
    c = np.zeros(16, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a * b + 1.0, rtol=1e-6)


def test_compute_version_helpers():
    assert nvcc.parse_compute_version("8.6") == (8, 6)
    assert nvcc.parse_compute_version("sm_90") == (9, 0)
    with pytest.raises(tvm.TepadError, match="not like"):
        nvcc.parse_compute_version("ampere")
    assert nvcc.have_fp16("5.3") and not nvcc.have_fp16("5.2") and nvcc.have_fp16("7.0")
    assert nvcc.have_int8("6.1") and not nvcc.have_int8("6.0")
    assert nvcc.have_tensorcore("7.0") and not nvcc.have_tensorcore("6.1")
    assert nvcc.have_tensorcore(target="cuda -arch=sm_80")
    assert nvcc.have_bf16("8.0") and not nvcc.have_bf16("7.5")
    assert nvcc.get_target_compute_version("cuda -arch=sm_75") == "7.5"
    with tvm.target.Target("cuda -arch=sm_86"):
        assert nvcc.get_target_compute_version() == "8.6"


def test_compile_cuda_without_nvcc_says_so(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(tvm.TepadError, match="nvcc is not installed"):
        nvcc.compile_cuda("__global__ void k() {}", arch="sm_80")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on this machine")
def test_compile_cuda_to_ptx():
    ptx = nvcc.compile_cuda('extern "C" __global__ void compat_k(float* a) '
                            '{ a[threadIdx.x] += 1.0f; }', arch="sm_80")
    text = ptx.decode()
    assert ".target sm_80" in text and "compat_k" in text
    assert nvcc.get_cuda_version()[0] >= 9


def test_contrib_util_is_utils_of_tvm_06(monkeypatch):
    monkeypatch.setattr(tvm.errors, "_WARNED", set())
    with pytest.warns(DeprecationWarning, match="tvm.contrib.util .*tvm.contrib.utils"):
        from tepad.contrib import util
    tmp = util.tempdir()
    assert tmp.relpath("x.so").endswith("x.so")


def test_random_tensors():
    from tepad.contrib import random
    random.seed(3)
    U = random.uniform(-2.0, 3.0, (400,))
    N = random.normal(1.0, 0.5, (2000,), dtype="float64")
    R = random.randint(2, 6, (50,))
    S = te.compute((400,), lambda i: U[i] * 2.0, name="S")
    f = tvm.build(te.create_schedule([S.op, N.op, R.op]), [S, N, R])
    s = np.zeros(400, "float32")
    n = np.zeros(2000, "float64")
    r = np.zeros(50, "int32")
    f(s, n, r)
    assert -4.0 <= s.min() and s.max() < 6.0 and s.std() > 0.5
    assert abs(n.mean() - 1.0) < 0.1 and abs(n.std() - 0.5) < 0.1
    assert set(np.unique(r)) <= {2, 3, 4, 5}
    with pytest.raises(tvm.TepadError, match="high"):
        random.uniform(1.0, 1.0, (2,))


def test_pickle_memoize_caches_by_arguments():
    from tepad.contrib.pickle_memoize import memoize
    calls = []

    @memoize("compat.test.reference")
    def reference(n, m):
        calls.append((n, m))
        return np.full((n, m), n + m)
    assert reference(2, 3).shape == (2, 3)
    reference(2, 3)
    reference(3, 3)
    assert calls == [(2, 3), (3, 3)]
