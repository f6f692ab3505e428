"""Names TE programs of TVM 0.6 reach through module paths: ``import tvm.hybrid``,
``from tvm.ir_pass import ...``, ``tvm.target.generic_func``, AutoTVM's
``measure.measure`` / ``record.ApplyHistoryBest`` / ``task.task.compute_flop``."""
import importlib

import numpy as np
import pytest

import tepad as tvm
from tepad import te


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_old_modules_import_as_modules():
    hybrid = importlib.import_module("tepad.hybrid")
    assert hybrid.script is tvm.te.hybrid.script
    ns = {}
    exec("from tepad.ir_pass import Simplify\nfrom tepad.api import placeholder", ns)
    assert ns["placeholder"] is te.placeholder
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tepad.no_such_old_module")


def test_generic_func_dispatches_on_the_current_targets_keys():
    @tvm.target.generic_func
    def schedule_op(outs):
        return "default"

    @schedule_op.register(["cuda", "gpu"])
    def _cuda(outs):
        return "cuda"

    schedule_op.register("cpu", lambda outs: "cpu")
    assert schedule_op(None) == "default"
    with tvm.target.Target("cuda"):
        assert schedule_op(None) == "cuda"
    with tvm.target.Target("llvm"):
        assert schedule_op(None) == "cpu"
    with pytest.raises(tvm.TepadError, match="already registered"):
        schedule_op.register("cpu", lambda outs: "again")
    schedule_op.register("cpu", lambda outs: "again", override=True)
    with tvm.target.Target("llvm"):
        assert schedule_op(None) == "again"


def test_generic_func_without_a_default_says_so():
    gf = tvm.target.get_native_generic_func("tepad_test_only_cuda")
    gf.register(lambda: "cuda", "cuda")
    with tvm.target.Target("cuda"):
        assert gf() == "cuda"
    with tvm.target.Target("llvm"), pytest.raises(tvm.TepadError, match="no default"):
        gf()


def test_ir_builder_older_spellings_and_vector_loads():
    """TVM 0.6's ``for_range(for_type=...)`` and ``BufferVar.asnode()``; ``vload`` /
    ``vstore`` of a vector dtype touch consecutive elements."""
    n = 16

    def extern(ins, outs):
        ib = tvm.tir.ir_builder.create()
        with pytest.warns(DeprecationWarning):
            out = ib.buffer_ptr(outs[0]).asnode()
        with ib.for_range(0, n // 4, name="i", for_type="serial") as i:
            ib.emit(out.vstore(i * 4, ins[0].vload(i * 4, "float32x4") * 2.0))
        return ib.get()

    A = te.placeholder((n,), name="A")
    B = te.extern((n,), [A], extern, name="B", dtype="float32")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = np.arange(n, dtype="float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, 2 * a)
    with pytest.raises(tvm.TepadError, match="vload of dtype int32x4"):
        tvm.tir.decl_buffer((n,), "float32", name="X").vload(0, "int32x4")


def test_autotvm_module_paths():
    from tepad.autotvm.measure.measure import MeasureErrorNo, MeasureResult, Runner
    from tepad.autotvm.measure.measure_methods import LocalBuilder, LocalRunner
    from tepad.autotvm.record import ApplyHistoryBest
    assert Runner is tvm.autotvm.Runner and LocalRunner is tvm.autotvm.LocalRunner
    assert MeasureResult is tvm.autotvm.MeasureResult and MeasureErrorNo.NO_ERROR == 0
    assert LocalBuilder is tvm.autotvm.LocalBuilder
    assert ApplyHistoryBest is tvm.autotvm.ApplyHistoryBest


def test_compute_flop_counts_like_tvm():
    from tepad.autotvm.task.task import compute_flop
    n, m, k = 8, 6, 5
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((n, m), lambda i, j: te.max(C[i, j], 0.0) + 1.0, name="D")
    # matmul: one mul and one add per step; D: max and add per element
    assert compute_flop(te.create_schedule(D.op)) == 2 * n * m * k + 2 * n * m
    E = te.compute((n, k), lambda i, j: A[i, j], name="E")
    with pytest.raises(RuntimeError, match="cfg.add_flop"):
        compute_flop(te.create_schedule(E.op))
    x = te.var("x")
    F = te.compute((x,), lambda i: A[0, 0] + 1.0, name="F")
    with pytest.raises(RuntimeError, match="not constant"):
        compute_flop(te.create_schedule(F.op))
    assert np.isclose(compute_flop(te.create_schedule(C.op)), 2 * n * m * k)
