"""``topi.cuda.tensor_intrin.dp4a`` (TVM's 4-lane int8 dot-product intrinsic, as FlexTensor's
legacy gemm_int8.py tensorizes with it): an int8 GEMM whose 4-long inner reduction is
tensorized, on the CPU and through the CUDA emulator, against numpy; signed and unsigned
lanes; the intrinsic's reset and update bodies."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.topi.cuda.tensor_intrin import dp4a


def _gemm(n, m, l, dtypes=("int8", "int8")):
    A = te.placeholder((n, l), name="A", dtype=dtypes[0])
    B = te.placeholder((m, l), name="B", dtype=dtypes[1])
    k = te.reduce_axis((0, l), name="k")
    acc = "int32" if dtypes[1] == "int8" else "uint32"
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k].astype(acc) * B[j, k].astype(acc),
                                               axis=k), name="C")
    return A, B, C


def _data(n, m, l, dtypes=("int8", "int8")):
    rng = np.random.default_rng(3)
    lo = [(-128 if d == "int8" else 0) for d in dtypes]
    a = rng.integers(lo[0], 128, (n, l)).astype(dtypes[0])
    b = rng.integers(lo[1], 128, (m, l)).astype(dtypes[1])
    return a, b


@pytest.mark.parametrize("dtypes", [("int8", "int8"), ("uint8", "uint8")])
def test_dp4a_tensorized_gemm_cpu(dtypes):
    n, m, l = 8, 6, 16
    A, B, C = _gemm(n, m, l, dtypes)
    s = te.create_schedule(C.op)
    AL = s.cache_read(A, "local", [C])
    BL = s.cache_read(B, "local", [C])
    CC = s.cache_write(C, "local")
    i, j = s[C].op.axis
    s[CC].compute_at(s[C], j)
    s[AL].compute_at(s[CC], s[CC].op.axis[1])
    s[BL].compute_at(s[CC], s[CC].op.axis[1])
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=4)
    s[CC].tensorize(ki, dp4a("local", "local", "local", dtypes))
    f = tepad.build(s, [A, B, C], "llvm")
    a, b = _data(n, m, l, dtypes)
    c = tepad.nd.array(np.zeros((n, m), C.dtype))
    f(tepad.nd.array(a), tepad.nd.array(b), c)
    acc = np.int64
    np.testing.assert_array_equal(c.numpy().astype(acc), a.astype(acc) @ b.astype(acc).T)


def test_dp4a_tensorized_gemm_cuda_emulated(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    n, m, l = 8, 8, 32
    A, B, C = _gemm(n, m, l)
    s = te.create_schedule(C.op)
    AL = s.cache_read(A, "local", [C])
    BL = s.cache_read(B, "local", [C])
    CC = s.cache_write(C, "local")
    i, j = s[C].op.axis
    by, ty = s[C].split(i, factor=4)
    bx, tx = s[C].split(j, factor=4)
    s[C].reorder(by, bx, ty, tx)
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[CC].compute_at(s[C], tx)
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=4)
    s[CC].tensorize(ki, dp4a("local", "local", "local"))
    for t in (AL, BL):
        s[t].compute_at(s[CC], ko)
    f = tepad.build(s, [A, B, C], "cuda")
    dev = tepad.cuda(0)
    a, b = _data(n, m, l)
    c = tepad.nd.array(np.zeros((n, m), "int32"), dev)
    f(tepad.nd.array(a, dev), tepad.nd.array(b, dev), c)
    np.testing.assert_array_equal(c.numpy(), a.astype(np.int32) @ b.astype(np.int32).T)


def test_dp4a_rejects_wide_lanes():
    with pytest.raises(tepad.TepadError, match="8-bit lanes"):
        dp4a(dtypes=("int16", "int8"))
