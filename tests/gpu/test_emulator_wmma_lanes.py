"""Tensor-core fragments in the emulator: a fragment operation that all lanes of a warp make
alike runs on the warp's first lane (``threadIdx.x % 32 == 0``), not on all 32; where the
lanes' arguments differ, or a warp is not 32 values of threadIdx.x, every thread computes it.
The results match numpy either way (race check on: threads also run reversed)."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.backend.emulated import emulated_function

from emulator_kernels import emulate_cuda, func, launch
from tensorcore_schedules import tensorize_wmma, wmma_matmul

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def _lane_guards(f):
    """The conditions of the ``if`` statements whose condition tests threadIdx.x against 0."""
    out = []

    def g(n):
        if isinstance(n, tir.IfThenElse) and isinstance(n.condition, tir.EQ) and \
                "threadIdx_x" in str(n.condition.a) and isinstance(n.condition.b, tir.IntImm) \
                and n.condition.b.value == 0:
            out.append(n.condition)
    tir.post_order_visit(f.body, g)
    return out


@pytest.mark.parametrize("n, warps", [(32, (1, 1)), (64, (2, 2))])
def test_tensorized_matmul_fragments_run_on_one_lane_per_warp(n, warps):
    s, args, _ = wmma_matmul(n, warps, tensorize_with=tensorize_wmma)
    _, cpu = emulated_function(s, args)
    assert len(_lane_guards(cpu)) >= 4         # fill, the two loads, mma, store
    f = tepad.build(s, args, "cuda")
    rng = np.random.default_rng(n)
    a = (rng.random((n, n)) - 0.5).astype("float16")
    b = (rng.random((n, n)) - 0.5).astype("float16")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a.astype("float64") @ b.astype("float64"), rtol=1e-5,
                               atol=1e-5)


def _fill_and_store(threads_x, value_of_tx=False):
    """C (16 x 16 float32) = a fragment filled with 2.5 (or with threadIdx.x's value when
    ``value_of_tx``), stored by every lane of a block of ``threads_x`` threads."""
    C = tir.decl_buffer((16, 16), "float32", "C")
    ib = tir.ir_builder.create()
    launch(ib, "blockIdx.x", 1)
    tx = launch(ib, "threadIdx.x", threads_x)
    frag = ib.allocate("float32", 256, "acc", scope="wmma.accumulator")
    value = tx.astype("float32") if value_of_tx else tir.const(2.5, "float32")
    ib.emit(tir.call_intrin("handle", "tir.tvm_fill_fragment", frag.data, 16, 16, 16, 0, value))
    ib.emit(tir.call_intrin("handle", "tir.tvm_store_matrix_sync", frag.data, 16, 16, 16, 0,
                            C.access_ptr("w"), 16, "row_major"))
    return func("fill_store", [C], ib)


@pytest.mark.parametrize("threads_x, guards", [(32, 2), (64, 2), (16, 0)])
def test_lane_guard_only_where_a_warp_is_32_values_of_threadIdx_x(threads_x, guards):
    f = _fill_and_store(threads_x)
    _, cpu = emulated_function(f)
    found = _lane_guards(cpu)
    assert len(found) == guards
    if threads_x > 32:
        assert all(isinstance(g.a, tir.FloorMod) for g in found)
    c = np.zeros((16, 16), "float32")
    tepad.build(f, target="cuda")(c)
    np.testing.assert_array_equal(c, np.full((16, 16), 2.5, "float32"))


def test_lane_dependent_arguments_keep_every_lane():
    _, cpu = emulated_function(_fill_and_store(32, value_of_tx=True))
    assert not _lane_guards(cpu)
