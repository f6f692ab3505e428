"""RFC 0077 passes on the RFC's before/after examples."""
import numpy as np
import pytest

from tepad import tir
from tepad.errors import TepadError
from tepad.layout import to_physical, from_physical, physical_shape
from tepad.lower.passes.apply_buffer_transforms import apply_buffer_transforms
from tepad.lower.passes.hoist_expression import (hoist_expression, HoistConditional,
                                                 HoistLetBinding)
from tepad.lower.passes.merge_adjacent_loops import merge_adjacent_loops
from tepad.lower.passes.reduce_loop_extents import reduce_loop_extents
from tepad.lower.passes.remove_assume import remove_assume
from tepad.lower.passes.remove_branching_through_overcompute import \
    remove_branching_through_overcompute
from tepad.lower.passes.remove_no_op import remove_no_op
from tepad.lower.passes.remove_overcompute_through_branching import \
    remove_overcompute_through_branching
from tepad.lower.passes.remove_store_undef import remove_store_undef
from tepad.lower.passes.simplify import simplify
from tepad.lower.passes.simplify_with_facts import simplify_with_facts
from tepad.schedule import AXIS_SEPARATOR

from .helpers import imap, func, loops, build, collect

F0 = tir.const(0.0)


def row_summation(pad):
    A = tir.decl_buffer((16, 14), "float32", "A")
    B = tir.decl_buffer((16,), "float32", "B")
    i, jo, ji = tir.Var("i"), tir.Var("jo"), tir.Var("ji")
    j = jo * 4 + ji
    body = tir.For(i, 0, 16, "serial", tir.seq(
        tir.BufferStore(B, F0, [i]),
        loops([(jo, 4), (ji, 4)], tir.IfThenElse(j < 14, tir.BufferStore(B, B[i] + A[i, j], [i])))))
    f = func([A, B], body, {A: [imap(lambda i, j: [i, j // 4, j % 4], 2)]}, {A: pad})
    return apply_buffer_transforms(f)


def test_row_summation_loses_inner_conditional():
    g = row_summation(0.0)
    h = remove_branching_through_overcompute(g)
    compute = h.body.seq[1]
    assert not collect(compute, tir.IfThenElse)
    assert "B[i] = B[i] + A[i, jo, ji]" in str(compute)
    mod = build(h)
    a = np.random.rand(16, 14).astype("float32")
    b = np.zeros(16, "float32")
    mod(to_physical(a, lambda i, j: [i, j // 4, j % 4], 0.0), b)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5)


def test_row_summation_keeps_conditional_for_other_pad():
    h = remove_branching_through_overcompute(row_summation(1.0))
    assert collect(h.body.seq[1], tir.IfThenElse)
    h2 = remove_branching_through_overcompute(row_summation(None))
    assert collect(h2.body, tir.IfThenElse)


def test_internal_buffer_padding_enables_overcompute():
    """RFC 'Allocate internal buffer containing transformation padding'."""
    A = tir.decl_buffer((14,), "int32", "A")
    B = tir.decl_buffer((1,), "int32", "B")
    AL = tir.decl_buffer((14,), "int32", "A_local")
    i, io, ii = tir.Var("i"), tir.Var("io"), tir.Var("ii")
    body = tir.BufferRealize(AL, [tir.Range(0, 14)], tir.const(True), tir.seq(
        tir.For(i, 0, 14, "serial", tir.BufferStore(AL, A[i], [i])),
        tir.BufferStore(B, tir.const(0), [0]),
        loops([(io, 4), (ii, 4)], tir.IfThenElse(
            io * 4 + ii < 14, tir.BufferStore(B, B[0] + AL[io * 4 + ii], [0])))))
    g = apply_buffer_transforms(func([A, B], body, {AL: [imap(lambda i: [i // 4, i % 4], 1)]},
                                     {AL: 0}))
    h = remove_branching_through_overcompute(g)
    assert len(collect(h.body, tir.IfThenElse)) == 1      # only the padding writer's guard
    mod = build(h)
    b = np.zeros(1, "int32")
    mod(np.arange(14, dtype="int32"), b)
    assert b[0] == sum(range(14))


def test_simplify_with_assume_scalar_and_buffer():
    A = tir.decl_buffer((16,), "int32", "A")
    B = tir.decl_buffer((1,), "int32", "B")
    n, i = tir.Var("n"), tir.Var("i")
    s = tir.seq(tir.Evaluate(tir.assume(tir.all(n >= 0, n < 8))),
                tir.For(i, 0, 16, "serial", tir.BufferStore(A, n // 8, [i])))
    out = simplify_with_facts(s)
    assert "A[i] = 0" in str(out) and "assume" in str(out)
    s2 = tir.seq(tir.Evaluate(tir.assume(B[0] == 0)),
                 tir.IfThenElse(A[0] == B[0], tir.For(i, 0, 16, "serial",
                                                      tir.BufferStore(B, B[0] + A[i], [0]))))
    out2 = str(simplify_with_facts(s2))
    assert "if A[0] == 0:" in out2 and "B[0] = B[0] + A[i]" in out2


def test_remove_no_op_cases():
    A = tir.decl_buffer((16,), "float32", "A")
    B = tir.decl_buffer((1,), "float32", "B")
    i = tir.Var("i")
    # store of a known value (RFC sum example)
    s = tir.seq(tir.Evaluate(tir.assume(B[0] == 0.0)), tir.BufferStore(B, F0, [0]),
                tir.For(i, 0, 16, "serial", tir.BufferStore(B, B[0] + A[i], [0])))
    out = remove_no_op(s)
    assert len(out.seq) == 2 and "assume" in str(out.seq[0])
    # write-back, overwritten store, empty loop
    j = tir.Var("j")
    s2 = tir.seq(tir.BufferStore(A, A[3], [3]), tir.BufferStore(A, F0, [1]),
                 tir.BufferStore(A, tir.const(2.0), [1]),
                 tir.For(j, 0, 4, "serial", tir.Evaluate(0)))
    out2 = remove_no_op(s2)
    assert isinstance(out2, tir.BufferStore) and float(out2.value.value) == 2.0
    # a loop nest fully overwritten by the next one
    k, m = tir.Var("k"), tir.Var("m")
    s3 = tir.seq(tir.For(k, 0, 8, "serial", tir.BufferStore(A, F0, [k * 2])),
                 tir.For(m, 0, 16, "serial", tir.BufferStore(A, tir.const(1.0), [m])))
    assert isinstance(remove_no_op(s3), tir.For)
    # ... but not when the second reads the buffer
    s4 = tir.seq(s3.seq[0], tir.For(m, 0, 16, "serial", tir.BufferStore(A, A[m] + 1.0, [m])))
    assert isinstance(remove_no_op(s4), tir.SeqStmt)


def test_hoist_merges_adjacent_statements_under_the_same_guard():
    """A reduction's init loop and update nest under the same (loop-invariant) guard: merged
    into one ``if`` and hoisted out of the enclosing loop."""
    A = tir.decl_buffer((8,), "float32", "A")
    i, x, r = tir.Var("i"), tir.Var("x"), tir.Var("r")
    guard = tir.call_intrin("bool", "tir.likely", i < 5)
    init = tir.IfThenElse(guard, tir.BufferStore(A, F0, [x]))
    update = tir.For(r, 0, 3, "serial", tir.IfThenElse(
        guard, tir.BufferStore(A, A[x] + tir.const(1.0), [x])))
    s = tir.For(i, 0, 8, "serial", tir.For(x, 0, 8, "serial", tir.seq(init, update)))
    h = hoist_expression(s)
    assert isinstance(h, tir.For) and h.loop_var is i
    assert isinstance(h.body, tir.IfThenElse)                     # out of the x loop
    assert isinstance(h.body.then_case, tir.For) and h.body.then_case.loop_var is x
    ifs = collect(h, tir.IfThenElse)
    assert len(ifs) == 1
    # different guards, or a first statement that writes what the guard reads: not merged
    other = tir.IfThenElse(tir.call_intrin("bool", "tir.likely", i < 6),
                           tir.BufferStore(A, F0, [x]))
    s2 = tir.For(x, 0, 8, "serial", tir.seq(init, other))
    assert len(collect(hoist_expression(s2), tir.IfThenElse)) == 2
    reads = tir.IfThenElse(A[0] > F0, tir.BufferStore(A, F0, [0]))
    s3 = tir.For(x, 0, 8, "serial", tir.seq(reads, reads))
    assert len(collect(hoist_expression(s3), tir.IfThenElse)) == 2


def test_hoist_and_reduce_loop_extents():
    A = tir.decl_buffer((4, 4), "float32", "A")
    i, j = tir.Var("i"), tir.Var("j")
    s = loops([(i, 4), (j, 4)], tir.IfThenElse(tir.all(i == 0, j < 2),
                                               tir.BufferStore(A, F0, [i, j])))
    h = hoist_expression(s, HoistConditional.BOOLEAN_EXPRESSION)
    assert isinstance(h, tir.For) and isinstance(h.body, tir.IfThenElse)
    assert isinstance(h.body.then_case, tir.For)
    r = simplify(reduce_loop_extents(h))
    assert isinstance(r, tir.For) and int(r.extent) == 2
    assert str(r.body) == "A[0, j] = T.float32(0.0)"
    # IF_ELSE_STMT only: the mixed condition stays
    h2 = hoist_expression(s, HoistConditional.IF_ELSE_STMT)
    assert isinstance(h2.body.body, tir.IfThenElse)
    # a let needed by the condition (RFC example, correct hoisting this time)
    flag = tir.Var("is_in_bounds", "bool")
    n = tir.Var("n")
    s3 = tir.For(i, 0, 4, "serial", tir.LetStmt(flag, n < 3, tir.IfThenElse(
        flag, tir.BufferStore(A, F0, [i, 0]))))
    h3 = hoist_expression(s3, HoistConditional.IF_ELSE_STMT,
                          HoistLetBinding.REQUIRED_BY_CONDITION)
    assert isinstance(h3, tir.LetStmt) and isinstance(h3.body, tir.IfThenElse)
    s4 = tir.For(i, 0, 4, "serial", tir.LetStmt(flag, i < 3, tir.IfThenElse(
        flag, tir.BufferStore(A, F0, [i, 0]))))
    assert hoist_expression(s4) is s4


def test_merge_adjacent_loops_rfc_examples():
    A = tir.decl_buffer((16,), "float32", "A")

    def L(fn):
        i = tir.Var("i")
        return tir.For(i, 0, 16, "serial", fn(i))
    ok1 = tir.seq(L(lambda i: tir.BufferStore(A, F0, [i])),
                  L(lambda i: tir.BufferStore(A, tir.const(1.0), [i])))
    assert isinstance(merge_adjacent_loops(ok1), tir.For)
    ok2 = tir.seq(L(lambda i: tir.BufferStore(A, F0, [i])),
                  L(lambda i: tir.IfThenElse(i > 0, tir.BufferStore(A, A[i - 1] + 1.0, [i]))))
    assert isinstance(merge_adjacent_loops(ok2), tir.For)
    bad = tir.seq(L(lambda i: tir.BufferStore(A, tir.Cast("float32", i), [i])),
                  L(lambda i: tir.IfThenElse(tir.all(i > 0, i < 15), tir.BufferStore(
                      A, A[i - 1] + A[i] + A[i + 1], [i]))))
    assert isinstance(merge_adjacent_loops(bad), tir.SeqStmt)


def test_remove_overcompute_through_branching_rfc():
    A = tir.decl_buffer((4, 4), "float32", "A")
    B = tir.decl_buffer((4, 4), "float32", "B")
    io, ii, f = tir.Var("io"), tir.Var("ii"), tir.Var("f")
    po, pi = tir.Var("io"), tir.Var("ii")
    comp = loops([(io, 4), (ii, 4)], tir.seq(
        tir.BufferStore(B, F0, [io, ii]),
        tir.For(f, 0, 3, "serial", tir.BufferStore(
            B, B[io, ii] + A[(io + (ii + f) // 4) % 4, (ii + f) % 4], [io, ii]))))
    pad = loops([(po, 4), (pi, 4)], tir.IfThenElse(tir.all(po == 3, pi >= 2),
                                                   tir.BufferStore(B, F0, [po, pi])))
    fn = func([A, B], tir.seq(comp, pad))
    out = remove_overcompute_through_branching(fn)
    guard = out.body.seq[0].body.body
    assert isinstance(guard, tir.IfThenElse)
    assert str(guard.condition) == "io != 3 or ii < 2"
    a = np.random.rand(4, 4).astype("float32")
    b1, b2 = np.zeros((4, 4), "float32"), np.zeros((4, 4), "float32")
    build(fn)(a, b1)
    build(out)(a, b2)
    np.testing.assert_allclose(b1, b2, rtol=1e-5)


def test_remove_assume_and_undef():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i")
    s = tir.seq(tir.For(i, 0, 4, "serial", tir.Evaluate(tir.assume(A[i] == 0.0))),
                tir.BufferStore(A, tir.undef("float32"), [0]),
                tir.BufferStore(A, tir.const(1.0), [1]))
    r = remove_store_undef(remove_assume(s))
    assert isinstance(r, tir.BufferStore) and "undef" not in str(r) and "assume" not in str(r)
    with pytest.raises(TepadError, match="undef"):
        remove_store_undef(tir.IfThenElse(tir.undef("bool"), tir.BufferStore(A, F0, [0])))
    with pytest.raises(TepadError, match="undef"):
        remove_store_undef(tir.BufferStore(A, F0, [tir.undef("int32")]))
    # undef inside an assume is a compile-time fact, tolerated
    keep = tir.Evaluate(tir.assume(A[0] == tir.undef("float32")))
    assert remove_store_undef(keep) is keep


def test_layout_helpers_round_trip():
    x = np.arange(14, dtype="float32")
    p = to_physical(x, lambda i: [i // 4, i % 4], pad_value=-1)
    assert p.shape == (4, 4) and list(p[3, 2:]) == [-1, -1]
    np.testing.assert_array_equal(from_physical(p, lambda i: [i // 4, i % 4], (14,)), x)
    y = np.random.rand(2, 5, 3, 6).astype("float32")
    f = lambda n, h, w, c: [n, c // 4, h, AXIS_SEPARATOR, w, c % 4]  # noqa: E731
    q = to_physical(y, f)
    assert q.shape == (2, 2, 5, 3, 4) == physical_shape(y.shape, f)
    np.testing.assert_array_equal(from_physical(q, f, y.shape), y)
    np.testing.assert_array_equal(from_physical(q.reshape(20, 12), f, y.shape), y)
    off = to_physical(np.arange(16), imap(lambda i: [(i + 2) // 8, (i + 2) % 8], 1), 0)
    assert off.shape == (3, 8) and off[0, 2] == 0 and off[1, 0] == 6
    with pytest.raises(TepadError):
        to_physical(np.zeros((4, 4)), lambda i, j: [i + j])
