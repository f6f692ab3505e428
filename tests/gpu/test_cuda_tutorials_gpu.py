"""On a real GPU (skipped elsewhere): the CUDA parts of TVM's TE tutorials, end to end on the
device: get started (vector add with save / export / load), the reduction tutorial's
cross-thread row sum, a shared-memory tiled matmul, plus the runtime's checked launches and
timing. Each result is compared with numpy."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te
from tepad.errors import TepadError
from tepad.runtime.library import find_compiler

from gpu_helpers import rfactor_rows, tiled_matmul
from nvptx_helpers import requires_gpu, vadd_schedule

pytestmark = requires_gpu


@pytest.fixture(autouse=True)
def real_cuda(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)


def test_get_started_vector_add_save_export_load(tmp_path):
    s, args = vadd_schedule()
    fadd = tvm.build(s, args, target="cuda", name="myadd")
    dev = tvm.cuda(0)
    n = 1024
    a = tvm.nd.array(np.random.uniform(size=n).astype("float32"), dev)
    b = tvm.nd.array(np.random.uniform(size=n).astype("float32"), dev)
    c = tvm.nd.array(np.zeros(n, dtype="float32"), dev)
    fadd(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    t = fadd.time_evaluator(fadd.entry_name, dev, number=10)(a, b, c)
    assert 0 < t.mean < 0.1
    try:
        find_compiler()
    except TepadError:
        pytest.skip("no C compiler to link the saved host part (gcc, cc or clang on PATH)")
    fadd.save(str(tmp_path / "myadd.o"))
    fadd.imported_modules[0].save(str(tmp_path / "myadd.ptx"))
    tvm.contrib.cc.create_shared(str(tmp_path / "myadd.so"), [str(tmp_path / "myadd.o")])
    fadd1 = tvm.runtime.load_module(str(tmp_path / "myadd.so"))
    fadd1.import_module(tvm.runtime.load_module(str(tmp_path / "myadd.ptx")))
    c1 = tvm.nd.empty((n,), "float32", dev)
    fadd1(a, b, c1)
    np.testing.assert_allclose(c1.numpy(), a.numpy() + b.numpy())
    fadd.export_library(str(tmp_path / "myadd_pack.so"))
    fadd2 = tvm.runtime.load_module(str(tmp_path / "myadd_pack.so"))
    c2 = tvm.nd.empty((n,), "float32", dev)
    fadd2(a, b, c2)
    np.testing.assert_allclose(c2.numpy(), a.numpy() + b.numpy())


def test_reduction_tutorial_cross_thread_row_sum():
    s, (A, B) = rfactor_rows(n=128, m=200)
    f = tvm.build(s, [A, B], target="cuda")
    x = np.random.rand(128, 200).astype("float32")
    b = tvm.nd.empty((128,), "float32", tvm.cuda(0))
    f(tvm.nd.array(x, tvm.cuda(0)), b)
    np.testing.assert_allclose(b.numpy(), x.sum(axis=1), rtol=1e-5)


def test_shared_memory_tiled_matmul():
    n = 256
    s, (A, B, C) = tiled_matmul(n=n, tile=16)
    f = tvm.build(s, [A, B, C], target="cuda")
    x = np.random.rand(n, n).astype("float32")
    y = np.random.rand(n, n).astype("float32")
    dev = tvm.cuda(0)
    c = tvm.nd.empty((n, n), "float32", dev)
    f(tvm.nd.array(x, dev), tvm.nd.array(y, dev), c)
    np.testing.assert_allclose(c.numpy(), x @ y, rtol=1e-4)


def test_checked_launches_and_limits(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA_LAUNCH_BLOCKING", "1")
    s, args = vadd_schedule(factor=128)
    f = tvm.build(s, args, target="cuda", name="checked")
    assert f.launch_blocking
    dev = tvm.cuda(0)
    x = np.arange(5000, dtype="float32")
    a, b = tvm.nd.array(x, dev), tvm.nd.array(x, dev)
    c = tvm.nd.empty((5000,), "float32", dev)
    f(a, b, c)
    np.testing.assert_array_equal(c.numpy(), 2 * x)
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    by, tx = s[B].split(B.op.axis[0], factor=1)
    s[B].bind(by, te.thread_axis("blockIdx.y"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    g = tvm.build(s, [A, B], target="cuda", name="tall")
    big = tvm.nd.empty((70000,), "float32", dev)
    with pytest.raises(TepadError, match="gridDim.y = 70000"):
        g(big, tvm.nd.empty((70000,), "float32", dev))
