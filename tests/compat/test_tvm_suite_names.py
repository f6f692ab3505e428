"""Names TVM's own TE test files use at import time: ``driver.build_module.get_binds``,
``tir.vscale``, ``testing.CompareBeforeAfter``, ``ir.module.IRModule``."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te
from tepad.driver.build_module import get_binds
from tepad.ir.module import IRModule


def _double():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    return n, A, B


def test_get_binds_builds_with_the_buffers_it_gives():
    n, A, B = _double()
    mine = tvm.tir.decl_buffer(A.shape, A.dtype, name="Abuf")
    binds, arg_list = get_binds([A, B, n], binds={A: mine})
    assert binds[A] is mine and arg_list[0] is mine
    assert isinstance(arg_list[1], tvm.tir.Buffer) and arg_list[1].name == "B"
    assert arg_list[2] is n
    f = tvm.build(te.create_schedule(B.op), [A, B], binds=binds)
    a = np.arange(7, dtype="float32")
    b = tvm.nd.empty((7,), "float32")
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1)
    with pytest.raises(tvm.TepadError, match="argument 0"):
        get_binds(["A"])


def test_vscale_is_held_and_refused_at_codegen():
    v = tvm.tir.vscale()
    assert v.dtype == "int32" and v.op.name == "tir.vscale"
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4 * v)
    with pytest.raises(tvm.TepadError, match="vscale"):
        tvm.build(s, [A, B])


def _primfunc(scale):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * scale, name="B")
    return tvm.lower(te.create_schedule(B.op), [A, B])["main"]


class TestCompareIdentity(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(self):
        return _primfunc(2.0)

    expected = before


def test_compare_before_after_reports_a_difference():
    class Different(tvm.testing.CompareBeforeAfter):
        transform = tvm.tir.transform.Simplify()
        before = _primfunc(2.0)
        expected = _primfunc(3.0)

    with pytest.raises(Exception):
        Different().test_compare()


def test_compare_before_after_refuses_tvmscript_functions():
    class Script(tvm.testing.CompareBeforeAfter):
        transform = tvm.tir.transform.Simplify()

        def before(A, B):   # what a TVMScript function is to tepad: plain Python
            pass

        expected = before

    with pytest.raises(tvm.TepadError, match="TVMScript"):
        Script().test_compare()


def test_ir_module_path():
    assert IRModule is tvm.IRModule


def test_structural_equal_of_modules():
    a, b, c = _primfunc(2.0), _primfunc(2.0), _primfunc(3.0)
    assert tvm.ir.structural_equal(IRModule({"main": a}), IRModule({"main": b}), True)
    assert not tvm.ir.structural_equal(IRModule({"main": a}), IRModule({"main": c}), True)
    assert not tvm.ir.structural_equal(IRModule({"main": a}), IRModule({"f": b}), True)
    assert not tvm.ir.structural_equal(IRModule({"main": a}), a, True)


def test_tvm_018_device_names_and_codes():
    # the device names TVM's test loops try; none but cpu exists here
    assert tvm.device("sdaccel").device_type == 4
    assert tvm.device("aocl_sw_emu").device_type == 32
    assert tvm.device("hexagon").device_type == 16
    assert tvm.device("test").device_type == 1
    assert not tvm.device("sdaccel", 0).exist
    assert not tvm.testing.device_enabled("sdaccel")
    with pytest.raises(tvm.TepadError, match="unknown device"):
        tvm.device("no_such_device")


def test_registered_pass_with_optional_parameters_runs_on_a_module():
    # HoistIfThenElse's function has optional parameters beyond the PrimFunc: the pass object
    # must still call it with the function alone
    ib = tvm.tir.ir_builder.create()
    n = te.var("n")
    data = ib.pointer("float32", name="data")
    with ib.for_range(0, n, "i") as i:
        with ib.if_scope(n > 2):
            data[i] = 1.0
    mod = tvm.IRModule.from_expr(tvm.tir.PrimFunc([data, n], ib.get()))
    body = tvm.tir.transform.HoistIfThenElse()(mod)["main"].body
    assert isinstance(body, tvm.tir.IfThenElse) and isinstance(body.then_case, tvm.tir.For)
    body = tvm.tir.transform.UnrollLoop()(mod)["main"].body
    assert isinstance(body, tvm.tir.For)


def test_tensor_with_scalar_is_elementwise_two_tensors_broadcast():
    from tepad import topi
    n = te.var("n")
    A = te.placeholder((), name="A")
    B = te.placeholder((4, 3), name="B")
    for e in (2 + B, B * 2, n + B, B - n):
        assert e.op.tag == topi.tag.ELEMWISE
    for e in (A + B, B + A, B * B):
        assert e.op.tag == topi.tag.BROADCAST
    C = (2 + B) * B
    f = tvm.build(te.create_schedule(C.op), [B, C])
    b = np.random.default_rng(0).uniform(size=(4, 3)).astype("float32")
    c = tvm.nd.empty((4, 3), "float32")
    f(tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), (2 + b) * b, rtol=1e-6)


def test_tensor_astype_casts_elementwise():
    from tepad import topi
    A = te.placeholder((5,), name="A")
    B = te.placeholder((5,), name="B")
    C = topi.greater(A, B).astype("int8")
    D = (A * 3.7).astype("int32")
    assert C.dtype == "int8" and D.dtype == "int32"
    s = te.create_schedule([C.op, D.op])
    f = tvm.build(s, [A, B, C, D])
    a = np.array([1.5, -2, 3, 4, 0.2], "float32")
    b = np.array([4, -3, 1, 5, 0.2], "float32")
    c, d = tvm.nd.empty((5,), "int8"), tvm.nd.empty((5,), "int32")
    f(tvm.nd.array(a), tvm.nd.array(b), c, d)
    np.testing.assert_array_equal(c.numpy(), (a > b).astype("int8"))
    np.testing.assert_array_equal(d.numpy(), (a * np.float32(3.7)).astype("int32"))


def test_transform_apply_runs_a_function_on_each_primfunc():
    mod = IRModule({"main": _primfunc(2.0), "other": _primfunc(3.0)})
    out = tvm.tir.transform.Apply(lambda f: f.with_attr("target", "llvm"))(mod)
    assert all(out[k].attrs["target"] == "llvm" for k in ("main", "other"))
    assert "target" not in mod["main"].attrs
    with pytest.raises(tvm.TepadError, match="Apply"):
        tvm.tir.transform.Apply(3)


MEMO_CALLS = []


def test_memoize_keys_on_captured_values_too():
    from tepad.contrib.pickle_memoize import memoize

    def make(n, dtype):
        @memoize("tepad.tests.memoize_capture")
        def data(scale):
            MEMO_CALLS.append((n, dtype, scale))
            return (np.arange(n) * scale).astype(dtype)
        return data(2)

    assert make(3, "float32").dtype == np.float32
    assert make(3, "int16").dtype == np.int16       # not the float32 entry
    np.testing.assert_array_equal(make(3, "int16"), [0, 2, 4])
    assert MEMO_CALLS == [(3, "float32", 2), (3, "int16", 2)]

    with pytest.raises(tvm.TepadError, match="hashable"):
        memoize("tepad.tests.memoize_capture")(lambda x: x)([1])


def test_driver_lower_is_tvms_lower_path():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    mod = tvm.driver.lower(s, [A, B], name="main")
    assert str(mod["main"]) == str(tvm.lower(s, [A, B], name="main")["main"])
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    tvm.build(mod)(a, b)
    np.testing.assert_allclose(b, a * 2.0)
