"""The small differences between TVM's API and tepad's that stopped whole programs: node
constructors given Python numbers, ``IntImm(dtype, value)``, ``build``'s positional order,
``lower`` of a hand-built PrimFunc and of a body with unbound scalars, and the odd corners
(``runtime.enabled``, ``Target.canon_target_and_host``, ``IRModule._move``, ``tvm._ffi``,
``tvm.script.tir`` constants)."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir
from tepad.script import tir as T


def test_node_constructors_convert_python_numbers_to_the_other_operands_dtype():
    i = te.var("i")
    f = te.var("f", "float32")
    big = te.var("big", "int64")
    assert tir.Add(i, 1).b.dtype == "int32"
    assert tir.Add(f, 1).b.dtype == "float32" and tir.Add(f, 1).b.value == 1.0
    assert tir.Mul(2, big).a.dtype == "int64"
    eq = tir.EQ(i, 5)
    assert eq.dtype == "bool" and eq.b.value == 5
    sel = tir.Select(eq, 1, 0)
    assert sel.dtype == "int32" and (sel.true_value.value, sel.false_value.value) == (1, 0)
    assert tir.Select(True, f, 0).false_value.dtype == "float32"
    assert tir.Cast("float32", 3).value.value == 3
    with pytest.raises(tvm.TepadError, match="different dtypes"):
        tir.Add(i, f)                        # two expressions keep TVM's strict check


def test_select_built_from_numbers_computes():
    A = te.placeholder((10,), "int32", name="A")
    B = te.compute((10,), lambda j: tir.Select(tir.EQ(A[j], 5), 1, 0), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = np.arange(10, dtype="int32")
    b = np.zeros(10, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, (a == 5).astype("int32"))


def test_intimm_and_floatimm_take_tvms_dtype_first_order():
    x = tir.IntImm("int64", 7)
    assert x.dtype == "int64" and x.value == 7
    assert tir.IntImm(7, "int8").dtype == "int8"           # tepad's order still works
    y = tir.FloatImm("float64", 0.25)
    assert y.dtype == "float64" and y.value == 0.25


def _vadd():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 3.0, name="B")
    return te.create_schedule(B.op), A, B


def _check(f):
    a = np.random.rand(16).astype("float32")
    b = np.zeros(16, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a * 3.0, rtol=1e-6)


def test_build_positional_order_is_tvms():
    s, A, B = _vadd()
    f = tvm.build(s, [A, B], "llvm", "llvm", name="triple")          # 0.18 order
    assert f.entry_name == "triple"
    _check(f)
    g = tvm.build(s, [A, B], "llvm", "llvm", "old_name")             # 0.6 order
    assert g.entry_name == "old_name"
    _check(g)
    h = tvm.build(s, [A, B], tvm.target.Target("llvm"), None, None, "by_position")
    assert h.entry_name == "by_position"
    with pytest.raises(tvm.TepadError, match="name given twice"):
        tvm.build(s, [A, B], "llvm", "llvm", "a", name="b")
    with pytest.raises(tvm.TepadError, match="target_host"):
        tvm.build(s, [A, B], "llvm", "cuda")


def test_build_with_binds():
    s, A, B = _vadd()
    Ab = tir.decl_buffer((16,), "float32", name="Ab")
    _check(tvm.build(s, [A, B], "llvm", binds={A: Ab}))


def test_lower_of_a_hand_built_primfunc_without_args():
    ib = tir.ir_builder.create()
    n = 8
    Ab = tir.decl_buffer((n,), "float32", name="A")
    Bb = tir.decl_buffer((n,), "float32", name="B")
    with ib.for_range(0, n, name="i") as i:
        ib.emit(tir.BufferStore(Bb, tir.BufferLoad(Ab, [i]) + 1.0, [i]))
    func = tir.PrimFunc([Ab.data, Bb.data], ib.get(), {Ab.data: Ab, Bb.data: Bb})
    mod = tvm.lower(func)
    assert isinstance(mod, tvm.IRModule) and "main" in mod
    f = tvm.build(mod)
    a = np.random.rand(n).astype("float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)


def test_lower_leaves_unbound_scalars_free_and_build_refuses_them():
    # TVM 0.18: tvm.lower prints the function; tvm.build stops at MakePackedAPI
    n = te.var("n")
    scale = te.var("scale", "float32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * scale, name="B")
    s = te.create_schedule(B.op)
    text = str(tvm.lower(s, [A, B], simple_mode=True))
    assert "scale" in text
    with pytest.raises(tvm.TepadError, match="variables scale are used in the body"):
        tvm.build(s, [A, B])
    f = tvm.build(s, [A, B, scale])                     # passed: a scalar argument
    a = np.random.rand(5).astype("float32")
    b = np.zeros(5, "float32")
    f(a, b, 2.5)
    np.testing.assert_allclose(b, a * 2.5, rtol=1e-6)


def test_runtime_enabled(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    assert tvm.runtime.enabled("llvm") and tvm.runtime.enabled("llvm -mcpu=skylake")
    assert tvm.runtime.enabled(tvm.target.Target("llvm"))
    assert tvm.runtime.enabled("cuda") == tvm.cuda(0).exist
    assert not tvm.runtime.enabled("opencl") and not tvm.runtime.enabled("vulkan")
    monkeypatch.setenv("TEPAD_CUDA", "emulate")     # opencl runs only through the emulator
    assert tvm.runtime.enabled("opencl")


def test_canon_target_and_host():
    tgt, host = tvm.target.Target.canon_target_and_host("cuda", "llvm")
    assert tgt.kind.name == "cuda" and host.kind.name == "llvm" and tgt.host == host
    tgt, host = tvm.target.Target.canon_target_and_host("llvm")
    assert tgt.kind.name == "llvm" and host is None
    assert tvm.target.Target.canon_target_and_host(None, "llvm") == (None, "llvm")


def test_irmodule_move_and_ffi():
    s, A, B = _vadd()
    mod = tvm.lower(s, [A, B])
    assert mod._move() is mod
    assert tvm._ffi.base.TVMError is tvm.TVMError
    assert issubclass(tvm.TepadError, tvm._ffi.base.TVMError)
    from tepad._ffi.base import TVMError
    assert TVMError is tvm.error.TVMError

    @tvm._ffi.register_func("compat_test.twice", override=True)
    def twice(x):
        return 2 * x
    assert tvm._ffi.get_global_func("compat_test.twice")(4) == 8
    assert tvm._ffi.registry.get_global_func is tvm.get_global_func


def test_script_tir_typed_constants():
    c = T.int32(5)
    assert isinstance(c, tir.IntImm) and c.dtype == "int32" and c.value == 5
    assert T.int64(1).dtype == "int64"
    assert isinstance(T.float32(0.5), tir.FloatImm) and T.float16(1).dtype == "float16"
    assert T.bool(True).dtype == "bool"
    i = te.var("i")
    assert T.int64(i).dtype == "int64"                     # an expression is cast
    assert isinstance(T.int32(), tir.Var)
    A = te.placeholder((4,), "int32", name="A")
    B = te.compute((4,), lambda j: A[j] + T.int32(7), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = np.arange(4, dtype="int32")
    b = np.zeros(4, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, a + 7)
    with pytest.raises(tvm.TepadError, match="TVMScript parsing"):
        T.prim_func


def test_top_level_register_object_and_version():
    @tvm.register_object("compat.MyNode")
    class MyNode:
        pass
    assert MyNode.__name__ == "MyNode"
    assert isinstance(tvm.__version__, str) and tvm.__version__.count(".") == 2


def test_ir_transform_is_tvm_transform():
    assert tvm.ir.transform.PassContext is tvm.transform.PassContext
    with tvm.ir.transform.PassContext(config={"tir.disable_vectorize": True}):
        s, A, B = _vadd()
        _check(tvm.build(s, [A, B]))


def test_data_type():
    d = tvm.DataType("float32x4")
    assert (d.type_code, d.bits, d.lanes, d.itemsize) == (tvm.DataTypeCode.FLOAT, 32, 4, 16)
    assert d == "float32x4" and str(d) == "float32x4" and d != "float32"
    b = tvm.runtime.DataType("bool")
    assert (b.type_code, b.bits) == (tvm.DataTypeCode.UINT, 1)
    assert tvm.DataType("int8").type_code == tvm.DataTypeCode.INT
    with pytest.raises(tvm.TepadError, match="unknown dtype"):
        tvm.DataType("float33")
