"""The GPU example schedules (examples/gpu: TVM's tutorials' and our own W1-W5) lowered with
the GPU passes, made into PTX, and assembled by ptxas; launched through a fake driver."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tepad as tvm
from tepad import te
from tepad.codegen import ptx_of
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.runtime.cuda_driver import use_driver

from .nvptx_helpers import FakeDriver, needs_ptxas, ptxas_ok

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gpu"
# what each example's PTX must show: (barriers, shared memory)
SHAPES = {"elementwise": (False, False), "matmul": (True, True), "blur": (True, True),
          "rowsum": (False, False), "conv2d_hwcn": (True, True)}


def _example(name):
    spec = importlib.util.spec_from_file_location(f"gpu_example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lowered(name):
    s, args = _example(name).schedule()
    return lower_for_codegen(s, args, name, Options(target="cuda")), args


@needs_ptxas
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_example_ptx_assembles(name, tmp_path):
    f, _ = _lowered(name)
    ptx = ptx_of(f, "cuda -arch=sm_90")
    barriers, shared = SHAPES[name]
    assert ("bar.sync" in ptx) == barriers
    assert (".shared" in ptx) == shared
    ptxas_ok(ptx, tmp_path)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_example_launches_through_the_driver(name, monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    _lowered(name)
    ex = _example(name)
    s, args = ex.schedule()
    with use_driver(FakeDriver()) as fake:
        f = tvm.build(s, args, target="cuda")
        dev = tvm.cuda(0)
        arrays = [tvm.nd.array(x, dev) for x in ex.inputs()]
        out = args[-1]
        shape = tuple(int(d) for d in out.shape)
        arrays.append(tvm.nd.empty(shape, out.dtype, dev))
        f(*arrays)
        assert fake.launches
        for _, grid, block, _, kargs in fake.launches:
            assert min(grid) >= 1 and 1 <= np.prod(block) <= 1024
            assert all(isinstance(v, int) or isinstance(v, float) for v in kargs)


def _rfactor_rows(n=64, m=64, factor=16, rows_per_block=32):
    """TVM's reduction.py schedule: rfactor, the reduction bound to threadIdx.x."""
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=factor)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=rows_per_block)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    s[B].set_store_predicate(tx.var.equal(0))
    return s, [A, B]


@needs_ptxas
def test_cross_thread_reduction_ptx(tmp_path):
    s, args = _rfactor_rows()
    ptx = ptx_of(lower_for_codegen(s, args, "rows", Options(target="cuda")), "cuda -arch=sm_90")
    assert "bar.sync" in ptx and ".shared" in ptx
    assert ".maxntid 16, 32, 1" in ptx
    ptxas_ok(ptx, tmp_path)
