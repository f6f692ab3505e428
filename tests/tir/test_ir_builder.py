"""tir.ir_builder: the statements each scope builds, and its errors."""
import numpy as np
import pytest

import tepad
from tepad import te, tir


def test_scopes_nest_what_follows_them():
    ib = tir.ir_builder.create()
    n = te.var("n")
    A = ib.allocate("float32", (4, 8), name="A")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(i % 2 == 0):
            A[1, i] = 1.0
        with ib.else_scope():
            A[1, i] = 2.0
    ib.scope_attr(A.data, "pragma_note", "x")
    ib.assume(n > 0)
    stmt = ib.get()
    assert isinstance(stmt, tir.Allocate) and [int(e) for e in stmt.extents] == [4, 8]
    loop, attr = stmt.body.seq
    assert isinstance(loop, tir.For) and loop.loop_var.name == "i"
    ite = loop.body
    assert isinstance(ite, tir.IfThenElse) and ite.else_case is not None
    store = ite.then_case
    assert isinstance(store, tir.BufferStore)
    assert tir.structural_equal(store.indices[0], i + 8)   # (1, i) in a (4, 8) shape, flat
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "pragma_note"
    assert tir.is_call(attr.body.value, "tir.assume")


def test_loop_names_and_kinds():
    ib = tir.ir_builder.create()
    with ib.for_range(0, 4) as i:
        with ib.for_range(2, 6, kind="unroll") as j:
            ib.emit(tir.call_extern("int32", "noop", i, j))
    loop = ib.get()
    assert (loop.loop_var.name, loop.body.loop_var.name) == ("i", "j")
    assert loop.body.kind == tir.ForKind.UNROLLED
    assert int(loop.body.min) == 2 and int(loop.body.extent) == 4
    with pytest.raises(tepad.TepadError, match="unknown kind"):
        ib.for_range(0, 4, kind="sideways")


def test_errors_name_the_mistake():
    ib = tir.ir_builder.create()
    with pytest.raises(tepad.TepadError, match="else_scope can only follow an if_scope"):
        ib.else_scope()
    A = ib.allocate("int32", 4, name="A")
    with pytest.raises(tepad.TepadError, match="value dtype float32 does not match"):
        A[0] = tir.const(1.0, "float32")
    with pytest.raises(tepad.TepadError, match="2 indices for a shape of 1"):
        A[0, 1]
    scope = ib.new_scope()
    scope.__enter__()
    with pytest.raises(tepad.TepadError, match="open scope"):
        ib.get()


def test_let_and_vector_content_type_through_a_pointer():
    ib = tir.ir_builder.create()
    P = ib.pointer("float32x4", name="P")
    k = ib.let("k", tir.const(1, "int32"))
    P[k] = P[0] + P[0]                      # lanes 4..7 = 2 * lanes 0..3
    f = tepad.build(tir.PrimFunc([P], ib.get()))
    a = np.arange(8, dtype="float32")
    f(a)
    np.testing.assert_allclose(a, [0, 1, 2, 3, 0, 2, 4, 6])


def test_shuffle_prints_and_compares_structurally():
    x, y = tir.Var("x"), tir.Var("y")
    s1 = tir.Shuffle([x, y], [1, 0])
    s2 = tir.Shuffle([x, y], [1, 0])
    assert tir.structural_equal(s1, s2)
    assert not tir.structural_equal(s1, tir.Shuffle([x, y], [0, 1]))
    assert "T.Shuffle([x, y], [1, 0])" in tir.PrimFunc(
        [x, y], tir.Evaluate(tir.call_extern("int32", "f", s1))).script()


def test_loop_variable_follows_an_int64_bound():
    ib = tir.ir_builder.create()
    with ib.for_range(0, tir.const(6, "int64"), name="i") as i:
        assert i.dtype == "int64"
    with ib.for_range(0, 6, name="j") as j:
        assert j.dtype == "int32"
    with ib.for_range(0, tir.const(6, "int64"), name="k", dtype="int32") as k:
        assert k.dtype == "int32"


def test_buffer_ptr_of_a_vector_buffer_reads_whole_vectors():
    ib = tir.ir_builder.create()
    Ab = tir.decl_buffer((4,), "float32x2", name="A")
    Bb = tir.decl_buffer((4,), "float32x2", name="B")
    A, B = ib.buffer_ptr(Ab), ib.buffer_ptr(Bb)
    with ib.for_range(0, 4, name="i") as i:
        B[i] = A[i] * 2.0 + 1.0
    assert A[0].dtype == "float32x2"
    f = tir.PrimFunc([Ab, Bb], ib.get())
    a = np.arange(8, dtype="float32").reshape(4, 2)      # a float32x2 buffer of 4 vectors
    b = np.zeros((4, 2), "float32")
    tepad.build(f)(a, b)
    np.testing.assert_allclose(b, a * 2.0 + 1.0)
