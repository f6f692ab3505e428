"""The IR verifier: well-formed functions pass, and each kind of breakage is named."""
import pytest

import tepad
from tepad import te, tir
from tepad.errors import InternalError
from tepad.tir.verify import undefined_vars, verify, verify_well_formed


def buf(name, shape=(8,), dtype="float32"):
    return tir.decl_buffer(shape, dtype, name=name)


def func(params, body):
    return tir.PrimFunc([b.data for b in params], body, {b.data: b for b in params},
                        {"global_symbol": "main"})


def copy_loop(A, B, i=None):
    i = i if i is not None else tir.Var("i", "int32")
    return tir.For(i, 0, 8, "serial", tir.BufferStore(B, A[i], [i]))


def test_lowered_functions_are_well_formed():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[1], factor=4)
    s[B].compute_at(s[C], xo)
    s[C].vectorize(xi)
    assert verify(tepad.lower(s, [A, C])["main"]) == []
    assert verify(tepad.lower.lower_for_codegen(s, [A, C])) == []


def test_symbolic_sizes_of_argument_shapes_are_defined():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    assert verify(tepad.lower(te.create_schedule(B.op), [A, B])["main"]) == []


def test_undefined_variable():
    A, B = buf("A"), buf("B")
    stray = tir.Var("k", "int32")
    f = func([A, B], tir.BufferStore(B, A[stray], [stray]))
    assert any("k is used where no parameter" in p for p in verify(f))
    assert undefined_vars(f) == [stray]


def test_variable_bound_twice_in_sibling_loops():
    A, B = buf("A"), buf("B")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.SeqStmt([copy_loop(A, B, i), copy_loop(A, B, i)]))
    assert any("i is bound twice" in p for p in verify(f))


def test_variable_rebound_inside_its_own_scope():
    A, B = buf("A"), buf("B")
    i = tir.Var("i", "int32")
    inner = tir.For(i, 0, 8, "serial", tir.BufferStore(B, A[i], [i]))
    f = func([A, B], tir.For(i, 0, 2, "serial", inner))
    assert any("already defined" in p for p in verify(f))


def test_buffer_used_outside_its_allocation():
    A, B = buf("A"), buf("B")
    T = buf("T")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.For(i, 0, 8, "serial", tir.BufferStore(B, T[i], [i])))
    assert any("load from T, which is not declared" in p for p in verify(f))
    alloc = tir.Allocate(T.data, "float32", [8], tir.const(True, "bool"),
                         tir.For(i, 0, 8, "serial", tir.BufferStore(B, T[i], [i])))
    assert verify(func([A, B], alloc)) == []


def test_index_count_must_match_the_buffer():
    A, B = buf("A", (4, 2)), buf("B")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.For(i, 0, 8, "serial", tir.BufferStore(B, tir.BufferLoad(A, [i]), [i])))
    assert any("1 indices for a buffer of 2 dimensions" in p for p in verify(f))


def test_dtype_mismatches():
    A, B = buf("A"), buf("B", dtype="int32")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.For(i, 0, 8, "serial", tir.BufferStore(B, A[i], [i])))
    assert any("store to B: value has dtype float32" in p for p in verify(f))
    wide = tir.Var("w", "int64")
    g = func([A, buf("C")], tir.For(wide, 0, 8, "serial", tir.Evaluate(0)))
    assert any("loop w: min has dtype int32, the loop variable int64" in p for p in verify(g))
    cond = tir.IfThenElse(tir.Cast("int32", tir.const(1, "int32")), tir.Evaluate(0))
    assert any("if condition has dtype int32" in p for p in verify(func([A], cond)))


def test_operands_must_agree():
    A, B = buf("A"), buf("B")
    i = tir.Var("i", "int32")
    bad = tir.Add(A[i], tir.FloatImm(1.0, "float32"))
    # The constructors refuse mixed operands; a pass that edits nodes in place could not be
    # stopped by them, which is what the verifier is for.
    object.__setattr__(bad, "b", tir.IntImm(1, "int32"))
    f = func([A, B], tir.For(i, 0, 8, "serial", tir.BufferStore(B, bad, [i])))
    assert any("operands of Add have dtypes float32 and int32" in p for p in verify(f))


def test_verify_well_formed_names_the_pass():
    A, B = buf("A"), buf("B")
    f = func([A, B], tir.BufferStore(B, A[tir.Var("k", "int32")], [0]))
    with pytest.raises(InternalError, match="after pass my_pass:\n  k is used"):
        verify_well_formed(f, after="my_pass")
    good = func([A, B], copy_loop(A, B))
    assert verify_well_formed(good) is good


def test_the_pipeline_names_a_pass_that_breaks_the_ir():
    from tepad.lower.pipeline import BUILD, Pass, PassLog, run_pipeline

    def drop_loops(f):
        """A broken pass: keeps the loop body, loses the loop (its variable is left free)."""
        return f.with_body(tir.ir_transform(f.body, lambda n: n.body
                                            if isinstance(n, tir.For) else None))
    A, B = buf("A"), buf("B")
    pipeline = (Pass(drop_loops, BUILD, "broken on purpose"),)
    with pytest.raises(InternalError, match="after pass drop_loops"):
        run_pipeline(func([A, B], copy_loop(A, B)), (BUILD,), log=PassLog(verify=True),
                     pipeline=pipeline)
