"""Statement nodes: ``Stmt.replace`` (copy with changes) keeps every field it is not given."""
import pytest

from tepad.errors import TepadError
from tepad.tir import (Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse,
                       IterVar, IterVarType, LetStmt, Range, SeqStmt, Var, decl_buffer,
                       structural_equal)


def _loop():
    i = Var("i")
    buf = decl_buffer((16,), "float32", "A")
    body = BufferStore(buf, 1.0, [i])
    tx = IterVar(Range(0, 16), Var("tx"), IterVarType.ThreadIndex, "threadIdx.x")
    return For(i, 0, 16, ForKind.PARALLEL, body, thread_binding=tx,
               annotations={"pragma_unroll": 4})


def test_replace_keeps_every_other_field():
    loop = _loop()
    body = Evaluate(0)
    new = loop.replace(body=body)
    assert new is not loop and new.body is body
    assert new.loop_var is loop.loop_var and new.min is loop.min and new.extent is loop.extent
    assert new.kind is ForKind.PARALLEL
    assert new.thread_binding is loop.thread_binding
    assert new.annotations == {"pragma_unroll": 4}
    assert loop.body is not body            # the original is untouched


def test_replace_several_fields_and_converts_through_the_constructor():
    loop = _loop()
    new = loop.replace(kind="serial", extent=8)
    assert new.kind is ForKind.SERIAL
    assert new.extent.value == 8 and new.extent.dtype == "int32"
    assert new.thread_binding is loop.thread_binding and new.annotations == loop.annotations


def test_replace_returns_self_when_nothing_changes():
    loop = _loop()
    assert loop.replace() is loop
    assert loop.replace(body=loop.body, kind=loop.kind) is loop
    cond = Var("c", "bool")
    branch = IfThenElse(cond, loop, None)
    assert branch.replace(then_case=loop, else_case=None) is branch


def test_replace_on_other_statement_classes():
    x, n = Var("x"), Var("n")
    let = LetStmt(x, n + 1, Evaluate(x))
    let2 = let.replace(value=n + 2)
    assert let2.var is x and let2.body is let.body and structural_equal(let2.value, n + 2)
    data = Var("buf", "handle")
    alloc = Allocate(data, "float32", [16], True, Evaluate(0), annotations={"scope": "local"})
    alloc2 = alloc.replace(body=Evaluate(1))
    assert alloc2.annotations == {"scope": "local"} and alloc2.extents == alloc.extents
    seq = SeqStmt([Evaluate(1), Evaluate(2)])
    assert seq.replace(seq=seq.seq) is seq
    attr = AttrStmt(x, "pragma", 1, Evaluate(0))
    assert attr.replace(attr_key="other").node is x


def test_replace_rejects_unknown_fields():
    with pytest.raises(TepadError, match="no field 'bdy'"):
        _loop().replace(bdy=Evaluate(0))


def test_flattening_a_flat_buffer_returns_it():
    from tepad import tir
    buf = tir.decl_buffer([16])
    assert buf.get_flattened_buffer().same_as(buf)
    nd = tir.decl_buffer([4, 16, 32], axis_separators=[2])
    flat = nd.get_flattened_buffer()
    assert not flat.same_as(nd)
    assert [int(d) for d in flat.shape] == [64, 32]
    assert flat.get_flattened_buffer().same_as(flat)
