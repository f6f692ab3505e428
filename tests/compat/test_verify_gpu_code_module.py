"""``tir.analysis.verify_gpu_code`` of what ``lower`` returns (an IRModule: FlexTensor checks
its CUDA schedules that way before building) as well as of a PrimFunc: over / within the
thread limit, and the schedule that passes builds and matches numpy through the emulator."""
import numpy as np

import tepad
from tepad import te


def _bound(tx, ty):
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    i, j = B.op.axis
    io, ii = s[B].split(i, factor=tx)
    jo, ji = s[B].split(j, factor=ty)
    s[B].reorder(io, jo, ii, ji)
    s[B].bind(io, te.thread_axis("blockIdx.x"))
    s[B].bind(jo, te.thread_axis("blockIdx.y"))
    s[B].bind(ii, te.thread_axis("threadIdx.x"))
    s[B].bind(ji, te.thread_axis("threadIdx.y"))
    return s, A, B


def test_verify_gpu_code_of_a_module_and_a_function(monkeypatch):
    limits = {"max_threads_per_block": 256, "max_shared_memory_per_block": 48 * 1024}
    s, A, B = _bound(32, 32)                       # 1024 threads
    mod = tepad.lower(s, [A, B])
    assert tepad.tir.analysis.verify_gpu_code(mod, limits) is False
    assert tepad.tir.analysis.verify_gpu_code(mod["main"], limits) is False
    s, A, B = _bound(16, 16)                       # 256 threads
    mod = tepad.lower(s, [A, B])
    assert tepad.tir.analysis.verify_gpu_code(mod, limits) is True
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    f = tepad.build(s, [A, B], "cuda")
    dev = tepad.cuda(0)
    a = np.random.default_rng(0).random((64, 64), "float32")
    b = tepad.nd.array(np.zeros((64, 64), "float32"), dev)
    f(tepad.nd.array(a, dev), b)
    np.testing.assert_allclose(b.numpy(), a * 2.0, rtol=1e-6)
