"""check_assumes alone: ``Evaluate(tir.assume(c))`` -> ``assert c`` (build(checked=True))."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.errors import TepadError
from tepad.layout import to_physical
from tepad.lower.passes import check_assumes, remove_assume
from tepad.tir import stmt as S

from lower_helpers import calls, func, loops, nodes, rand

MAP = lambda i, j: [i, j // 4, j % 4]       # noqa: E731  (16, 14) -> (16, 4, 4), 2 pad cells/row


def padded_input_func():
    """B = 2 * A with A an input stored padded (pad_value=0): lower emits an assume nest."""
    A = te.placeholder((16, 14), "float32", name="A")
    B = te.compute((16, 14), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    s[A].transform_layout(MAP, pad_value=0.0)
    return tepad.lower(s, [A, B])["main"]


def test_every_assume_statement_becomes_an_assert():
    f = padded_input_func()
    n_assume = len(calls(f, "tir.assume"))
    assert n_assume == 1 and not nodes(f, S.AssertStmt)
    g = check_assumes(f)
    assert not calls(g, "tir.assume")
    asserts = nodes(g, S.AssertStmt)
    assert len(asserts) == n_assume
    # the checked condition is the assumed one, still inside the same (16, 4, 4) loop nest
    (a,) = asserts
    (orig,) = calls(f, "tir.assume")
    assert tir.structural_equal(a.condition, orig.args[0])
    assert "argument A" in a.message.value and "pad_value" in a.message.value
    nest, extents = g.body.seq[0], []
    while isinstance(nest, S.For):
        extents.append(int(nest.extent))
        nest = nest.body
    assert extents == [16, 4, 4] and nest is a


def test_broken_padding_raises_at_run_time_and_good_padding_runs():
    g = check_assumes(padded_input_func())
    mod = tepad.build(g)
    a = rand((16, 14))
    pa = to_physical(a, MAP, 0.0)
    b = np.zeros((16, 14), "float32")
    mod(pa, b)
    np.testing.assert_allclose(b, a * 2.0, rtol=1e-6)
    bad = pa.copy()
    bad[5, 3, 3] = 1.0                      # a padding cell (j = 15 does not exist)
    with pytest.raises(TepadError, match="argument A: the padding does not hold"):
        mod(bad, b)
    # a non-padding cell may hold anything
    ok = pa.copy()
    ok[5, 3, 1] = 123.0
    mod(ok, b)
    assert b[5, 13] == 246.0


def test_without_the_pass_broken_padding_is_not_noticed():
    """The control: remove_assume alone (what build does unchecked) accepts the same input."""
    mod = tepad.build(remove_assume(padded_input_func()))
    bad = to_physical(rand((16, 14)), MAP, 0.0)
    bad[0, 3, 2] = 7.0
    mod(bad, np.zeros((16, 14), "float32"))   # no error


def test_assume_without_buffer_reads_names_an_argument_and_checks_it():
    A = tir.decl_buffer((8,), "int32", "A")
    n = tir.Var("n")
    i = tir.Var("i")
    body = tir.seq(tir.Evaluate(tir.assume(A[0] >= 0)),
                   tir.Evaluate(tir.assume(n < 8)),
                   loops([(i, 8)], tir.BufferStore(A, A[i] + 1, [i])))
    g = check_assumes(func([A], body))
    msgs = [a.message.value for a in nodes(g, S.AssertStmt)]
    assert len(msgs) == 2
    assert "argument A" in msgs[0] and "A" not in msgs[1].split(":")[0]
    assert [str(a.condition) for a in nodes(g, S.AssertStmt)][1] == str(n < 8)


def test_assume_nested_in_an_expression_is_left_alone():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    cond = tir.assume(A[i] > tir.const(0.0))
    body = loops([(i, 4)], tir.IfThenElse(cond, tir.BufferStore(A, A[i] * 2.0, [i])))
    g = check_assumes(func([A], body))
    assert not nodes(g, S.AssertStmt)
    assert len(calls(g, "tir.assume")) == 1
    assert tir.structural_equal(g.body, body)


def test_function_without_assumes_is_structurally_unchanged():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    f = tepad.lower(te.create_schedule(B.op), [A, B])["main"]
    g = check_assumes(f)
    assert tir.structural_equal(g.body, f.body)
    assert g.params == f.params and g.buffer_map == f.buffer_map
