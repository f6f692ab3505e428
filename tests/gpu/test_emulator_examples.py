"""The GPU schedules of examples/gpu (what benchmarks/bench_gpu.py times on a GPU), at their
small default sizes through the emulator, against each example's numpy reference."""
import numpy as np
import pytest

import tepad
from tepad.backend.emulated import EmulatedModule

from emulator_kernels import emulate_cuda
from gpu_helpers import gpu_example as _example

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)

@pytest.mark.parametrize("stem", ["elementwise", "blur", "matmul", "rowsum", "conv2d_hwcn"])
def test_gpu_example_matches_its_reference(stem):
    _check(stem)


def _check(stem):
    ex = _example(stem)
    s, args = ex.schedule()
    mod = tepad.build(s, args, "cuda")
    assert isinstance(mod, EmulatedModule)
    ins = ex.inputs()
    expect = ex.reference(*ins)
    out = np.full(expect.shape, np.nan, "float32")
    mod(*ins, out)
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(expect).max()))
