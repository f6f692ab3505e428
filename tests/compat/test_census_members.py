"""Methods and properties of TVM's classes that the API census found missing: Target,
IRModule, runtime Module, Buffer, NDArray, Analyzer, ConfigSpace, Tuner, PassContext,
Tensor and PrimFunc."""
import numpy as np
import pytest

import tepad as tvm
from tepad import autotvm, te, tir


def _func():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    return tvm.lower(s, [A, B])["main"], s, A, B


def test_target_accessors():
    t = tvm.target.Target("llvm -mcpu=x86-64 -libs=cblas,mkl -device=arm_cpu")
    assert t.libs == ["cblas", "mkl"] and t.device_name == "arm_cpu" and t.mattr == []
    assert t.options == ["-mcpu=x86-64", "-libs=cblas,mkl", "-device=arm_cpu"]
    assert t.export()["kind"] == "llvm" and t.export()["mcpu"] == "x86-64"
    assert t.get_target_device_type() == 1
    cuda = tvm.target.Target("cuda -arch=sm_80")
    assert cuda.get_target_device_type() == 2 and cuda.get_kind_attr("max_num_threads") == 1024
    assert "llvm" in tvm.target.Target.list_kinds() and "cuda" in tvm.target.Target.list_kinds()
    assert tvm.target.Target.target_or_current("llvm").kind.name == "llvm"
    with tvm.target.Target("cuda"):
        assert tvm.target.Target.target_or_current(None).kind.name == "cuda"
    assert t.max_function_args > 0


def test_ir_module_methods(capsys):
    func, *_ = _func()
    mod = tvm.IRModule({"main": func})
    gv = mod.get_global_var("main")
    assert gv.name_hint == "main" and mod[gv] is func
    assert mod.functions_items() == [(gv, func)]
    m2 = mod.with_attr("executor", "graph")
    assert m2.get_attr("executor") == "graph" and mod.get_attr("executor") is None
    assert m2.without_attr("executor").get_attr("executor") is None
    c = mod.clone()
    c.update_func(tvm.ir.GlobalVar("other"), func)
    assert "other" in c and "other" not in mod
    mod.update(c)
    assert "other" in mod
    assert "def main" in mod.astext() or "main" in mod.astext()
    mod.show()
    func.show()
    assert "main" in capsys.readouterr().out
    with pytest.raises(tvm.TepadError, match="no function"):
        mod.get_global_var("nope")


def test_runtime_module_members():
    func, s, A, B = _func()
    m = tvm.build(s, [A, B])
    assert m.implements_function(m.entry_name) and not m.implements_function("nope")
    a = np.arange(8, dtype="float32")
    b = tvm.nd.array(np.zeros(8, "float32"))
    m.entry_func(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)
    assert m.format == "so"
    with pytest.raises(tvm.TepadError, match="cannot import itself"):
        m.import_module(m)
    with pytest.raises(TypeError, match="runtime module"):
        m.import_module("k.ptx")


def test_buffer_offsets_and_masks():
    B = tir.decl_buffer((4, 5), "float32", name="B")
    i, j = tir.Var("i"), tir.Var("j")
    off = B.offset_of([i, j])
    assert len(off) == 1 and str(off[0]).replace(" ", "") == "i*5+j"
    assert (B.READ, B.WRITE) == (1, 2)
    with pytest.raises(tvm.TepadError, match="2 indices"):
        B.offset_of([i])


def test_ndarray_context_warns():
    x = tvm.nd.array(np.zeros(2, "float32"))
    with pytest.warns(DeprecationWarning):
        assert x.context == x.device


def test_analyzer_names():
    a = tir.Var("a")
    ana = tvm.arith.Analyzer()
    assert str(ana.canonical_simplify(a + a)) == str(ana.simplify(a + a))
    assert str(ana.rewrite_simplify(a - a)) == "0"
    m = ana.modular_set(a * 6 + 4)
    assert (m.coeff, m.base) == (6, 4)


@autotvm.template("census/members")
def _members(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    cfg.define_split("tile", B.op.axis[0], num_outputs=2)
    cfg.define_knob("u", [0, 1, 2])
    cfg["tile"].apply(s, B, B.op.axis[0])
    return s, [A, B]


def test_config_space_index_helpers():
    task = autotvm.task.create("census/members", args=(16,), target="llvm")
    sp = task.config_space
    assert sp.dims == sp.knob_sizes() and sp.range_length == len(sp)
    assert sp.subrange_length(2, 5) == 3 and sp.is_index_valid(len(sp) - 1)
    assert not sp.is_index_valid(len(sp))
    for p in range(len(sp)):
        assert sp.knob2point(sp.point2knob(p)) == p
    assert sp.get_next_index(0, 2) == 2 and sp.get_next_index(len(sp) - 1) is None
    r = sp.get_rand_index(to_exclude=range(len(sp) - 1))
    assert r == len(sp) - 1
    w = sp.random_walk(0)
    diff = [x != y for x, y in zip(sp.point2knob(0), sp.point2knob(w))]
    assert sum(diff) == 1
    ints = sp.sample_ints(4)
    assert len(set(ints)) == 4 and all(sp.is_index_valid(i) for i in ints)
    sp.clear_cache()
    with pytest.raises(tvm.TepadError, match="not filtered"):
        sp.multi_filter(lambda c: True)
    tuner = autotvm.tuner.RandomTuner(task)
    tuner.set_error_threshold(3)
    assert tuner.error_ct_threshold == 3


def test_pass_context_configs_and_instruments():
    configs = tvm.transform.PassContext.list_configs()
    assert "tir.UnrollLoop" in configs and "tir.disable_vectorize" in configs
    seen = []

    @tvm.instrument.pass_instrument
    class Mark:
        def __init__(self, tag):
            self.tag = tag

        def enter_pass_ctx(self):
            seen.append(("enter", self.tag))

        def exit_pass_ctx(self):
            seen.append(("exit", self.tag))

    ctx = tvm.transform.PassContext(instruments=[Mark("a")])
    with ctx:
        ctx.override_instruments([Mark("b")])
    assert seen == [("enter", "a"), ("exit", "a"), ("enter", "b"), ("exit", "b")]


def test_tensor_axis():
    A = te.placeholder((3, 4), name="A")
    B = te.compute((3, 4), lambda i, j: A[i, j] * 2, name="B")
    assert list(B.axis) == list(B.op.axis)


def test_env_threads_refused_with_what_to_write_instead():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: X[0, i], name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    scan = te.scan(init, update, state, inputs=[X])
    s = te.create_schedule(scan.op)
    with pytest.raises(tvm.TepadError, match="grid-wide barrier.*bind"):
        s[scan].env_threads([te.thread_axis("threadIdx.x")])
