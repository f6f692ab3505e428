"""On a real GPU (skipped elsewhere): kernels built for CUDA compute what numpy computes."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te

from .nvptx_helpers import requires_gpu, vadd_schedule
from .test_nvptx_codegen import _shared_reverse_kernel, _warp_sum_kernel

pytestmark = requires_gpu


@pytest.fixture(autouse=True)
def real_cuda(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)


def test_vector_add():
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    dev = tvm.cuda(0)
    for n in (1, 64, 1000, 1 << 20):
        x = np.random.rand(n).astype("float32")
        y = np.random.rand(n).astype("float32")
        a, b = tvm.nd.array(x, dev), tvm.nd.array(y, dev)
        c = tvm.nd.empty((n,), "float32", dev)
        f(a, b, c)
        np.testing.assert_allclose(c.numpy(), x + y, rtol=1e-6)


def test_shared_memory_reverse():
    f = tvm.build(_shared_reverse_kernel(), target="cuda")
    dev = tvm.cuda(0)
    x = np.arange(1024, dtype="float32")
    a, b = tvm.nd.array(x, dev), tvm.nd.empty((1024,), "float32", dev)
    f(a, b)
    np.testing.assert_array_equal(b.numpy(), x.reshape(8, 128)[:, ::-1].reshape(-1))


@pytest.mark.parametrize("name,fn,ref", [
    ("exp", te.exp, np.exp), ("log", te.log, np.log), ("sqrt", te.sqrt, np.sqrt),
    ("tanh", te.tanh, np.tanh), ("sin", te.sin, np.sin), ("cos", te.cos, np.cos),
    ("pow", lambda x: te.power(x, x), lambda x: np.power(x, x))])
def test_math(name, fn, ref):
    n = 4096
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: fn(A[i]), name="B")
    s = te.create_schedule(B.op)
    bx, tx = s[B].split(B.op.axis[0], factor=256)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    f = tvm.build(s, [A, B], target="cuda")
    x = np.random.uniform(0.1, 3.0, n).astype("float32")
    dev = tvm.cuda(0)
    b = tvm.nd.empty((n,), "float32", dev)
    f(tvm.nd.array(x, dev), b)
    np.testing.assert_allclose(b.numpy(), ref(x), rtol=2e-6, atol=1e-6)


def test_time_evaluator():
    s, args = vadd_schedule()
    f = tvm.build(s, args, target="cuda")
    dev = tvm.cuda(0)
    a = tvm.nd.array(np.ones(1 << 22, "float32"), dev)
    t = f.time_evaluator(f.entry_name, dev, number=10, repeat=3)(a, a, a)
    assert 0 < t.mean < 0.1


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_warp_shuffle_sum(dtype):
    f = tvm.build(_warp_sum_kernel(dtype), target="cuda")
    x = np.arange(32).astype(dtype)
    a = tvm.nd.array(x, tvm.cuda(0))
    f(a)
    np.testing.assert_array_equal(a.numpy(), np.full(32, x.sum(), dtype))
