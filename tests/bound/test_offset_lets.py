"""Root offsets of deep stages as let variables (``tepad.bound.offset_lets``).

Lowering names the root min of a stage nested three or more loops deep, with stages inside
it, by a let variable; the producers inside see the variable instead of a sum over every
enclosing tile loop. These tests check that this changes the size of the expressions, not
what they say: the bounds equal the written-out ones wherever the loops run, the lowered
kernels compute the right values in both bound modes, and only closed, deep, enclosing
stages get lets."""
import os
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import pytest

import tepad
from tepad import te, tir
from tepad.arith import Analyzer
from tepad.bound import infer_bound
from tepad.codegen import compiler, jit
from tepad.lower import deep_stack
from tepad.testing import reference
from tepad.tir import expr as E
from tepad.tir.functor import collect_vars, post_order_visit, substitute
from tepad.tir.stmt import LetStmt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from bench_compile import chain  # noqa: E402
sys.path.insert(0, os.path.dirname(__file__))
from test_compile_growth import _largest_statement_expr  # noqa: E402


def _expanded(e, lets):
    """``e`` with every offset let variable replaced by its value (inner lets first)."""
    for v, value in reversed(lets):
        if v in collect_vars(e):
            e = substitute(e, {v: value})
    return e


def _loop_ranges(bm):
    """``{Var: (lo, hi)}`` of every IterVar with a constant range in ``bm``."""
    out = {}
    for iv, r in bm.items():
        if isinstance(r.min, E.IntImm) and isinstance(r.extent, E.IntImm) and r.extent.value > 0:
            out[iv.var] = (r.min.value, r.min.value + r.extent.value - 1)
    return out


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
@pytest.mark.parametrize("stencil", ["clamped", "shifted"])
@pytest.mark.parametrize("attach", ["tiled", "column"])
def test_offset_lets_leave_the_bounds_unchanged(exact, stencil, attach):
    s, _ = chain(7, stencil, attach)
    s2 = s.copy().normalize()
    plain = infer_bound(s2, exact=exact)
    named = infer_bound(s2, exact=exact, offset_lets=True)
    lets = [p for pairs in named.offset_lets.values() for p in pairs]
    assert lets, "a 7-stage chain nested in its consumers' loops names its offsets"
    assert not plain.offset_lets
    ranges = _loop_ranges(plain)
    rng = np.random.default_rng(7)
    ana = Analyzer()
    for iv, r in plain.items():
        got = named[iv]
        for a, b in ((r.min, _expanded(got.min, lets)), (r.extent, _expanded(got.extent, lets))):
            free = sorted(collect_vars(a) | collect_vars(b), key=lambda v: v.name)
            for _ in range(12):
                env = {v: E.IntImm(int(rng.integers(*ranges[v]) if ranges[v][1] > ranges[v][0]
                                       else ranges[v][0]), v.dtype) for v in free}
                x, y = ana.simplify(substitute(a, env)), ana.simplify(substitute(b, env))
                assert isinstance(x, E.IntImm) and isinstance(y, E.IntImm), (iv, a, b)
                assert x.value == y.value, (iv.name, a, b, env)
    for op in plain.predicates:
        assert op in named.predicates


def _lets_of(func):
    out = []
    post_order_visit(func.body, lambda n: out.append(n.var.name) if isinstance(n, LetStmt)
                     else None)
    return out


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
@pytest.mark.parametrize("stencil", ["clamped", "shifted"])
def test_deep_chains_lower_with_lets_and_compute_the_right_values(exact, stencil):
    n, size, tile = 7, 40, 8
    s, (A, out) = chain(n, stencil, "tiled", size=size, tile=tile)
    f = tepad.lower(s, [A, out], exact_bounds=exact)["main"]
    names = _lets_of(f)
    # S6 (at the output's tile) is two loops deep; S5 .. S2 enclose a stage and are deeper
    assert sorted(x for x in names if x.endswith(".min")) == \
        ["S2.i.min", "S3.i.min", "S4.i.min", "S5.i.min"], names
    rows = A.shape[0].value
    a = np.random.default_rng(1).standard_normal((rows, size)).astype("float32")
    want = reference(out, {A: a})
    mod = tepad.build(f, bounds_check=True)
    res = np.zeros(tuple(int(d) for d in out.shape), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
def test_lowered_expressions_stay_constant_size_down_a_chain(exact):
    """Every stage at its consumer's tile: without the lets the largest expression grew with
    the depth (a guard naming every enclosing tile loop); with them it does not grow."""
    sizes = []
    for n in (6, 12, 24):
        s, args = chain(n, "clamped", "tiled")
        f = deep_stack.call_with_deep_stack(tepad.lower, s, args, exact_bounds=exact)["main"]
        sizes.append(_largest_statement_expr(f))
    assert sizes[2] == sizes[0], sizes


def test_shallow_stages_and_stages_with_nothing_inside_keep_their_expressions():
    """TVM's compute_at example (C at D's innermost loop, three loops deep): C encloses no
    stage, so its region stays written over the loops."""
    C = te.compute((5, 16), lambda i, j: tir.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    s = te.create_schedule(D.op)
    _, ji = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], ji)
    bm = infer_bound(s.copy().normalize(), offset_lets=True)
    assert not bm.offset_lets
    assert not _lets_of(tepad.lower(s, [D])["main"])


