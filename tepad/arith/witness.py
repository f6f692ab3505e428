"""Witnesses: concrete values of the variables that satisfy every known fact.

A proof that fails is the expensive case of the simplifier: ``BoundProofs._refine`` relaxes
variables with symbolic bounds one at a time until its budget runs out. A *witness* (an
assignment of integers to the variables of an expression and of every fact linked to them,
under which every one of those facts holds) gives values the expression really takes; when
such values already rule out what a proof needs (``d <= 0`` while ``d`` is 3 at a witness),
the search cannot succeed and is skipped. Witnesses only ever skip searches that would fail,
so the simplifier's answers are unchanged; they make failing proofs cost a few evaluations.

Assignments tried: every variable at its smallest value, at its largest value, and at the
extreme that increases / decreases the expression's linear form (the variables with symbolic
bounds are set in dependency order, inside the bounds their already-set variables give).
An expression or fact that cannot be evaluated (a load, a call, a let, a float) gives no
witness.
"""
from __future__ import annotations

import math

from ..tir import expr as E
from .const_bound import default_bound, is_inf


class _NoValue(Exception):
    """The expression cannot be evaluated to an integer here."""


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BIN = {
    E.Add: lambda a, b: a + b,
    E.Sub: lambda a, b: a - b,
    E.Mul: lambda a, b: a * b,
    E.Min: min,
    E.Max: max,
    E.LT: lambda a, b: int(a < b),
    E.LE: lambda a, b: int(a <= b),
    E.GT: lambda a, b: int(a > b),
    E.GE: lambda a, b: int(a >= b),
    E.EQ: lambda a, b: int(a == b),
    E.NE: lambda a, b: int(a != b),
}


def evaluate(e, env, memo=None):
    """The integer value of ``e`` with vars from ``env``; raises ``_NoValue`` otherwise."""
    if memo is None:
        memo = {}
    key = id(e)
    hit = memo.get(key)
    if hit is not None and hit[0] is e:
        return hit[1]
    v = _eval(e, env, memo)
    memo[key] = (e, v)
    return v


def _eval(e, env, memo):
    t = type(e)
    if t is E.IntImm:
        return e.value
    if isinstance(e, E.Var):
        if is_inf(e) or e not in env:
            raise _NoValue(e)
        return env[e]
    f = _BIN.get(t)
    if f is not None:
        return f(evaluate(e.a, env, memo), evaluate(e.b, env, memo))
    if t is E.FloorDiv or t is E.FloorMod or t is E.Div or t is E.Mod:
        a, b = evaluate(e.a, env, memo), evaluate(e.b, env, memo)
        if b == 0:
            raise _NoValue(e)
        if t is E.FloorDiv:
            return a // b
        if t is E.FloorMod:
            return a % b
        q = _tdiv(a, b)
        return q if t is E.Div else a - q * b
    if t is E.And:
        return int(bool(evaluate(e.a, env, memo)) and bool(evaluate(e.b, env, memo)))
    if t is E.Or:
        return int(bool(evaluate(e.a, env, memo)) or bool(evaluate(e.b, env, memo)))
    if t is E.Not:
        return int(not evaluate(e.a, env, memo))
    if t is E.Call and e.op == "tir.likely" and len(e.args) == 1:
        return evaluate(e.args[0], env, memo)
    if t is E.Select:
        c = evaluate(e.condition, env, memo)
        return evaluate(e.true_value if c else e.false_value, env, memo)
    raise _NoValue(e)


def _num(x):
    if x is None or (isinstance(x, float) and math.isinf(x)):
        return None
    return int(x)


def _linked(ana, vs):
    """``vs`` plus every var the facts about them mention, transitively; and those facts."""
    out, todo = set(vs), list(vs)
    while todo:
        v = todo.pop()
        exprs = list(ana.symbolic_lower_bounds(v)) + list(ana.symbolic_upper_bounds(v))
        sub, rng = ana.binding_of(v), ana.range_of(v)
        if sub is not None:
            exprs.append(sub)
        if rng is not None:
            exprs += [x for x in (rng.min_value, rng.max_value) if not is_inf(x)]
        for f in ana.facts:
            fv = _vars(f)
            if v in fv:
                exprs.append(f)
        for x in exprs:
            for w in _vars(x):
                if w not in out:
                    out.add(w)
                    todo.append(w)
    facts = [f for f in ana.facts if _vars(f) & out]
    return out, facts


_VARS: dict = {}


def _vars(e):
    """The Vars of ``e`` (a frozenset; remembered per node, shared sub-expressions walked
    once)."""
    hit = _VARS.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    acc = set()
    todo = [e]
    seen = set()        # ids of nodes walked: a shared sub-expression is walked once
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, E.Var):
            if not is_inf(x):
                acc.add(x)
        elif isinstance(x, E.Node):
            for v in x.field_values():
                if isinstance(v, E.Node):
                    todo.append(v)
                elif isinstance(v, tuple):
                    todo.extend(y for y in v if isinstance(y, E.Node))
    r = frozenset(acc)
    if len(_VARS) > 20000:
        _VARS.clear()
    _VARS[id(e)] = (e, r)
    return r


