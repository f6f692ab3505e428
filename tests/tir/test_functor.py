"""Visitors, mutators, substitution, and Buffer index flattening."""
import pytest

import tepad
from tepad import tir
from tepad.tir import (Add, BufferStore, For, IntImm, Mutator, PrimFunc, SeqStmt, Var, Visitor,
                       collect_vars, const, decl_buffer, ir_transform, post_order_visit,
                       structural_equal, substitute, uses_var)


def _loop():
    A = decl_buffer((16,), "float32", "A")
    B = decl_buffer((16,), "float32", "B")
    i = Var("i")
    return A, B, i, For(i, 0, 16, "serial", BufferStore(B, A[i] + A[i + 1], [i]))


# --- Mutator -----------------------------------------------------------------------------------

def test_mutator_unchanged_returns_same_object():
    x, y = Var("x"), Var("y")
    e = (x + 1) * (y - 2)
    assert Mutator().visit(e) is e
    _, _, _, loop = _loop()
    assert Mutator().visit(loop) is loop
    s = SeqStmt([loop, loop])
    assert Mutator().visit(s) is s


def test_mutator_copy_on_write_shares_untouched_subtrees():
    x, y = Var("x"), Var("y")
    left, right = x + 1, y * 3
    e = left - right

    class RenameY(Mutator):
        def visit_Var(self, v):
            return x if v is y else v

    out = RenameY().visit(e)
    assert out is not e
    assert out.a is left                      # untouched subtree is shared
    assert out.b is not right and out.b.a is x
    assert e.b.a is y                         # the input is not modified


def test_mutator_rewrites_statements():
    A, B, i, loop = _loop()

    class DoubleStores(Mutator):
        def visit_BufferStore(self, s):
            return BufferStore(s.buffer, self.visit(s.value) * 2.0, s.indices)

    out = DoubleStores().visit(loop)
    assert out is not loop and out.loop_var is i and out.body.buffer is B
    assert tir.to_script(out) == "for i in range(16):\n    B[i] = (A[i] + A[i + 1]) * T.float32(2.0)"


def test_visitor_dispatch_and_generic_walk():
    _, _, i, loop = _loop()
    seen = []

    class Loads(Visitor):
        def visit_BufferLoad(self, n):
            seen.append(n.indices[0])
            self.generic_visit(n)

    Loads().visit(loop)
    assert len(seen) == 2 and seen[0] is i and structural_equal(seen[1], i + 1)


# --- helpers -------------------------------------------------------------------------------------

def test_substitute():
    x, y = Var("x"), Var("y")
    e = (x + 1) * (y - 2)
    assert substitute(e, {}) is e
    assert substitute(e, {Var("x"): 5}) is e     # other var with the same name: untouched
    out = substitute(e, {x: 5, y: x})
    assert tir.to_script(out) == "(5 + 1) * (x - 2)"
    assert substitute(e, {x: y}).a.a is y
    _, _, i, loop = _loop()
    j = Var("j")
    out = substitute(loop.body, {i: j * 2})
    assert tir.to_script(out) == "B[j * 2] = A[j * 2] + A[j * 2 + 1]"


def test_post_order_visit_children_first():
    x, y = Var("x"), Var("y")
    e = (x + 1) * (y - 2)
    order = []
    post_order_visit(e, lambda n: order.append(repr(n)))
    assert order == ["x", "1", "x + 1", "y", "2", "y - 2", "(x + 1) * (y - 2)"]
    _, _, _, loop = _loop()
    kinds = []
    post_order_visit(loop, lambda n: kinds.append(type(n).__name__))
    assert kinds[-1] == "For" and kinds[-2] == "BufferStore" and "BufferLoad" in kinds


