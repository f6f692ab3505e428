"""``Analyzer``: the facade over bounds, sets, proofs and simplification (TVM's arith.Analyzer).

Facts the analyzer knows:
- ``bind(var, Range)``: ``var`` ranges over the range (constant bounds; symbolic endpoints are
  kept too and used by proofs); ``bind(var, expr)``: ``var`` equals ``expr`` (the simplifier
  substitutes it). Binding again overrides.
- ``update(var, ConstIntBound)``: an extra bound, intersected with what is known
  (``override=True`` replaces it).
- ``constraint_scope(cond)``: inside the ``with``, ``cond`` holds. Its conjuncts are remembered
  verbatim (so the same condition simplifies to True), and every linear integer comparison
  ``sum(k*t) + c <op> ...`` gives bounds to each plain var in it (``i < n - 4*io`` bounds ``i``
  above by ``n - 4*io - 1`` and ``io`` by the matching floor division).

Simplification results are memoized per *context id* of the facts (``.context``): any change
of the facts (including direct writes to the fact containers) selects another memo table,
and returning to the same facts (leaving a scope, a later pass over the same loop nest)
reuses the old one. Memoized answers are exactly those of an unmemoized run.
"""
from __future__ import annotations

import contextlib

from ..tir import expr as E
from ..tir import dtype as dt
from ..tir.function import PrimFunc
from ..tir.stmt import Stmt
from ..tir.structural import structural_equal
from . import int_set
from .const_bound import (BoundEvaluator, ConstIntBound, INF, b_intersect, to_num, is_inf)
from .int_set import IntSet, eval_set_with, to_int_set, _norm_dom
from .modular import ModularSet, modular_set
from .rewrite import Simplifier
from .rule_helpers import is_sint
from .canonical import Key, Linear
from .context import (MEMO, TrackedDict, TrackedList, bound_sig, context_id, expr_sig,
                      exprs_sig, range_sig)
from .stmt_simplify import simplify_stmt_or_func

_SAME = object()     # memo marker: the simplifier returned its argument unchanged


def _as_var(v):
    if hasattr(v, "var") and hasattr(v, "dom"):     # IterVar
        return v.var
    if not isinstance(v, E.Var):
        raise TypeError(f"expected a Var or IterVar, got {v!r}")
    return v


