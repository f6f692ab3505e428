"""examples/gpu/matmul_strips.py: the bank-conflict-aware matmul schedule computes what numpy
computes through the emulator (race check on), with and without tails (its shared stages
double-buffered); its PTX has the vector shared-memory reads and copies, no guard among the
multiply-adds, and ptxas fits it in
registers without spilling; its AutoTVM template's configurations all build and compute."""
import re
import subprocess

import numpy as np
import pytest

import tepad as tvm
from tepad import autotvm

from emulator_kernels import emulate_cuda
from gpu_helpers import gpu_example
from nvptx_helpers import PTXAS, needs_ptxas

EX = gpu_example("matmul_strips")


def _ptx(*args, **kw):
    s, tensors = EX.schedule(*args, **kw)
    return tvm.build(s, tensors, target="cuda -arch=sm_90").get_source("ptx")


@pytest.mark.usefixtures(emulate_cuda.__name__)
@pytest.mark.parametrize("n,m,k", [(128, 128, 128), (100, 70, 37), (64, 200, 9)])
def test_matches_numpy_with_and_without_tails(n, m, k):
    s, args = EX.schedule(n, m, k)
    f = tvm.build(s, args, target="cuda")
    a, b = EX.inputs(n, m, k)
    c = np.full((n, m), np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, EX.reference(a, b), rtol=1e-5, atol=1e-5)


FMAS = 8 * 32          # one k step: 8 k values x (4 rows x 8 columns), unrolled


def _fma_blocks(ptx):
    """The multiply-adds' line numbers and the PTX of each copy of the k step: double
    buffering peels the last k step off the loop, so there are two copies."""
    lines = ptx.splitlines()
    idx = [i for i, line in enumerate(lines) if "fma.rn.f32" in line]
    blocks = [lines[idx[k]:idx[k + FMAS - 1] + 1] for k in range(0, len(idx), FMAS)]
    return idx, blocks


@pytest.mark.parametrize("n,m,k", [(128, 128, 128), (100, 70, 37)])
def test_ptx_vector_copies_and_unguarded_fmas(n, m, k):
    ptx = _ptx(n, m, k)
    idx, blocks = _fma_blocks(ptx)
    assert len(idx) == 2 * FMAS                   # the loop's k step and the peeled last one
    # the loop's k step is straight-line code; in the peeled one LLVM may interleave the
    # guarded stores of C (the m and n tails) with the last multiply-adds, but no
    # multiply-add is predicated
    assert not [line for line in blocks[0] if "bra" in line or line.strip().startswith("@")]
    assert not [line for line in blocks[1] if "fma" in line and line.strip().startswith("@")]
    # operands from shared memory as 16-byte vectors: A's 4 rows, B's two strips
    assert ptx.count("ld.shared.v4.f32") + ptx.count("ld.shared.v4.b32") >= 3 * 8
    if m % 4 == 0:        # B copied global -> shared 16 bytes at a time (rows 16-byte aligned)
        assert re.search(r"ld\.global(\.nc)?\.v4", ptx) and re.search(r"st\.shared\.v4", ptx)
    assert ".maxntid 16, 16, 1" in ptx


@needs_ptxas
def test_ptxas_registers_and_no_spills(tmp_path):
    (tmp_path / "k.ptx").write_text(_ptx())
    r = subprocess.run([PTXAS, "-v", "-arch=sm_90", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    regs = int(re.search(r"Used (\d+) registers", r.stderr).group(1))
    assert regs <= 128                    # 256 threads a block: two blocks fit an SM's 64K
    assert "0 bytes spill stores" in r.stderr and "0 bytes spill loads" in r.stderr
    smem = int(re.search(r"(\d+) bytes smem", r.stderr).group(1))
    # AS rows padded to 68 floats, BS dense; both doubled (double_buffer)
    assert smem == 2 * (8 * 68 + 8 * 128) * 4


@pytest.mark.usefixtures(emulate_cuda.__name__)
def test_autotvm_template_configurations_compute():
    task = autotvm.task.create("gpu/matmul_strips", args=(64, 96, 40), target="cuda")
    assert len(task.config_space) == 18
    a, b = EX.inputs(64, 96, 40)
    for index in (0, 7, 17):
        s, args = task.instantiate(task.config_space.get(index))
        c = np.zeros((64, 96), "float32")
        tvm.build(s, args, target="cuda")(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
