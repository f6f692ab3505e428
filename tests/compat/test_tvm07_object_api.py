"""Small parts of TVM's object API TE programs of 0.7-0.18 lean on: ``same_as`` (identity),
``astext``, rounding ops that leave integers alone, ``tvm_static_handle``."""
import numpy as np

import tepad as tvm
from tepad import te, tir


def test_same_as_is_identity_not_equality():
    x, y = te.var("x"), te.var("x")
    assert x.same_as(x) and not x.same_as(y)
    A = te.placeholder((4,), name="A")
    assert A.same_as(A.op.output(0)) and A.op.same_as(A.op)
    B = te.compute((4,), lambda i: A[i] * 2, name="B")
    assert not B.same_as(A)
    iv = B.op.axis[0]
    assert iv.same_as(iv) and not iv.same_as(B.op.axis[0].var)


def test_rounding_an_integer_returns_it():
    i = te.var("i", "int32")
    for op in (tir.round, tir.trunc, tir.ceil, tir.floor, tir.nearbyint):
        assert op(i).same_as(i)
        assert op(tir.const(10, "int32")).value == 10
        f = op(tir.const(2.5, "float32"))
        assert f.dtype == "float32"
    A = te.placeholder((5,), "float32", name="A")
    B = te.compute((5,), lambda k: tir.floor(A[k]) + tir.ceil(k), name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    a = np.array([1.5, -0.5, 2.0, 3.7, -2.2], "float32")
    b = np.zeros(5, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, np.floor(a) + np.arange(5))


def test_astext_prints_the_function():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    mod = tvm.lower(te.create_schedule(B.op), [A, B])
    func = mod["main"]
    assert func.astext() == func.script()
    assert "B[" in func.astext()


def test_static_handle_is_a_null_slot_of_its_call_site():
    """``tvm_static_handle()`` (TVM's per-call-site cache handle) is the address of a
    module-internal pointer slot, never null; ``isnullptr`` tests handles."""
    out = tir.decl_buffer((2,), "int64", name="out")
    ib = tvm.tir.ir_builder.create()
    for k in range(2):
        h = tir.call_intrin("handle", "tir.tvm_static_handle")
        ib.emit(tir.BufferStore(out, tir.Cast("int64", tir.call_intrin("bool", "tir.isnullptr",
                                                                        h)), [k]))
    f = tvm.build(tir.PrimFunc([out], ib.get()))
    res = np.full(2, 7, "int64")
    f(res)
    np.testing.assert_array_equal(res, [0, 0])    # the slots' addresses are not null


def test_structural_hash_with_free_vars_mapped():
    i, j = te.var("i"), te.var("j")
    assert tvm.ir.structural_hash(i * 2 + 1, True) == tvm.ir.structural_hash(j * 2 + 1, True)
    assert tvm.ir.structural_hash(i * 2 + 1) != tvm.ir.structural_hash(j * 2 + 1)
    assert tvm.ir.structural_hash(i + j, True) != tvm.ir.structural_hash(i + i, True)


def test_for_type_code_and_with_attr_map():
    i = te.var("i")
    loop = tir.For(i, 0, 4, 2, tir.Evaluate(0))
    assert loop.for_type == tir.For.Vectorized
    assert tir.For(i, 0, 4, 0, tir.Evaluate(0)).for_type == tir.For.Serial
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda k: A[k] + 1, name="B")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mod = tvm.driver.build_module.form_irmodule(te.create_schedule(B.op), [A, B], "main",
                                                    None)
    f = mod["main"].with_attr({"target": "llvm", "tir.noalias": True})
    assert f.attrs["tir.noalias"] is True and f.attrs["target"] == "llvm"
    assert "target" not in f.with_attr("target", None).attrs
    assert tvm.ir.expr.Range(0, 4).extent.value == 4