class Analyzer:
    """Integer analysis with a set of known facts about variables."""

    def __init__(self):
        self._ctx = None            # context id of the facts, computed lazily (see .context)
        self._bounds = TrackedDict(self, bound_sig)  # Var -> (lo, hi) numbers (ints or +/-inf)
        self._subst = TrackedDict(self, expr_sig)    # Var -> PrimExpr (bind to an expression)
        self._sym_lo = TrackedDict(self, exprs_sig)  # Var -> tuple of symbolic lower bounds
        self._sym_hi = TrackedDict(self, exprs_sig)  # Var -> tuple of symbolic upper bounds
        self._ranges = TrackedDict(self, range_sig)  # Var -> IntSet (bound ranges, int_set)
        self._facts = TrackedList(self)     # simplified conditions known to hold
        #: set while a proof runs nested inside another: it then uses constant bounds only
        self.constant_bounds_only = False

    def _touch(self):
        """The facts changed: forget their context id (recomputed when next needed)."""
        self._ctx = None

    def _context(self) -> int:
        """The context id of the current facts (equal ids exactly for equal facts)."""
        c = self._ctx
        if c is None:
            c = self._ctx = context_id(self)
        return c

    # --- facts -------------------------------------------------------------------------------
    def bind(self, var, value, allow_override: bool = True):
        """``var`` ranges over ``value`` (a Range or IntSet) or equals it (an expression)."""
        var = _as_var(var)
        for d in (self._bounds, self._subst, self._sym_lo, self._sym_hi, self._ranges):
            d.pop(var, None)
        if isinstance(value, (E.Range, IntSet)):
            s = to_int_set(value)
            if isinstance(value, E.Range):
                mn = self.simplify(value.min)
                mx = self.simplify(E.sub(E.add(mn, value.extent), 1))
            else:
                mn = value.min_value if is_inf(value.min_value) else self.simplify(value.min_value)
                mx = value.max_value if is_inf(value.max_value) else self.simplify(value.max_value)
            lo = -INF if is_inf(mn) else self._bound_num(mn)[0]
            hi = INF if is_inf(mx) else self._bound_num(mx)[1]
            self._bounds[var] = (lo, hi)
            self._ranges[var] = IntSet(mn, mx) if not s.is_nothing() else s
            if not is_inf(mn) and not isinstance(mn, E.IntImm):
                self._sym_lo[var] = (mn,)
            if not is_inf(mx) and not isinstance(mx, E.IntImm):
                self._sym_hi[var] = (mx,)
        else:
            e = self.simplify(E.convert(value))
            self._subst[var] = e
            self._bounds[var] = self._bound_num(e)
            self._ranges[var] = IntSet(e, e)

    def update(self, var, bound, override: bool = False):
        """Add a constant bound (``ConstIntBound`` or ``(lo, hi)``) for ``var``."""
        var = _as_var(var)
        if isinstance(bound, ConstIntBound):
            b = bound.as_tuple()
        else:
            b = (to_num(bound[0]), to_num(bound[1]))
        old = self._bounds.get(var)
        self._bounds[var] = b if (old is None or override) else b_intersect(old, b)

    # --- reading the facts (the rewrite rules, provers and passes) ------------------------------
    def const_bound_of(self, var, default=None):
        """The constant ``(lo, hi)`` bound known for ``var`` (numbers, +/-inf), else
        ``default``."""
        return self._bounds.get(var, default)

    def binding_of(self, var):
        """The expression ``var`` is bound to (``bind(var, expr)``), else None."""
        return self._subst.get(var)

    def symbolic_lower_bounds(self, var) -> tuple:
        """The expressions known to be <= ``var`` (a let's value, a loop's min, ...)."""
        return self._sym_lo.get(var, ())

    def symbolic_upper_bounds(self, var) -> tuple:
        """The expressions known to be >= ``var``."""
        return self._sym_hi.get(var, ())

    def range_of(self, var):
        """The IntSet ``var`` was bound to (``bind(var, Range)``), else None."""
        return self._ranges.get(var)

    @property
    def facts(self):
        """The simplified conditions known to hold (read only: add with ``add_constraint``)."""
        return self._facts

    def has_symbolic_bounds(self) -> bool:
        """Whether some var has a symbolic lower or upper bound."""
        return bool(self._sym_lo or self._sym_hi)

    def symbolically_bounded_vars(self) -> set:
        """The vars with a symbolic lower or upper bound."""
        return set(self._sym_lo) | set(self._sym_hi)

    def has_var_facts(self) -> bool:
        """Whether some var is bound to an expression or a range, or bounded symbolically."""
        return bool(self._subst or self._sym_lo or self._sym_hi or self._ranges)

    def context_id(self) -> int:
        """The id of the current facts: equal for equal facts, never reused (memo keys)."""
        return self._context()

    # --- changing the facts ---------------------------------------------------------------------
    def set_const_bound(self, var, bound) -> None:
        """``var``'s constant bound is ``bound`` (``(lo, hi)`` numbers), replacing any."""
        self._bounds[var] = bound

    def set_symbolic_bounds(self, var, lows: tuple, highs: tuple) -> None:
        """``var``'s symbolic bounds are ``lows`` / ``highs`` (tuples of expressions),
        replacing any."""
        self._sym_lo[var] = lows
        self._sym_hi[var] = highs

    @contextlib.contextmanager
    def const_bound_scope(self, var, bound):
        """Inside the ``with`` block ``var``'s constant bound is ``bound`` (None: left as it
        is); afterwards the facts, and their context id, are exactly as before."""
        old = self._bounds.get(var)
        ctx = self._ctx
        if bound is not None:
            self._bounds[var] = bound
        try:
            yield self
        finally:
            if old is None:
                self._bounds.pop(var, None)
            else:
                self._bounds[var] = old
            if ctx is not None:
                self._ctx = ctx      # the facts are exactly those of `ctx` again

    def snapshot(self):
        """The current facts, for ``restore``."""
        return self._snapshot()

    def restore(self, snap) -> None:
        """Facts exactly as at ``snapshot`` time (and their context id, if known then)."""
        self._restore(snap)

    def add_constraint(self, cond, simp=None) -> None:
        """``cond`` is known to hold from now on (``simp``: the Simplifier that already
        simplified ``cond``, whose memo is reused)."""
        self._add_constraint(cond, simp)

    def _snapshot(self):
        return (self._bounds.state(), self._subst.state(), self._sym_lo.state(),
                self._sym_hi.state(), self._ranges.state(), list(self._facts), self._ctx)

    def _restore(self, snap):
        """Facts exactly as at ``_snapshot`` time (and their context id, if known then)."""
        bounds, subst, sym_lo, sym_hi, ranges, facts, ctx = snap
        self._bounds = TrackedDict(self, bound_sig, *bounds)
        self._subst = TrackedDict(self, expr_sig, *subst)
        self._sym_lo = TrackedDict(self, exprs_sig, *sym_lo)
        self._sym_hi = TrackedDict(self, exprs_sig, *sym_hi)
        self._ranges = TrackedDict(self, range_sig, *ranges)
        self._facts = TrackedList(self, facts)
        self._ctx = ctx

    @contextlib.contextmanager
    def constraint_scope(self, cond, simp=None):
        """Inside the ``with`` block, ``cond`` is known to hold (``simp``: the Simplifier that
        already simplified ``cond``, whose memo is reused)."""
        snap = self._snapshot()
        try:
            self._add_constraint(E.convert(cond) if simp is None else cond, simp)
            yield self
        finally:
            self._restore(snap)

    @contextlib.contextmanager
    def bind_scope(self, var, value):
        """``bind`` for the duration of a ``with`` block (used by statement passes)."""
        snap = self._snapshot()
        try:
            self.bind(var, value)
            yield self
        finally:
            self._restore(snap)

    @contextlib.contextmanager
    def bind_scope_many(self, bindings):
        """``bind`` of every ``{var: value}`` item for the duration of a ``with`` block."""
        snap = self._snapshot()
        try:
            for var, value in bindings.items():
                self.bind(var, value)
            yield self
        finally:
            self._restore(snap)

    def _add_constraint(self, cond, simp=None):
        c = self.simplify(cond) if simp is None else cond
        conj = []

        def flat(x):
            if isinstance(x, E.And):
                flat(x.a)
                flat(x.b)
            elif isinstance(x, E.Call) and str(x.op) == "tir.likely" and x.args:
                flat(x.args[0])         # likely(c) is a hint: c holds all the same
            else:
                conj.append(x)
        flat(c)
        for x in conj:
            if isinstance(x, E.IntImm):
                continue
            self._facts.append(x)
            if isinstance(x, E.CmpOp) and is_sint(x.a.dtype):
                self._add_cmp(x, simp)

    def _add_cmp(self, x, simp=None):
        s = simp if simp is not None else Simplifier(self)
        try:
            d = s._lin(x.a, False) - s._lin(x.b, False)
        except Exception:     # pragma: no cover - defensive
            return
        t = type(x)
        forms = []                       # linear forms known to be <= 0
        if t is E.LT:
            forms.append(d + _c(d, 1))
        elif t is E.LE:
            forms.append(d)
        elif t is E.GT:
            forms.append(d.scale(-1) + _c(d, 1))
        elif t is E.GE:
            forms.append(d.scale(-1))
        elif t is E.EQ:
            forms += [d, d.scale(-1)]
        new_lo, new_hi = {}, {}
        for f in forms:
            for term, k in f.items():
                if not isinstance(term, E.Var) or is_inf(term):
                    continue
                rest = f.copy()
                rest.add_term(term, -k)
                try:
                    if k > 0:       # k*v <= -rest  ->  v <= floor(-rest / k)
                        neg = rest.scale(-1).to_expr()
                        ub = neg if k == 1 else E.FloorDiv(neg, E.IntImm(k, neg.dtype))
                        ub = s.simp(ub)
                        lo, hi = s.bound(ub)
                        cur = self._bounds.get(term, (-INF, INF))
                        new_hi.setdefault(term, []).append((ub, hi))
                        self._bounds[term] = (cur[0], min(cur[1], hi))
                    else:           # k*v + rest <= 0, k<0  ->  v >= ceil(rest / -k)
                        m = -k
                        rr = rest.to_expr()
                        lb = rr if m == 1 else E.FloorDiv(
                            E.Add(rr, E.IntImm(m - 1, rr.dtype)), E.IntImm(m, rr.dtype))
                        lb = s.simp(lb)
                        lo, hi = s.bound(lb)
                        cur = self._bounds.get(term, (-INF, INF))
                        new_lo.setdefault(term, []).append((lb, lo))
                        self._bounds[term] = (max(cur[0], lo), cur[1])
                except Exception:
                    continue
        for v, lst in new_hi.items():
            extra = tuple(e for e, _ in lst if not isinstance(e, E.IntImm))
            if extra:
                self._sym_hi[v] = self._sym_hi.get(v, ()) + extra
        for v, lst in new_lo.items():
            extra = tuple(e for e, _ in lst if not isinstance(e, E.IntImm))
            if extra:
                self._sym_lo[v] = self._sym_lo.get(v, ()) + extra

    # --- queries -----------------------------------------------------------------------------
    def simplify(self, expr, steps: int = 2):
        """Simplified expression with the same value (given the known facts).

        A Stmt or PrimFunc is simplified with the statement Simplify pass."""
        if isinstance(expr, (Stmt, PrimFunc)):
            return simplify_stmt_or_func(expr, self)
        expr = E.convert(expr)
        r = self._simp_once(expr)
        if steps > 1 and r is not expr and not isinstance(r, E.ConstExpr):
            r = self._simp_once(r)
        return r

    def _simp_once(self, expr):
        """``Simplifier(self).simp(expr)`` (a fresh session), memoized per context.

        A fresh session's result depends only on the facts (the context id), ``constant_bounds_only`` and
        the structure of ``expr``, so a structurally equal expression gets the same result;
        an unchanged expression is returned as the caller's own object, as a fresh session
        would.
        """
        if not isinstance(expr, E.PrimExpr) or isinstance(expr, (E.ConstExpr, E.Var)):
            return Simplifier(self).simp(expr)
        table = MEMO.table((self._context(), self.constant_bounds_only))
        key = Key(expr)
        hit = table.get(key)
        if hit is not None:
            return expr if hit is _SAME else hit
        r = Simplifier(self).simp(expr)
        table[key] = _SAME if r is expr else r
        return r

    def _bound_num(self, expr):
        return BoundEvaluator(self).bound(E.convert(expr))

    def bound_numbers(self, expr) -> tuple:
        """Constant ``(lo, hi)`` bounds of ``expr`` as numbers (+/-inf when unbounded), from
        the facts alone (``const_int_bound`` also tries the simplified expression)."""
        return self._bound_num(expr)

    def const_int_bound(self, expr) -> ConstIntBound:
        """Constant bounds of an integer expression (infinite sides are the sentinels)."""
        expr = E.convert(expr)
        b = self._bound_num(expr)
        if isinstance(expr, E.PrimExpr) and not isinstance(expr, E.ConstExpr) and \
                (dt.is_int(expr.dtype) or dt.is_bool(expr.dtype)):
            try:
                s = self.simplify(expr)
                if s is not expr:
                    b2 = self._bound_num(s)
                    b = b_intersect(b, b2)
            except Exception:   # pragma: no cover - bounds must never fail
                pass
        return ConstIntBound(*b)

    def can_prove(self, cond) -> bool:
        """True only when ``cond`` certainly holds under the known facts."""
        cond = E.convert(cond)
        r = self.simplify(cond)
        return isinstance(r, E.IntImm) and bool(r.value)

    def can_prove_equal(self, a, b) -> bool:
        """True only when ``a == b`` holds for every value of the free variables under the
        facts bound here (False means unproven, not unequal)."""
        a, b = E._match(a, b)
        if is_sint(a.dtype):
            d = self.simplify(E.Sub(a, b))
            return isinstance(d, E.IntImm) and d.value == 0
        return structural_equal(self.simplify(a), self.simplify(b))

    def canonical_simplify(self, expr):
        """TVM's canonical-form simplification: tepad's one simplifier (``simplify``)."""
        return self.simplify(expr)

    def rewrite_simplify(self, expr):
        """TVM's rewrite-rule simplification: tepad's one simplifier (``simplify``)."""
        return self.simplify(expr)

    def modular_set(self, expr) -> ModularSet:
        """``coeff * k + base`` that ``expr`` (affine in its variables) is known to be."""
        return modular_set(expr)

    def int_set(self, expr, dom_map=None) -> IntSet:
        """IntSet of ``expr`` with vars over ``dom_map`` (default: the ranges bound here)."""
        dom = dict(self._ranges) if dom_map is None else _norm_dom(dom_map)
        return eval_set_with(self, expr, dom)


def _c(lin, v):
    return Linear.of_const(lin.dtype, v)


# IntSet's constructors that take no analyzer simplify with a fresh one (see int_set).
int_set.use_analyzer_class(Analyzer)

__all__ = ["Analyzer"]
