"""The TVM names the API census found missing, each checked for what it does: 0.6 modules'
names (``tvm.schedule.InferBound``, ``tvm.ir_pass.LoopPartition``, ``tvm.make.bitwise_and``,
...), ``tvm.runtime.Object`` / ``PackedFunc``, ``tvm.transform.module_pass`` / ``PrintIR``,
``tvm.ir.GlobalVar``, ``tvm.tir.layout`` / ``bijective_layout``, ``tvm.arith``'s detectors,
``tvm.nd.from_dlpack`` and the AutoTVM helpers."""
import warnings

import numpy as np
import pytest

import tepad as tvm
from tepad import autotvm, te, tir


def _deprecated(fn):
    with pytest.warns(DeprecationWarning):
        return fn()


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def test_old_modules_answer_current_objects():
    assert _quiet(lambda: tvm.schedule.InferBound) is te.schedule.InferBound
    assert _quiet(lambda: tvm.tensor.TensorSlice) is te.TensorSlice
    assert _quiet(lambda: tvm.container.Range) is tvm.ir.Range
    assert _quiet(lambda: tvm.make.bitwise_and) is tir.bitwise_and
    assert _quiet(lambda: tvm.make.left_shift) is tir.shift_left
    assert _quiet(lambda: tvm.expr.EqualOp) is tir.EQ
    assert _quiet(lambda: tvm.stmt.stmt_seq) is tir.stmt_seq
    assert _quiet(lambda: tvm.hybrid.script) is te.hybrid.script
    assert _quiet(lambda: tvm.tag.tag_scope) is te.tag_scope
    assert _quiet(lambda: tvm.tensor_intrin.decl_tensor_intrin) is te.decl_tensor_intrin
    assert _quiet(lambda: tvm.int32) == "int32" and _quiet(lambda: tvm.float32) == "float32"
    assert _quiet(lambda: tvm.TVMType) is tvm.DataType
    assert _quiet(lambda: tvm.register_node)(int) is int
    assert tvm.register_extension(dict) is dict
    assert _quiet(lambda: tvm.codegen.llvm_lookup_intrinsic_id)("llvm.sqrt") > 0
    assert _quiet(lambda: tvm.arith.DetectLinearEquation) is tvm.arith.detect_linear_equation


def test_old_module_names_warn():
    _deprecated(lambda: tvm.schedule.ScheduleOps)
    _deprecated(lambda: tvm.container.StrMap)
    _deprecated(lambda: tvm.runtime.context)


def test_schedule_infer_bound_through_the_06_module():
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    bounds = _quiet(lambda: tvm.schedule.InferBound)(s.normalize())
    assert int(bounds[xi].extent) == 8 and int(bounds[xo].extent) == 4


def _split_body(n=16, factor=5):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor)
    return tvm.lower(s, [A, B])["main"], A, B


def test_ir_pass_on_statements_runs_todays_pass():
    func, A, B = _split_body()
    ir_pass = _quiet(lambda: tvm.ir_pass)
    parted = _quiet(lambda: ir_pass.LoopPartition(func.body, True))
    text = str(parted)
    assert "likely" not in text.split("B[15]")[0]       # the main loop has no guard left
    unrolled = _quiet(lambda: ir_pass.UnrollLoop(func.body, 16, 8, 0, True))
    assert "for i_inner" not in str(unrolled)
    # the rewritten body still computes B = 2 A
    f = tvm.build(func.with_body(parted), target="llvm")
    a = np.arange(16, dtype="float32")
    b = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), 2 * a)
    with pytest.raises(tvm.TepadError, match="expected a Stmt"):
        _quiet(lambda: ir_pass.RemoveNoOp(3))


