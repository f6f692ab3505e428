"""remove_store_undef alone: stores of tir.undef vanish (with loops they leave empty); any other
use of undef is a TepadError."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError
from tepad.lower.passes import remove_store_undef
from tepad.tir import stmt as S

from lower_helpers import calls, func, loops, nodes, rand


def undef_padded_output():
    A = te.placeholder((14,), "float32", name="A")
    B = te.compute((14,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=tir.undef("float32"))
    return tepad.lower(s, [A, B])["main"]


def test_undef_padding_nest_is_removed():
    f = undef_padded_output()
    assert calls(f, "tir.undef")
    assert len(nodes(f, S.BufferStore)) == 2
    g = remove_store_undef(f)
    assert not calls(g, "tir.undef")
    stores = nodes(g, S.BufferStore)
    assert len(stores) == 1 and "undef" not in str(stores[0].value)
    assert tir.structural_equal(g.body, f.body.seq[0])     # the compute nest, untouched


def test_numerics_unchanged_on_real_cells():
    g = remove_store_undef(undef_padded_output())
    a = rand((14,))
    b = np.full((4, 4), -7.0, "float32")
    tepad.build(g)(a, b)
    np.testing.assert_allclose(b.reshape(-1)[:14], a * 2.0, rtol=1e-6)
    assert (b.reshape(-1)[14:] == -7.0).all()              # nothing is written to the padding


def test_undef_nested_in_value_removes_the_store():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    body = tir.seq(loops([(i, 4)], tir.BufferStore(A, tir.undef("float32") + 1.0, [i])),
                   tir.BufferStore(A, tir.const(5.0), [0]))
    g = remove_store_undef(func([A], body))
    assert not nodes(g, S.For)
    assert len(nodes(g, S.BufferStore)) == 1


@pytest.mark.parametrize("where", ["index", "if", "loop", "let", "evaluate"])
def test_undef_elsewhere_is_an_error(where):
    A = tir.decl_buffer((4,), "int32", "A")
    i, x = tir.Var("i"), tir.Var("x")
    u = tir.undef("int32")
    store = tir.BufferStore(A, tir.const(1), [i])
    body = {"index": loops([(i, 4)], tir.BufferStore(A, tir.const(1), [u])),
            "if": loops([(i, 4)], tir.IfThenElse(u > 0, store)),
            "loop": tir.For(i, 0, u, "serial", store),
            "let": tir.LetStmt(x, u, loops([(i, 4)], tir.BufferStore(A, x, [i]))),
            "evaluate": tir.Evaluate(u)}[where]
    with pytest.raises(TepadError, match="undef"):
        remove_store_undef(func([A], body))


def test_undef_inside_assume_is_tolerated():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    body = loops([(i, 4)], tir.seq(
        tir.Evaluate(tir.assume(A[i] == tir.undef("float32"))),
        tir.BufferStore(A, A[i] + 1.0, [i])))
    f = func([A], body)
    assert remove_store_undef(f) is f


def test_nothing_to_do_returns_same_object():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B])["main"]
    assert remove_store_undef(f) is f