def test_ir_transform_pre_and_post():
    x, y = Var("x"), Var("y")
    e = (x + 1) * (y - 2)
    out = ir_transform(e, postorder=lambda n: const(0) if n is x else None)
    assert tir.to_script(out) == "(0 + 1) * (y - 2)"
    # pre replaces a whole subtree without visiting it
    out = ir_transform(e, postorder=lambda n: None, preorder=lambda n: y if isinstance(n, Add) else None)
    assert tir.to_script(out) == "y * (y - 2)"
    assert ir_transform(e, postorder=lambda n: None) is e


def test_collect_and_uses_vars():
    x, y = Var("x"), Var("y")
    e = (x + 1) * (y - x)
    assert collect_vars(e) == {x, y}
    assert uses_var(e, [x]) and not uses_var(e, [Var("x")])
    assert collect_vars(IntImm(3)) == set()


# --- Buffer.flatten_indices -----------------------------------------------------------------------

def test_flatten_indices_row_major():
    n = Var("n")
    i, j, k = Var("i"), Var("j"), Var("k")
    A = decl_buffer((n, 4, 5), "float32", "A")
    flat = A.flatten_indices([i, j, k])
    assert len(flat) == 1
    assert tir.to_script(flat[0]) == "(i * 4 + j) * 5 + k"
    assert tir.to_script(A.flattened_shape()[0]) == "n * 4 * 5"
    assert A.flatten_indices([1, 2, 3])[0].value == 33


def test_flatten_indices_with_axis_separators():
    i, j = Var("i"), Var("j")
    C = decl_buffer((2, 3, 4, 5), "int8", "C", axis_separators=[2])
    assert C.axis_groups() == [[0, 1], [2, 3]]
    flat = C.flatten_indices([i, j, 1, 2])
    assert [tir.to_script(f) for f in flat] == ["i * 3 + j", "7"]
    assert [int(s) for s in C.flattened_shape()] == [6, 20]
    Cf = C.get_flattened_buffer()
    assert [int(s) for s in Cf.shape] == [6, 20] and Cf.axis_separators == (1,)
    assert Cf.data is C.data
    D = decl_buffer((2, 3, 4), "int8", "D", axis_separators=[1, 2])
    assert [int(f) for f in D.flatten_indices([1, 2, 3])] == [1, 2, 3]
    assert [int(s) for s in D.flattened_shape()] == [2, 3, 4]


def test_flatten_indices_errors():
    A = decl_buffer((4, 5), "float32", "A")
    with pytest.raises(tepad.TepadError, match="A"):
        A.flatten_indices([1])
    with pytest.raises(tepad.TepadError):
        decl_buffer((4, 5), "float32", "B", axis_separators=[2, 1])


def test_buffer_identity_and_load():
    A = decl_buffer((4,), "float32", "A")
    A2 = decl_buffer((4,), "float32", "A")
    assert A is not A2 and A != A2
    i = Var("i")
    assert not structural_equal(A[i], A2[i])
    assert structural_equal(A[i], A2[i], map_free_vars=True)
    assert A[i].dtype == "float32"


def test_primfunc_structural_equal_modulo_names():
    def make():
        n = Var("n")
        A = decl_buffer((n,), "float32", "A")
        i = Var("i")
        return PrimFunc([A.data, n], For(i, 0, n, "serial", BufferStore(A, A[i] + 1.0, [i])),
                        {A.data: A}, {"global_symbol": "f"})

    f, g = make(), make()
    assert structural_equal(f, g, map_free_vars=True)
    assert not structural_equal(f, g)
    tir.assert_structural_equal(f, g)


def test_one_ir_transform_with_tvms_arguments():
    from tepad.tir import stmt_functor
    from tepad.compat import legacy
    assert stmt_functor.ir_transform is ir_transform
    x = Var("x", "int32")
    e = Add(x, const(1))
    seen = []
    out = ir_transform(e, None, lambda n: seen.append(type(n).__name__), ["tir.Var"])
    assert out is e and seen == ["Var"]
    assert legacy.IRTransform(e, None, lambda n: const(2) if n is x else None, ["tir.Var"]) \
        .a.value == 2
