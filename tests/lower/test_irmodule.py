"""tepad.lower returns an IRModule, as tvm.lower does; builds and passes take it."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError


def scaled(n=14):
    """B = 2 * A with A stored padded as (4, 4): the lowered function assumes A's padding."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(lambda i: [i // 4, i % 4], pad_value=0.0)
    return s, [A, B]


def test_lower_returns_a_module_keyed_by_name():
    s, args = scaled()
    mod = tepad.lower(s, args, name="scale")
    assert isinstance(mod, tepad.IRModule) and isinstance(mod, tepad.ir.IRModule)
    assert list(mod.functions) == ["scale"] and "scale" in mod and len(mod) == 1
    assert isinstance(mod["scale"], tir.PrimFunc)
    assert mod["scale"].script() == tepad.lower.lower_primfunc(s, args, name="scale").script()
    with pytest.raises(TepadError, match="has no function 'main'; it has 'scale'"):
        mod["main"]


def test_passes_and_pass_objects_take_modules_and_return_modules():
    s, args = scaled()
    mod = tepad.lower(s, args)
    out = tepad.lower.passes.remove_branching_through_overcompute(mod)
    assert isinstance(out, tepad.IRModule)
    assert tepad.lower.passes.inject_rolling_buffer(mod) is mod       # nothing to do
    via_object = tir.transform.RemoveAssume()(mod)
    assert isinstance(via_object, tepad.IRModule)
    assert "T.assume" not in via_object["main"].script()
    assert "T.assume" in mod["main"].script()


def test_build_takes_a_module():
    s, args = scaled()
    mod = tepad.build(tepad.lower(s, args))
    a = np.zeros(16, "float32")
    a[:14] = np.arange(14)
    b = np.zeros(14, "float32")
    mod(a.reshape(4, 4), b)
    np.testing.assert_array_equal(b, a[:14] * 2.0)


def test_a_module_with_two_functions_builds_both_and_refuses_one_symbol_twice():
    s, args = scaled()
    f = tepad.lower(s, args)["main"]
    two = tepad.IRModule({"a": f.with_attr("global_symbol", "a"),
                          "b": f.with_attr("global_symbol", "b")})
    mod = tepad.build(two)
    assert sorted(mod.modules) == ["a", "b"] and mod["b"].name == "b"
    with pytest.raises(TepadError, match="two functions are named 'main'"):
        tepad.build(tepad.IRModule({"a": f, "b": f}))
    with pytest.raises(TepadError, match="maps names to PrimFuncs"):
        tepad.IRModule({"a": 1})
