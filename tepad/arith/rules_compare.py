"""Simplifier rules for comparisons and ``and`` / ``or`` / ``not``."""
from __future__ import annotations

from ..tir import expr as E
from ..tir import dtype as dt
from .canonical import Linear, Overflow, dag_equal as structural_equal
from .negation import negate
from .rule_helpers import const_false, const_true, is_sint

_MIRROR = {E.LT: E.GT, E.GT: E.LT, E.LE: E.GE, E.GE: E.LE, E.EQ: E.EQ, E.NE: E.NE}


class CompareLogicRules:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _cmp(self, e):
        t = type(e)
        a, b = self.simp(e.a), self.simp(e.b)
        if isinstance(a, E.ConstExpr) and isinstance(b, E.ConstExpr) and a.dtype == b.dtype:
            return E._cmp(t, a, b)
        if not is_sint(a.dtype):
            if structural_equal(a, b) and dt.parse(a.dtype).is_integer:
                return const_true() if t in (E.EQ, E.LE, E.GE) else const_false()
            return e if (a is e.a and b is e.b) else t(a, b)
        try:
            dl = self._lin(a, False) - self._lin(b, False)
            d = dl.to_expr()
        except Overflow:
            return e if (a is e.a and b is e.b) else t(a, b)
        decided = self._decide(t, d)
        if decided is not None:
            return const_true() if decided else const_false()
        # normalise when terms cancelled: (terms of a - b) op -const
        la_n = len(self._lin(a, False).terms)
        lb_n = len(self._lin(b, False).terms)
        if len(dl.terms) < la_n + lb_n and dl.terms:
            try:
                if any(k > 0 for k in dl.terms.values()):
                    a = Linear(dl.dtype, dl.terms).to_expr()
                    b = self._const(-dl.const, dl.dtype)
                else:
                    a = Linear(dl.dtype, dl.terms).scale(-1).to_expr()
                    b = self._const(dl.const, dl.dtype)
                    t = _MIRROR[t]
            except Overflow:
                pass
        r = e if (a is e.a and b is e.b and t is type(e)) else t(a, b)
        return self._check_facts(r)

    def _decide(self, t, d):
        if isinstance(d, E.IntImm):
            v = d.value
            return {E.LT: v < 0, E.LE: v <= 0, E.GT: v > 0, E.GE: v >= 0,
                    E.EQ: v == 0, E.NE: v != 0}[t]

        def rule(lo, hi):
            if t is E.LT:
                return True if hi < 0 else (False if lo >= 0 else None)
            if t is E.LE:
                return True if hi <= 0 else (False if lo > 0 else None)
            if t is E.GT:
                return True if lo > 0 else (False if hi <= 0 else None)
            if t is E.GE:
                return True if lo >= 0 else (False if hi < 0 else None)
            if t is E.EQ:
                return True if lo == hi == 0 else (False if lo > 0 or hi < 0 else None)
            return False if lo == hi == 0 else (True if lo > 0 or hi < 0 else None)

        lo, hi = self._bounds_of(d, lambda lo, hi: rule(lo, hi) is not None)
        return rule(lo, hi)

    def _check_facts(self, r):
        facts = self.ana.facts
        if not facts:
            return r
        for f in facts:
            if structural_equal(f, r):
                return const_true()
        neg = negate(r)
        if neg is not None:
            for f in facts:
                if structural_equal(f, neg):
                    return const_false()
        return r

    def _logic(self, e):
        t = type(e)
        a = self.simp(e.a)
        if isinstance(a, E.IntImm):
            if (t is E.And) == bool(a.value):
                return self.simp(e.b)
            return a
        b = self.simp(e.b)
        if isinstance(b, E.IntImm):
            return a if (t is E.And) == bool(b.value) else b
        if structural_equal(a, b):
            return a
        na = negate(a)
        if na is not None and structural_equal(na, b):
            return const_false() if t is E.And else const_true()
        return e if (a is e.a and b is e.b) else t(a, b)

    def _not(self, e):
        a = self.simp(e.a)
        if isinstance(a, E.IntImm):
            return E.IntImm(1 - a.value, "bool")
        n = negate(a)
        if n is not None:
            return n
        return e if a is e.a else E.Not(a)


__all__ = ["CompareLogicRules"]
