"""Thread-bound loops in the lowered IR (tepad/lower/thread_binding.py): what each kind of
thread axis becomes, which index the bound leaf gets, and the CPU build's refusal."""
import pytest

import tepad
from tepad import te, tir
from tepad.lower.thread_binding import func_thread_bindings
from tepad.tir.stmt_functor import post_order_visit
from tepad.tir.verify import verify


def staged(scope, tag):
    """B computed at C's first axis, B's inner split and C's second axis bound to ``tag``."""
    A = te.placeholder((2, 4, 3), name="A")
    B = te.compute((2, 4, 3), lambda i, j, k: A[i, j, k] + 1.0, name="B")
    C = te.compute((2, 4, 3), lambda i, j, k: B[i, j, k] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[B].set_scope(scope)
    _, inner = s[B].split(B.op.axis[1], 4)
    s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
    t = te.thread_axis(tag)
    s[C].bind(C.op.axis[1], t)
    s[B].bind(inner, t)
    return s, [A, C]


def nodes(func, cls):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


@pytest.mark.parametrize("scope,tag,key", [("local", "threadIdx.x", "thread_extent"),
                                           ("local", "vthread", "virtual_thread"),
                                           ("shared", "blockIdx.y", "thread_extent")])
def test_attached_stage_inside_bound_loops_needs_no_guard(scope, tag, key):
    s, args = staged(scope, tag)
    func = tepad.lower(s, args)["main"]
    assert not nodes(func, tir.IfThenElse)
    assert not verify(func)
    assert [t.thread_tag for t, _ in func_thread_bindings(func)] == ["blockIdx.x", tag, tag]
    assert {a.attr_key for a in nodes(func, tir.AttrStmt)} == {"thread_extent", key}
    # B's region is one element along the bound axis, each thread its own
    b = [a for a in nodes(func, tir.Allocate) if a.buffer_var.name == "B"]
    assert b and [int(e) for e in b[0].extents] == [3]


def test_sibling_launches_share_the_thread_index_and_nesting_is_ill_formed():
    s, args = staged("local", "threadIdx.x")
    func = tepad.lower(s, args)["main"]
    launched = [t for t, _ in func_thread_bindings(func)]
    assert launched[1] is launched[2]
    inner = [a for a in nodes(func, tir.AttrStmt) if a.attr_key == "thread_extent"][0]
    nested = tir.AttrStmt(inner.node, "thread_extent", 2, inner)
    assert any("inside its own launch" in p for p in verify(func.with_body(nested)))


def test_bound_leaf_with_unit_extent_uses_its_min():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=8)
    s[B].bind(outer, te.thread_axis("blockIdx.x"))          # extent 1
    s[B].bind(inner, te.thread_axis("threadIdx.x"))
    text = tepad.lower(s, [A, B])["main"].script()
    assert "T.launch_thread('blockIdx.x', 1)" in text
    assert "B[threadIdx_x] = A[threadIdx_x]" in text


def test_build_for_the_cpu_names_stage_and_axis():
    s, args = staged("local", "threadIdx.x")
    with pytest.raises(tepad.TepadError, match=r"stage B: axis j.inner is bound to threadIdx.x; .*"
                       r"s\[B\].parallel\(j.inner\)"):
        tepad.build(s, args)
