"""unroll_loop's auto unrolling (TVM's UnrollLoop rule): a serial loop of constant extent n
with no non-unrolled loop inside is unrolled when n * steps <= auto_max_step (steps: stores
and evaluations of its body times the extents unrolled inside) or n <= auto_max_extent."""
import pytest

from tepad import TepadError, tir
from tepad.lower.passes import unroll_loop
from tepad.tir import stmt as S

from lower_helpers import fors, nodes


def loop_names(f):
    return sorted(x.loop_var.name for x in fors(f))


def nest(body_stores=1, inner=4, outer=8, pragma=None):
    """``for i in outer: for j in inner: <body_stores> stores``, optionally under a pragma."""
    A = tir.decl_buffer((outer * inner * body_stores,), "float32", name="A")
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    stores = [S.BufferStore(A, tir.const(1.0, "float32"),
                            [(i * inner + j) * body_stores + k]) for k in range(body_stores)]
    body = S.For(i, 0, outer, S.ForKind.SERIAL, S.For(j, 0, inner, S.ForKind.SERIAL,
                                                       S.seq(*stores)))
    if pragma is not None:
        body = S.AttrStmt(i, "pragma_auto_unroll_max_step", pragma, body)
    return tir.PrimFunc([A.data], body, {A.data: A})


@pytest.mark.parametrize("stores,budget,left", [
    (1, 3, ["i", "j"]),      # 4 * 1 > 3: nothing
    (1, 4, ["i"]),           # j: 4 * 1 <= 4
    (2, 4, ["i", "j"]),      # j: 4 * 2 > 4
    (2, 8, ["i"]),
    (1, 32, []),             # i: 8 * 4 <= 32 too
])
def test_budget_counts_stores_times_extents(stores, budget, left):
    g = unroll_loop(nest(stores), auto_max_step=budget)
    assert loop_names(g) == left
    assert len(nodes(g, S.BufferStore)) == stores * (32 if not left else 4 if left == ["i"]
                                                      else 1)


def test_pragma_scopes_the_budget_and_is_removed():
    g = unroll_loop(nest(1, pragma=4))
    assert loop_names(g) == ["i"]
    assert not nodes(g, S.AttrStmt)
    plain = nest(1)
    assert unroll_loop(plain) is plain           # no budget, no pragma: unchanged


def test_auto_max_extent_and_depth():
    assert loop_names(unroll_loop(nest(3), auto_max_extent=4)) == ["i"]
    g = unroll_loop(nest(1), auto_max_step=1000, auto_max_depth=0)
    assert loop_names(g) == ["i"]     # j unrolled; i would be depth 1


def test_a_loop_with_a_serial_loop_inside_is_not_unrolled():
    g = unroll_loop(nest(1, inner=100), auto_max_step=64)
    assert loop_names(g) == ["i", "j"]


def test_config_errors():
    with pytest.raises(TepadError, match="unknown key 'max_step'"):
        unroll_loop(nest(1), max_step=3)
    with pytest.raises(TepadError, match="auto_max_step must be an integer"):
        unroll_loop(nest(1), auto_max_step="3")
    with pytest.raises(TepadError, match="integer constant"):
        unroll_loop(nest(1, pragma=tir.Var("n", "int32")))


def test_explicit_unroll_false_marks_the_picked_loops_instead_of_copying():
    g = unroll_loop(nest(1), auto_max_step=4, explicit_unroll=False)
    kinds = {x.loop_var.name: x.kind for x in fors(g)}
    assert kinds == {"i": S.ForKind.SERIAL, "j": S.ForKind.UNROLLED}
    assert len(nodes(g, S.BufferStore)) == 1


def test_extent_that_simplifies_to_a_constant_counts_as_that_constant():
    n = tir.Var("n", "int32")
    A = tir.decl_buffer((16,), "float32", name="A")
    i = tir.Var("i", "int32")
    body = S.For(i, n, (n + 2) - n, S.ForKind.SERIAL,
                 S.BufferStore(A, tir.const(1.0, "float32"), [i - n]))
    g = unroll_loop(tir.PrimFunc([A.data, n], body, {A.data: A}), auto_max_step=2)
    assert not fors(g) and len(nodes(g, S.BufferStore)) == 2


def test_max_extent_one_unrolls_single_iteration_loops_of_any_body():
    # the outer loop of extent 1 holds a non-unrolled loop, so only the extent-1 rule applies
    g = unroll_loop(nest(1, inner=6, outer=1), auto_max_extent=1, explicit_unroll=False)
    assert loop_names(g) == ["j"] and fors(g)[0].kind == S.ForKind.SERIAL