def test_runtime_object_and_packed_func():
    from tepad import runtime
    assert isinstance(te.var("x"), runtime.Object) and isinstance(tir.const(1), tvm.Object)
    assert isinstance(te.placeholder((2,)), runtime.Object)
    assert isinstance(print, runtime.PackedFunc) and not isinstance(int, runtime.PackedFunc)
    assert runtime.PackedFunc(lambda x: x + 1)(2) == 3
    assert runtime.num_threads() >= 1
    assert int(runtime.convert_to_object(3).value) == 3
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(tvm.nd.from_dlpack(x).numpy(), x)


def test_module_pass_print_ir_and_global_var(capsys):
    func, _, _ = _split_body()
    mod = tvm.IRModule({"main": func})
    calls = []

    @tvm.transform.module_pass(opt_level=0, name="Count")
    def count(m, ctx):
        calls.append(len(m.functions))
        return m

    assert isinstance(count, tvm.transform.Pass)
    assert isinstance(tir.transform.Apply(lambda f: f), tvm.ir.transform.Pass)
    seq = tvm.transform.Sequential([count, tvm.transform.PrintIR("here")])
    assert seq(mod) is mod and calls == [1]
    assert "PrintIR(here)" in capsys.readouterr().out
    assert mod[tvm.ir.GlobalVar("main")] is func
    assert isinstance(func, tvm.ir.BaseFunc) and int(tvm.ir.CallingConv.C_PACKED_FUNC) == 1
    names = []

    @tvm.instrument.pass_instrument
    class Names:
        def run_after_pass(self, m, info):
            names.append(info.name)

    with tvm.transform.PassContext(instruments=[Names()]):
        count(mod)
    assert names == ["Count"]
    with tvm.transform.PassContext(instruments=[
            tvm.ir.instrument.PassPrintingInstrument([], ["Count"])]):
        count(mod)
    assert "After Running Pass" in capsys.readouterr().out
    with pytest.raises(tvm.TepadError, match="must return an IRModule"):
        tvm.transform.module_pass(lambda m: 3)(mod)


def test_layouts():
    lay = tir.layout("NCHW16c")
    assert len(lay) == 5 and lay.index_of("c") == 4 and lay.factor_of("C") == 16
    assert "H" in lay and lay[4] == "c" and lay.index_of("x") == -1
    bl = tir.bijective_layout("NCHW", "NCHW16c")
    assert bl.forward_shape((1, 32, 7, 7)) == [1, 2, 7, 7, 16]
    assert bl.backward_shape((1, 2, 7, 7, 16)) == [1, 32, 7, 7]
    assert [int(v) for v in bl.forward_index([0, 18, 1, 2])] == [0, 1, 1, 2, 2]
    assert [int(v) for v in bl.backward_index([0, 1, 1, 2, 2])] == [0, 18, 1, 2]
    # the forward map agrees with numpy's reshape/transpose of the same layout change
    x = np.arange(1 * 32 * 2 * 3).reshape(1, 32, 2, 3)
    y = x.reshape(1, 2, 16, 2, 3).transpose(0, 1, 3, 4, 2)
    for idx in [(0, 5, 1, 2), (0, 31, 0, 1), (0, 16, 1, 0)]:
        assert y[tuple(int(v) for v in bl.forward_index(list(idx)))] == x[idx]
    for bad in ("NCHW16", "NCHWc", "NC4H"):
        with pytest.raises(tvm.TepadError, match="layout"):
            tir.layout(bad)


def test_arith_detectors():
    a, b, n = tir.Var("a"), tir.Var("b"), tir.Var("n")
    coeffs = tvm.arith.detect_linear_equation(a * 4 + b * n + 3 + a, [a, b])
    assert int(coeffs[0]) == 5 and coeffs[1] is n and int(coeffs[2]) == 3
    assert tvm.arith.detect_linear_equation(a * a, [a]) == []
    m = tvm.arith.modular_set(a * 4 + b * 6 + 7)
    assert (m.coeff, m.base) == (2, 1)
    s = tvm.arith.intset_interval(2, 5)
    assert isinstance(s, tvm.arith.IntervalSet) and int(s.max_value) == 5


