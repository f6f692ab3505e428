"""What the GPU passes produce assembles: each lowered form (shared tiles with barriers,
vthread copies, shared-memory reduction trees) goes through the NVPTX code generator and
ptxas (from the nvidia-cuda-nvcc wheel, the test extra)."""
import subprocess

import pytest

from tepad.backend import cuda as nvptx
from tepad.codegen import nvptx_target

from gpu_helpers import gpu_lower, opt_conv_cuda, syncs, tiled_matmul
from test_gpu_allreduce import block_reduction_then_threads, rfactor_rows, split_rows, vthread_rows
from test_gpu_vthread import _vthread_matmul

PTXAS = nvptx_target.ptxas_path()

CASES = {
    "tiled_matmul": tiled_matmul,
    "vthread_matmul": _vthread_matmul,
    "opt_conv_cuda": opt_conv_cuda,
    "rfactor_threadidx": rfactor_rows,
    "split_24_threads": lambda: split_rows(16, 96, 24),
    "vthread_rows": vthread_rows,
    "reduction_run_by_other_threads": block_reduction_then_threads,
}


@pytest.mark.skipif(PTXAS is None, reason="ptxas not found: pip install nvidia-cuda-nvcc-cu12")
@pytest.mark.parametrize("name", sorted(CASES))
def test_lowered_gpu_function_assembles(name, tmp_path):
    f = gpu_lower(*CASES[name]())
    ptx = nvptx.ptx_of(f)
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("bar.sync" in ptx or "barrier" in ptx) == bool(syncs(f))
