"""A kernel may be named after a C or math library function it calls (TVM's tests name each
elementwise kernel after its op: ``exp``, ``tan``, ...): the kernel's own function gets
another symbol, so the library call does not call the kernel."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, topi


@pytest.mark.parametrize("name, op, ref", [("exp", topi.exp, np.exp), ("tan", topi.tan, np.tan),
                                           ("sin", topi.sin, np.sin),
                                           ("free", topi.sqrt, np.sqrt)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernel_named_like_a_library_function(name, op, ref, dtype):
    A = te.placeholder((300,), dtype=dtype, name="A")
    B = op(A)
    s = te.create_schedule(B.op)
    f = tvm.build(s, [A, B], "llvm", name=name)
    assert f.entry_name == name
    a = np.linspace(0.1, 1.0, 300).astype(dtype)
    b = np.zeros(300, dtype)
    f(a, b)
    np.testing.assert_allclose(b, ref(a), rtol=1e-5)
    assert f.time_evaluator(f.entry_name, tvm.cpu(), number=2)(a, b).mean > 0


def test_renamed_kernel_survives_export_and_load(tmp_path):
    A = te.placeholder((64,), dtype="float64", name="A")
    B = topi.exp(A)
    s = te.create_schedule(B.op)
    f = tvm.build(s, [A, B], "llvm", name="exp")
    path = str(tmp_path / "exp.so")
    f.export_library(path)
    g = tvm.runtime.load_module(path)
    assert g.entry_name == "exp"
    a = np.linspace(0, 1, 64)
    b = np.zeros(64)
    g(a, b)
    np.testing.assert_allclose(b, np.exp(a))


def test_an_ordinary_name_is_the_symbol():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], "llvm", name="add_one_kernel")
    assert "@add_one_kernel(" in f.get_source("ll")


@pytest.mark.parametrize("bad", ["", "ä", "a\nb"])
def test_a_name_that_cannot_be_a_symbol_is_refused(bad):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    with pytest.raises(tvm.TepadError, match="printable ASCII"):
        tvm.build(te.create_schedule(B.op), [A, B], "llvm", name=bad)


def test_names_in_tepads_own_namespace_are_moved_aside():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], "llvm", name="tepad_error_value")
    b = np.zeros(8, "float32")
    f(np.ones(8, "float32"), b)
    assert (b == 2).all() and f.kernel.entry_symbol != "tepad_error_value"
