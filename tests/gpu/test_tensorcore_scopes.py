"""Tensor-core fragment scopes ``wmma.matrix_a`` / ``wmma.matrix_b`` / ``wmma.accumulator``:
InferBound sizes them per warp/thread as ``local`` (one 16 x 16 fragment each), not as global
(the whole matrix), and the emulator computes the untensorized schedule's numbers."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.tir.storage_scope import FRAGMENT_SCOPES, split_storage_scope, storage_rank

from emulator_kernels import emulate_cuda
from tensorcore_schedules import wmma_matmul

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _allocation_sizes(func):
    out = {}

    def f(n):
        if isinstance(n, tir.Allocate):
            size = 1
            for e in n.extents:
                size *= int(e.value)
            out[n.annotations.get("scope")] = out.get(n.annotations.get("scope"), []) + [size]
    tir.stmt_functor.post_order_visit(func.body, f)
    return out


def test_fragment_scopes_rank_as_local():
    for scope in FRAGMENT_SCOPES:
        assert storage_rank(scope) == "local"
        assert split_storage_scope(scope)[0] == "local"
    with pytest.raises(tepad.TepadError, match="'wmma.matrix_a', 'wmma.matrix_b'"):
        split_storage_scope("wmma.matrix_c", "cache_read(A)")


@pytest.mark.parametrize("n, warps", [(64, (2, 2)), (128, (2, 4))])
def test_fragments_are_one_16x16_tile_per_warp(n, warps):
    s, args, _ = wmma_matmul(n, warps)
    sizes = _allocation_sizes(lower_for_codegen(s, args, "mm", Options(target="cuda")))
    for scope in FRAGMENT_SCOPES:
        assert sizes[scope] == [256], (scope, sizes)
    # the shared tiles: one 16 x (16 * warps) strip of A and of B per k step
    assert sorted(sizes["shared"]) == sorted([16 * 16 * warps[0], 16 * 16 * warps[1]])


@pytest.mark.parametrize("n, warps", [(16, (1, 1)), (64, (2, 2)), (64, (1, 2))])
def test_untensorized_fragments_emulated(n, warps):
    s, args, _ = wmma_matmul(n, warps)
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(n)
    a = rng.random((n, n)).astype("float16")
    b = rng.random((n, n)).astype("float16")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a.astype("float32") @ b.astype("float32"), rtol=1e-5)
