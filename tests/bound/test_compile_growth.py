"""Compile work stays polynomial as stencil chains grow.

Counts work, never seconds: the node counts of every InferBound range and the number of
simplifier rewrites (``Simplifier._dispatch`` calls) for clamped chains of N = 4, 8, 12
stages, attached at the output's tile, at each consumer's tile, and at each consumer's column.
Before the fix the bounds of the column chain doubled per stage (N = 12 did not finish)."""
import os
import sys

import numpy as np
import pytest

import tepad
from tepad.arith import rewrite
from tepad.arith.context import MEMO
from tepad.bound import infer_bound
from tepad.testing import reference
from tepad.lower import deep_stack
from tepad.tir import expr as E
from tepad.tir.functor import post_order_visit
from tepad.tir.stmt import Stmt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from bench_compile import chain  # noqa: E402

NS = (4, 8, 12)


def _nodes(e):
    n, todo = 0, [e]
    while todo:
        x = todo.pop()
        n += 1
        if isinstance(x, E.Node) and not isinstance(x, (E.Var, E.ConstExpr)):
            todo.extend(v for v in x.field_values() if isinstance(v, E.PrimExpr))
    return n


def _work(monkeypatch, n, attach, exact):
    calls = [0]
    orig = rewrite.Simplifier._dispatch

    def counting(self, e):
        calls[0] += 1
        return orig(self, e)

    monkeypatch.setattr(rewrite.Simplifier, "_dispatch", counting)
    MEMO.clear()
    s, args = chain(n, "clamped", attach)
    bm = infer_bound(s.copy().normalize(), exact=exact)
    sizes = [_nodes(r.min) + _nodes(r.extent) for r in bm.values()]
    MEMO.clear()
    tepad.lower(s, args, exact_bounds=exact)
    monkeypatch.undo()
    return max(sizes), sum(sizes), calls[0]


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
@pytest.mark.parametrize("attach", ["output", "tiled", "column"])
def test_bounds_and_simplifier_work_grow_polynomially(monkeypatch, attach, exact):
    work = {n: _work(monkeypatch, n, attach, exact) for n in NS}
    (m4, t4, c4), (m8, t8, c8), (m12, t12, c12) = (work[n] for n in NS)
    # the largest range grows at most linearly with the depth (it names one loop per level)
    assert m12 <= 6 * 12, work
    assert m12 - m8 <= 2 * (m8 - m4) + 4, work
    # all ranges together, and the rewrites of InferBound + lowering: at most quadratic
    assert t12 <= 9 * t4 + 50, work
    assert c12 <= 9 * c4 + 500, work
    assert c12 - c8 <= 2 * (c8 - c4) + 500, work


@pytest.mark.parametrize("attach", ["output", "column"])
def test_clamped_regions_have_constant_extents(attach):
    """Rows past the tensor are guarded, so a clamped region is a constant-size box."""
    s, _ = chain(6, "clamped", attach)
    s2 = s.copy().normalize()
    bi, be = infer_bound(s2), infer_bound(s2, exact=True)
    for st in s2.stages:
        if st.is_output or not st.op.name.startswith("S"):
            continue
        for iv in st.op.axis:
            assert isinstance(bi[iv].extent, E.IntImm), (st.op.name, bi[iv])
            assert bi[iv].extent.value <= 256
            # never looser than exact mode's box
            assert isinstance(be[iv].extent, E.IntImm)
            assert be[iv].extent.value <= bi[iv].extent.value


@pytest.mark.parametrize("attach", ["output", "tiled", "column"])
def test_clamped_chains_compute_the_right_values(attach):
    n, size, tile = 5, 40, 8
    s, (A, out) = chain(n, "clamped", attach, size=size, tile=tile)
    a = np.random.default_rng(0).standard_normal((size, size)).astype("float32")
    want = reference(out, {A: a})
    x = a.astype("float64")
    for _ in range(n):
        x = x + x[np.minimum(np.arange(size) + 1, size - 1)] * 0.5
    np.testing.assert_allclose(want, x, rtol=1e-4, atol=1e-4)
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=exact), bounds_check=True)
        res = np.zeros((size, size), "float32")
        mod(a, res)
        np.testing.assert_allclose(res, want, rtol=1e-4, atol=1e-4, err_msg=f"exact={exact}")


def _expr_size(e):
    """Nodes of an expression, through call arguments (a guard is ``likely(cond)``)."""
    n, todo = 0, [e]
    while todo:
        x = todo.pop()
        if isinstance(x, (tuple, list)):
            todo.extend(x)
            continue
        n += 1
        if isinstance(x, E.PrimExpr) and not isinstance(x, (E.Var, E.ConstExpr)):
            todo.extend(v for v in x.field_values() if isinstance(v, (E.PrimExpr, tuple, list)))
    return n


def _largest_statement_expr(func):
    best = [0]

    def f(n):
        if isinstance(n, Stmt):
            for v in n.field_values():
                if isinstance(v, (E.PrimExpr, tuple, list)):
                    best[0] = max(best[0], _expr_size(v))

    post_order_visit(func.body, f)
    return best[0]


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
def test_deeply_nested_chains_stay_polynomial(monkeypatch, exact):
    """Each stage at its consumer's tile: the attach depth is N. From N = 6 to N = 12 the
    rewrites at most quadruple (quadratic), every range stays linear in the depth, and the
    largest expression of the lowered function (a guard naming every enclosing tile loop, in
    exact mode a min over the chain) at most quadratic."""
    work, largest = {}, {}
    for n in (6, 12):
        work[n] = deep_stack.call_with_deep_stack(_work, monkeypatch, n, "tiled", exact)
        s, args = chain(n, "clamped", "tiled")
        largest[n] = _largest_statement_expr(tepad.lower(s, args, exact_bounds=exact)["main"])
    (m6, t6, c6), (m12, t12, c12) = work[6], work[12]
    assert m12 <= 6 * 12, work
    assert t12 <= 4 * t6 + 50, work
    assert c12 <= 4 * c6 + 1000, work
    assert largest[12] <= 4 * largest[6] + 20, largest


