"""The GPU example schedules (examples/gpu: TVM's tutorials' and our own W1-W5) lowered with
the GPU passes, made into PTX, and assembled by ptxas; launched through a fake driver."""
import numpy as np
import pytest

import tepad as tvm
from tepad.backend.cuda import ptx_of
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.runtime.cuda_driver import use_driver

from .nvptx_helpers import FakeDriver, needs_ptxas, ptxas_ok
from gpu_helpers import gpu_example, rfactor_rows

# what each example's PTX must show: (barriers, shared memory)
SHAPES = {"elementwise": (False, False), "matmul": (True, True), "blur": (True, True),
          "rowsum": (False, False), "conv2d_hwcn": (True, True)}


def _lowered(name):
    s, args = gpu_example(name).schedule()
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
    ex = gpu_example(name)
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


@needs_ptxas
def test_cross_thread_reduction_ptx(tmp_path):
    s, args = rfactor_rows()
    ptx = ptx_of(lower_for_codegen(s, args, "rows", Options(target="cuda")), "cuda -arch=sm_90")
    assert "bar.sync" in ptx and ".shared" in ptx
    assert ".maxntid 16, 32, 1" in ptx
    ptxas_ok(ptx, tmp_path)