def _lo_hi(ana, v, env):
    """The range of ``v`` given the vars already in ``env`` (None: unbounded side)."""
    clo, chi = ana.const_bound_of(v, (-math.inf, math.inf))
    lo, hi = _num(clo), _num(chi)
    if isinstance(v, E.SizeVar):
        lo = 0 if lo is None else max(lo, 0)
    lows = list(ana.symbolic_lower_bounds(v))
    highs = list(ana.symbolic_upper_bounds(v))
    rng = ana.range_of(v)
    if rng is not None:
        if not is_inf(rng.min_value):
            lows.append(rng.min_value)
        if not is_inf(rng.max_value):
            highs.append(rng.max_value)
    for x in lows:
        try:
            y = evaluate(x, env)
        except _NoValue:
            continue
        lo = y if lo is None else max(lo, y)
    for x in highs:
        try:
            y = evaluate(x, env)
        except _NoValue:
            continue
        hi = y if hi is None else min(hi, y)
    return lo, hi


def _order(ana, vs):
    """``vs`` with each var after the vars its symbolic bounds mention (where possible)."""
    deps = {}
    for v in vs:
        d = set()
        for x in list(ana.symbolic_lower_bounds(v)) + list(ana.symbolic_upper_bounds(v)):
            d |= _vars(x)
        rng = ana.range_of(v)
        if rng is not None:
            for x in (rng.min_value, rng.max_value):
                if not is_inf(x):
                    d |= _vars(x)
        sub = ana.binding_of(v)
        if sub is not None:
            d |= _vars(sub)
        d.discard(v)
        deps[v] = d & vs
    out, done = [], set()
    rest = sorted(vs, key=lambda v: v.name)
    while rest:
        ready = [v for v in rest if deps[v] <= done]
        if not ready:
            ready = rest[:1]        # a cycle (facts such as i < n - 4*io): break it anywhere
        for v in ready:
            out.append(v)
            done.add(v)
        rest = [v for v in rest if v not in done]
    return out


def _assign(ana, order, pick, base=None):
    """An environment choosing, var by var, ``pick(v, lo, hi)`` inside its current range.

    From a ``base`` environment (where every fact holds), the vars not set yet keep their
    base values while the range of the next one is computed: moving one var at a time from a
    valid point keeps the facts that tie the vars together (``a + b <= 8``) satisfiable."""
    env = dict(base) if base else {}
    for v in order:
        sub = ana.binding_of(v)
        if sub is not None:
            env[v] = evaluate(sub, env)
            continue
        lo, hi = _lo_hi(ana, v, env)
        if lo is not None and hi is not None and lo > hi:
            env[v] = lo         # earlier choices left no room: ``_holds`` will say
            continue
        env[v] = pick(v, lo, hi)
    return env


def _holds(ana, env, vs, facts):
    """Every fact about the vars of ``env`` holds there."""
    for v in vs:
        x = env[v]
        clo, chi = ana.const_bound_of(v, (-math.inf, math.inf))
        if x < clo or x > chi:
            return False
        if isinstance(v, E.SizeVar) and x < 0:
            return False
        dlo, dhi = default_bound(v.dtype)
        if x < dlo or x > dhi:
            return False
        sub = ana.binding_of(v)
        if sub is not None and evaluate(sub, env) != x:
            return False
        for lo in ana.symbolic_lower_bounds(v):
            if x < evaluate(lo, env):
                return False
        for hi in ana.symbolic_upper_bounds(v):
            if x > evaluate(hi, env):
                return False
        rng = ana.range_of(v)
        if rng is not None:
            if not is_inf(rng.min_value) and x < evaluate(rng.min_value, env):
                return False
            if not is_inf(rng.max_value) and x > evaluate(rng.max_value, env):
                return False
    for f in facts:
        if not evaluate(f, env):
            return False
    return True


def _low(v, lo, hi):
    if lo is not None:
        return lo
    return 0 if hi is None or hi >= 0 else hi


def _high(v, lo, hi):
    if hi is not None:
        return hi
    return 0 if lo is None or lo <= 0 else lo


def witness_values(ana, d, coeffs=None):
    """Values of ``d`` at assignments satisfying every fact linked to ``d`` (maybe none).

    ``coeffs`` maps vars to the sign of their coefficient in ``d``'s linear form (guides two
    of the assignments). Yields ints, one per valid witness."""
    try:
        dv = _vars(d)
    except Exception:     # pragma: no cover - defensive
        return
    if not dv:
        return
    vs, facts = _linked(ana, dv)
    order = _order(ana, vs)
    coeffs = coeffs or {}
    picks = [_low, _high,
             lambda v, lo, hi: _high(v, lo, hi) if coeffs.get(v, 0) > 0 else _low(v, lo, hi),
             lambda v, lo, hi: _low(v, lo, hi) if coeffs.get(v, 0) > 0 else _high(v, lo, hi)]
    if not coeffs:
        picks = picks[:2]
    seen = set()
    base = None
    for pick in picks:
        try:
            env = _assign(ana, order, pick, base)
            key = tuple(env[v] for v in order)
            if key in seen:
                continue
            seen.add(key)
            if not _holds(ana, env, vs, facts):
                continue
            if base is None:
                base = env
            yield evaluate(d, env)
        except (_NoValue, ValueError, OverflowError):
            continue


free_vars = _vars

__all__ = ["witness_values", "evaluate", "free_vars"]