def test_a_stage_reading_a_producer_outside_its_loops_gets_no_let():
    """T2 (four loops deep, T0 inside it) reads T1, which is computed outside T2's loops: a
    let for T2's min would reach T1's bounds, where it is not defined, so T2 keeps its
    expression."""
    n, tile = 64, 8
    A = te.placeholder((n, n), name="A")
    T1 = te.compute((n, n), lambda i, j: A[i, j] + 1, name="T1")
    T0 = te.compute((n, n), lambda i, j: A[i, j] * 3, name="T0")
    T2 = te.compute((n, n), lambda i, j: T1[i, j] * 2 + T0[i, j], name="T2")
    T3 = te.compute((n, n), lambda i, j: T2[i, j] + 1, name="T3")
    out = te.compute((n, n), lambda i, j: T3[i, j] + T1[i, j], name="out")
    s = te.create_schedule(out.op)
    _, jo, _, _ = s[out].tile(out.op.axis[0], out.op.axis[1], tile, tile)
    s[T3].compute_at(s[out], jo)
    s[T1].compute_at(s[out], jo)
    t3_jo = s[T3].tile(T3.op.axis[0], T3.op.axis[1], 4, 4)[1]
    s[T2].compute_at(s[T3], t3_jo)
    t2_jo = s[T2].tile(T2.op.axis[0], T2.op.axis[1], 2, 2)[1]
    s[T0].compute_at(s[T2], t2_jo)
    bm = infer_bound(s.copy().normalize(), offset_lets=True)
    assert not bm.offset_lets
    a = np.random.default_rng(2).standard_normal((n, n)).astype("float32")
    for exact in (False, True):
        mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=exact), bounds_check=True)
        res = np.zeros((n, n), "float32")
        mod(a, res)
        np.testing.assert_allclose(res, reference(out, {A: a}), rtol=1e-5, atol=1e-5)


def test_loop_depth_counts_the_deepest_nest():
    s, args = chain(5, "clamped", "tiled")
    f = tepad.lower(s, args)["main"]
    # the output's 2 tile loops, one tile loop per stage inside, the innermost stage's 2 more
    assert compiler.loop_depth(f.body) == 2 + 4 + 2
    assert compiler.loop_depth(tir.Evaluate(0)) == 0


def test_deep_nests_get_o2s_unroll_threshold_and_no_lsr_and_the_defaults_come_back(
        monkeypatch):
    seen = []
    monkeypatch.setattr(jit.llvm, "set_option", lambda name, opt: seen.append(opt))
    s, args = chain(24, "clamped", "tiled")
    f = tepad.lower(s, args)["main"]
    assert compiler.loop_depth(f.body) > jit.DEEP_NEST_LOOPS
    with compiler.cache_disabled():
        tepad.build(f)
    deep = [f"-unroll-threshold-aggressive={jit.UNROLL_THRESHOLD_O2}", "-disable-lsr=true"]
    back = [f"-unroll-threshold-aggressive={jit.UNROLL_THRESHOLD_O3}", "-disable-lsr=false"]
    assert seen == deep + back
    seen.clear()
    s, args = chain(3, "clamped", "output")
    with compiler.cache_disabled():
        tepad.build(tepad.lower(s, args))
    assert seen == []