def _node_work(monkeypatch, fn):
    """``fn()`` and the per-node work of the simplifier it caused: linear-form steps
    (``_lin``, one per node of a sum it canonicalizes) plus witness evaluations (``_eval``,
    one per node evaluated); both grow with the size of the expressions, not just their
    number."""
    from tepad.arith import rules_linear, witness
    count = [0]
    lin, ev = rules_linear.LinearRules._lin, witness._eval

    def counting_lin(self, e, simp_leaves=True):
        count[0] += 1
        return lin(self, e, simp_leaves)

    def counting_eval(e, env, memo):
        count[0] += 1
        return ev(e, env, memo)

    monkeypatch.setattr(rules_linear.LinearRules, "_lin", counting_lin)
    monkeypatch.setattr(witness, "_eval", counting_eval)
    MEMO.clear()
    try:
        fn()
    finally:
        monkeypatch.undo()
    return count[0]


def test_stage_in_stage_bounds_work_is_quadratic(monkeypatch):
    """Each stage computed at its consumer's tile (attach depth N): InferBound hands a deep
    producer its consumer's range as offset + tile, so the per-node work of N stages grows
    as N^2 (N stages, ranges that name one loop per level), not N^3 (it was 6.4x from N = 20
    to 40, with every range re-simplified over every enclosing loop at every level)."""
    work = {}
    for n in (10, 20, 40):
        s, _ = chain(n, "clamped", "tiled")
        s2 = s.copy().normalize()
        work[n] = _node_work(monkeypatch, lambda: deep_stack.call_with_deep_stack(
            infer_bound, s2, exact=False))
    assert work[20] <= 5 * work[10], work
    assert work[40] <= 5 * work[20], work


@pytest.mark.parametrize("stencil", ["clamped", "shifted"])
@pytest.mark.parametrize("attach", ["tiled", "column", "output"])
def test_tile_offsets_leave_the_bounds_unchanged(monkeypatch, stencil, attach):
    """Handing deep producers their consumer's range as offset + tile is a change of cost,
    not of result: every range (and the lowered function) is the same as when the requests
    see the full expressions."""
    from tepad.bound import interval

    def run():
        MEMO.clear()
        s, args = chain(7, stencil, attach, size=64, tile=8)
        s2 = s.copy().normalize()
        bm = deep_stack.call_with_deep_stack(infer_bound, s2, exact=False)
        # two runs build two schedules (other Vars): compared as text, which names the
        # loops of each level apart (i_outer, i_outer_1, ... in the lowered function)
        ranges = {f"{st.op.name}.{iv.var.name}": str(bm[iv]) for st in s2.stages
                  for iv in getattr(st.op, "root_iter_vars", ()) if iv in bm}
        return ranges, str(tepad.lower(s, args)["main"])

    with_offsets, low = run()
    monkeypatch.setattr(interval, "ABSTRACT_DEPTH", 10 ** 6)
    without, low_without = run()
    assert with_offsets == without
    assert low == low_without


def test_exact_chain_guards_and_work_grow_with_the_depth_only(monkeypatch):
    """Exact mode, each stage at its consumer's tile (attach depth N): a stage's store guard
    bounds it by its consumer's predicate bound, which ScheduleOps binds once in a LetStmt
    (``tepad.lower.predicate_lets``), so the largest expression grows linearly (it names one
    loop per level; it was quadratic, 106 / 358 / 1294 nodes at N = 6 / 12 / 24), and the
    simplifier's per-node work of lowering N stages quadratically (it was 6.7x from 12 to
    24)."""
    work, largest = {}, {}
    for n in (6, 12, 24):
        s, args = chain(n, "clamped", "tiled")
        out = []
        work[n] = _node_work(monkeypatch, lambda: out.append(deep_stack.call_with_deep_stack(
            tepad.lower, s, args, exact_bounds=True)))
        largest[n] = _largest_statement_expr(out[0]["main"])
    assert largest[12] <= 2.2 * largest[6], largest
    assert largest[24] <= 2.2 * largest[12], largest
    assert work[24] <= 5 * work[12], work


def test_exact_chain_shares_predicate_bounds_and_computes_the_right_values():
    from tepad.tir.stmt import LetStmt
    n, size, tile = 7, 64, 8
    s, (A, out) = chain(n, "clamped", "tiled", size=size, tile=tile)
    f = tepad.lower(s, [A, out], exact_bounds=True)["main"]
    lets = []
    post_order_visit(f.body, lambda x: lets.append(x) if isinstance(x, LetStmt) else None)
    names = [x.var.name for x in lets]
    assert any(".bound" in nm for nm in names), names
    a = np.random.default_rng(1).standard_normal((size, size)).astype("float32")
    x = a.astype("float64")
    for _ in range(n):
        x = x + x[np.minimum(np.arange(size) + 1, size - 1)] * 0.5
    mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=True), bounds_check=True)
    res = np.zeros((size, size), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, x, rtol=1e-4, atol=1e-4)
