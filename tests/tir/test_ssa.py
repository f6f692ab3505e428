"""convert_ssa: one binding per Var, same results."""
import numpy as np

import tepad
from tepad import tir
from tepad.tir.ssa import convert_ssa
from tepad.tir.verify import verify


def buf(name, shape=(8,), dtype="float32"):
    return tir.decl_buffer(shape, dtype, name=name)


def func(params, body):
    return tir.PrimFunc([b.data for b in params], body, {b.data: b for b in params},
                        {"global_symbol": "main"})


def loops_of(f):
    out = []
    tir.post_order_visit(f.body, lambda n: out.append(n) if isinstance(n, tir.For) else None)
    return out


def test_sibling_loops_get_their_own_variable_and_compute_the_same():
    A, B = buf("A"), buf("B")
    i = tir.Var("i", "int32")
    first = tir.For(i, 0, 8, "serial", tir.BufferStore(B, A[i] * 2.0, [i]))
    second = tir.For(i, 0, 8, "serial", tir.BufferStore(B, B[i] + 1.0, [i]))
    f = func([A, B], tir.SeqStmt([first, second]))
    g = convert_ssa(f)
    assert verify(g) == []
    v1, v2 = [l.loop_var for l in loops_of(g)]
    assert v1 is not v2 and v1.name == v2.name == "i"
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_array_equal(b, a * 2.0 + 1.0)


def test_already_ssa_is_returned_as_is():
    A, B = buf("A"), buf("B")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.For(i, 0, 8, "serial", tir.BufferStore(B, A[i], [i])))
    assert convert_ssa(f) is f


def test_a_repeated_allocation_gets_a_new_buffer_variable():
    A, B = buf("A"), buf("B")
    T = buf("T")
    i = tir.Var("i", "int32")

    def block(scale):
        body = tir.SeqStmt([tir.BufferStore(T, A[i] * scale, [i]),
                            tir.BufferStore(B, B[i] + T[i], [i])])
        return tir.Allocate(T.data, "float32", [8], tir.const(True, "bool"),
                            tir.For(i, 0, 8, "serial", body))
    f = func([A, B], tir.SeqStmt([block(1.0), block(10.0)]))
    assert verify(f)                           # T and i are bound twice
    g = convert_ssa(f)
    assert verify(g) == []
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_array_equal(b, a * 11.0)