@st.composite
def _deep_chains(draw):
    """A chain of 3-6 stencil stages on a small 2-D tensor, each stage tiled (its own tile
    sizes) and computed at its consumer's outer or inner tile loop, reads clamped at the
    border or shifted, in interval or exact mode."""
    n = draw(st.integers(3, 6))
    rows, cols = draw(st.integers(9, 14)), draw(st.integers(5, 9))
    specs = [(draw(st.integers(-1, 2)), draw(st.integers(-1, 1)), draw(st.booleans()))
             for _ in range(n)]
    tiles = [(draw(st.integers(3, 5)), draw(st.integers(2, 4))) for _ in range(n)]
    at_inner = [draw(st.booleans()) for _ in range(n)]
    return n, rows, cols, specs, tiles, at_inner, draw(st.booleans())


def _clamp(e, hi):
    return tir.max(tir.min(e, hi), 0)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(_deep_chains())
def test_random_deep_chains_match_the_reference(params):
    """Randomized differential test of the lets against the numpy oracle: every draw nests
    stages three or more loops deep, so most draws name offsets."""
    n, rows, cols, specs, tiles, at_inner, exact = params
    A = te.placeholder((rows, cols), "float32", name="A")
    t, stages = A, []
    for k, (di, dj, clamp) in enumerate(specs):
        src = t
        if clamp:
            def body(i, j, src=src, di=di, dj=dj):
                return src[i, j] * 0.5 + src[_clamp(i + di, rows - 1), _clamp(j + dj, cols - 1)]
            t = te.compute((rows, cols), body, name=f"S{k + 1}")
        else:
            def body(i, j, src=src, di=di, dj=dj):
                inside = tir.all(i + di >= 0, i + di < rows)
                return src[i, j] * 0.5 + src[tir.if_then_else(inside, i + di, i), j]
            t = te.compute((rows, cols), body, name=f"S{k + 1}")
        stages.append(t)
    s = te.create_schedule(t.op)
    loops = {}
    for st_, (ti, tj) in zip(stages, tiles):
        io, jo, _, _ = s[st_].tile(st_.op.axis[0], st_.op.axis[1], ti, tj)
        loops[st_] = (io, jo)
    for k in range(n - 1, 0, -1):
        cons = stages[k]
        s[stages[k - 1]].compute_at(s[cons], loops[cons][1 if at_inner[k] else 0])
    a = np.random.default_rng(n * 131 + rows).standard_normal((rows, cols)).astype("float32")
    want = reference(t, {A: a})
    mod = tepad.build(tepad.lower(s, [A, t], exact_bounds=exact), bounds_check=True)
    res = np.zeros((rows, cols), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, want, rtol=1e-4, atol=1e-4)


def test_a_piecewise_min_is_named_once_even_in_a_shallow_stage():
    """Exact mode bounds a clipped tile by a max or a select over the enclosing loops;
    written into every index and guard of the stage, each Simplify pass took seconds over the
    copies (this chain: 2.5 s in the build's Simplify). A piecewise min gets a let even where
    a linear one would not (S1 encloses no stage and is two loops deep)."""
    rows, cols = 14, 9
    A = te.placeholder((rows, cols), "float32", name="A")
    t, stages = A, []
    for k in range(3):
        src = t

        def body(i, j, src=src):
            return src[i, j] * 0.5 + src[tir.max(tir.min(i - 1, rows - 1), 0),
                                         tir.max(tir.min(j - 1, cols - 1), 0)]
        t = te.compute((rows, cols), body, name=f"S{k + 1}")
        stages.append(t)
    s = te.create_schedule(t.op)
    outer = {st: s[st].tile(st.op.axis[0], st.op.axis[1], 3, 2)[0] for st in stages}
    for k in range(2, 0, -1):
        s[stages[k - 1]].compute_at(s[stages[k]], outer[stages[k]])
    f = tepad.lower(s, [A, t], exact_bounds=True)["main"]
    lets = {}
    post_order_visit(f.body, lambda n: lets.setdefault(n.var.name, n.value)
                     if isinstance(n, LetStmt) else None)
    piecewise = [v for name, v in lets.items() if name.endswith(".min") and
                 ("if_then_else" in str(v) or "T.max" in str(v))]
    assert len(piecewise) == 2, lets
    # the select is written once per stage, in its let, not in the stores' indices
    stores = []
    post_order_visit(f.body, lambda n: stores.append(str(n.indices)) if
                     type(n).__name__ == "BufferStore" else None)
    assert not any("if_then_else" in x for x in stores), stores
    a = np.random.default_rng(5).standard_normal((rows, cols)).astype("float32")
    mod = tepad.build(f, bounds_check=True)
    res = np.zeros((rows, cols), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, reference(t, {A: a}), rtol=1e-4, atol=1e-4)