def test_stmt_functor_pre_order_visit():
    i = tir.Var("i")
    loop = tir.For(i, 0, 4, tir.ForKind.SERIAL, tir.Evaluate(i + 1))
    seen = []
    tir.stmt_functor.pre_order_visit(
        loop, lambda n: seen.append(type(n).__name__) or not isinstance(n, tir.Evaluate))
    assert seen[0] == "For" and seen[-1] == "Evaluate" and "Add" not in seen


def test_create_prim_func_from_outputs():
    A = te.placeholder((4,), name="A")
    B = te.placeholder((4,), name="B")
    C = te.compute((4,), lambda i: A[i] * B[i], name="C")
    f = te.create_prim_func_from_outputs(C)
    assert [p.name for p in f.params] == ["A", "B", "C"]


def test_driver_lower_and_te_schedule_axis_separator():
    func, _, _ = _split_body()
    assert tvm.driver.lower is tvm.lower.lower
    assert te.schedule.AXIS_SEPARATOR is te.AXIS_SEPARATOR


def test_autotvm_helpers(tmp_path):
    assert autotvm.GLOBAL_SCOPE is autotvm.env.GLOBAL_SCOPE
    assert autotvm.task.ApplyHistoryBest is autotvm.ApplyHistoryBest
    assert autotvm.create is autotvm.task.create
    assert autotvm.tuner.callback is autotvm.callback
    assert autotvm.utils.get_const_tuple((2, tir.const(3))) == (2, 3)
    assert autotvm.util is autotvm.utils
    scope = autotvm.env.AutotvmGlobalScope()
    assert autotvm.env.reset_global_scope(scope) is autotvm.env.GLOBAL_SCOPE
    assert _quiet(lambda: autotvm.task.register) is autotvm.template


@autotvm.template("census/scale")
def _scale(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    cfg.define_knob("unroll", [0, 1])
    xo, xi = cfg["tile"].apply(s, B, B.op.axis[0])
    if cfg["unroll"].val:
        s[B].unroll(xi)
    return s, [A, B]


def test_droplet_tuner_and_log_helpers(tmp_path):
    task = autotvm.task.create("census/scale", args=(64,), target="llvm")
    tuner = autotvm.tuner.DropletTuner(task)
    log = tmp_path / "scale.log"
    tuner.tune(n_trial=6, measure_option=autotvm.measure_option(
        builder=autotvm.LocalBuilder(), runner=autotvm.LocalRunner(number=2)),
        callbacks=[autotvm.callback.log_to_file(str(log))])
    assert tuner.best_config is not None and len(tuner.visited) == 6
    with open(log) as f:
        records = list(autotvm.record.load_from_buffer(f))
    assert len(records) == 6
    key = autotvm.record.measure_str_key(records[0][0])
    assert "census/scale" in key
    paths = autotvm.record.split_workload(str(log))
    assert len(paths) == 1 and len(list(autotvm.record.load_from_file(paths[0]))) == 6
    autotvm.task.clear_fallback_cache("llvm", ("census/scale", (64,)))


def test_ir_type_annotations_make_node_and_hash():
    ptr = tvm.ir.PointerType(tvm.ir.PrimType("float32"), "shared")
    assert te.var("A", ptr).dtype == "handle" and ptr.storage_scope == "shared"
    assert tir.Var("x", tvm.ir.PrimType("int64")).dtype == "int64"
    info = tvm.ir.make_node("MemoryInfo", unit_bits=16, max_num_bits=1024, head_address=None)
    assert info.unit_bits == 16 and info.type_key == "MemoryInfo"
    assert tvm.ir.make_node("DictAttrs", global_symbol="main") == {"global_symbol": "main"}
    assert isinstance(info, tvm.ir.Node) and isinstance(tir.const(1), tvm.ir.Node)
    i = tir.Var("i")
    assert tvm.ir.structural_hash(i + 1) == tvm.ir.structural_hash(i + 1)
    with pytest.raises(tvm.TepadError, match="type key"):
        tvm.ir.make_node(3)
