"""Randomized check: simplify keeps values; eval_set and const_int_bound contain them."""
import math

import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from tepad import tir
from tepad.arith import Analyzer, eval_set, POS_INF, NEG_INF


def ev(e, env):
    """Evaluate an integer/bool expression with Python ints (floor and trunc semantics)."""
    if isinstance(e, tir.IntImm):
        return e.value
    if isinstance(e, tir.Var):
        return env[e]
    t = type(e)
    if t is tir.Select:
        return ev(e.true_value, env) if ev(e.condition, env) else ev(e.false_value, env)
    if t is tir.Call and e.op == "tir.if_then_else":
        return ev(e.args[1], env) if ev(e.args[0], env) else ev(e.args[2], env)
    if t is tir.Cast:
        return ev(e.value, env)
    if t is tir.Not:
        return int(not ev(e.a, env))
    a, b = ev(e.a, env), ev(e.b, env)
    if t is tir.Add:
        return a + b
    if t is tir.Sub:
        return a - b
    if t is tir.Mul:
        return a * b
    if t is tir.FloorDiv:
        return a // b
    if t is tir.FloorMod:
        return a % b
    if t is tir.Div:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if t is tir.Mod:
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    if t is tir.Min:
        return min(a, b)
    if t is tir.Max:
        return max(a, b)
    cmp = {tir.LT: a < b, tir.LE: a <= b, tir.GT: a > b, tir.GE: a >= b, tir.EQ: a == b,
           tir.NE: a != b, tir.And: bool(a and b), tir.Or: bool(a or b)}
    return int(cmp[t])


VARS = [tir.Var("x"), tir.Var("y"), tir.Var("z")]


def exprs():
    leaf = st.one_of(st.sampled_from(VARS), st.integers(-9, 9).map(lambda v: tir.const(v)))

    def extend(children):
        pos = st.integers(1, 9)
        return st.one_of(
            st.tuples(children, children).map(lambda p: p[0] + p[1]),
            st.tuples(children, children).map(lambda p: p[0] - p[1]),
            st.tuples(children, st.integers(-4, 4)).map(lambda p: p[0] * p[1]),
            st.tuples(children, children).map(lambda p: p[0] * p[1]),
            st.tuples(children, pos).map(lambda p: tir.floordiv(p[0], p[1])),
            st.tuples(children, pos).map(lambda p: tir.floormod(p[0], p[1])),
            st.tuples(children, pos).map(lambda p: tir.truncdiv(p[0], p[1])),
            st.tuples(children, pos).map(lambda p: tir.truncmod(p[0], p[1])),
            st.tuples(children, children).map(lambda p: tir.min(p[0], p[1])),
            st.tuples(children, children).map(lambda p: tir.max(p[0], p[1])),
            st.tuples(children, children, children, children).map(
                lambda p: tir.select(p[0] < p[1], p[2], p[3])),
            st.tuples(children, children, children).map(
                lambda p: tir.if_then_else(p[0] >= p[1], p[2], p[0])),
        )
    return st.recursive(leaf, extend, max_leaves=8)


ranges = st.lists(st.tuples(st.integers(-6, 6), st.integers(0, 6)), min_size=3, max_size=3)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=exprs(), rs=ranges, data=st.data())
def test_random_expressions(e, rs, data):
    doms = {v: (lo, lo + ext) for v, (lo, ext) in zip(VARS, rs)}
    ana = Analyzer()
    for v, (lo, hi) in doms.items():
        ana.bind(v, tir.Range(lo, hi + 1))
    simp = ana.simplify(e)
    s = eval_set(e, {v: tir.Range(lo, hi + 1) for v, (lo, hi) in doms.items()})
    b = ana.const_int_bound(e)
    for _ in range(5):
        env = {v: data.draw(st.integers(lo, hi)) for v, (lo, hi) in doms.items()}
        try:
            want = ev(e, env)
        except ZeroDivisionError:
            return
        assert ev(simp, env) == want, (e, simp, env)
        lo, hi = s.min(), s.max()
        if lo is not NEG_INF:
            assert ev(lo, env) <= want, (e, s, env)
        if hi is not POS_INF:
            assert want <= ev(hi, env), (e, s, env)
        assert b.min_value <= want <= b.max_value, (e, b, env)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=exprs(), data=st.data())
def test_random_unbound_simplify_keeps_value(e, data):
    """No ranges known: simplification must hold for all values (incl. negatives)."""
    ana = Analyzer()
    simp = ana.simplify(e)
    again = ana.simplify(simp)
    for _ in range(5):
        env = {v: data.draw(st.integers(-40, 40)) for v in VARS}
        try:
            want = ev(e, env)
        except ZeroDivisionError:
            return
        assert ev(simp, env) == want, (e, simp, env)
        assert ev(again, env) == want


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=exprs(), rs=ranges, data=st.data())
def test_random_symbolic_point_sets(e, rs, data):
    """Only x varies; y and z stay symbolic points: endpoints evaluated at the point."""
    x = VARS[0]
    lo, ext = rs[0]
    s = eval_set(e, {x: tir.Range(lo, lo + ext + 1)})
    for _ in range(5):
        env = {v: data.draw(st.integers(-20, 20)) for v in VARS}
        env[x] = data.draw(st.integers(lo, lo + ext))
        try:
            want = ev(e, env)
            l2 = None if s.min() is NEG_INF else ev(s.min(), env)
            h2 = None if s.max() is POS_INF else ev(s.max(), env)
        except ZeroDivisionError:
            return
        if l2 is not None:
            assert l2 <= want, (e, s, env)
        if h2 is not None:
            assert want <= h2, (e, s, env)
