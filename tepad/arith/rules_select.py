"""Simplifier rules for ``select`` / ``if_then_else`` / ``likely``, casts and ``let``."""
from __future__ import annotations

from ..tir import expr as E
from ..tir import dtype as dt
from ..tir.functor import substitute
from .canonical import dag_equal as structural_equal
from .const_bound import BoundEvaluator
from .negation import negate
from .rule_helpers import is_sint

_MAX_SCOPE_DEPTH = 64


class SelectCastRules:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _select(self, e, cond, tv, fv, make=None):
        c = self.simp(cond)
        if isinstance(c, E.IntImm):
            return self.simp(tv if c.value else fv)
        if self._depth < _MAX_SCOPE_DEPTH:
            # branches are simplified knowing the condition (nesting bounded for safety)
            self._depth += 1
            try:
                with self.scoped(c):
                    t2 = self.simp(tv)
                nc = negate(c)
                with self.scoped(nc if nc is not None else E.Not(c)):
                    f2 = self.simp(fv)
            finally:
                self._depth -= 1
        else:
            t2, f2 = self.simp(tv), self.simp(fv)
        if structural_equal(t2, f2):
            return t2
        if make is not None:
            return make(c, t2, f2)
        if c is cond and t2 is tv and f2 is fv:
            return e
        return E.Select(c, t2, f2)

    def _call(self, e):
        if e.op == "tir.if_then_else" and len(e.args) == 3:
            def make(c, t, f):
                if c is e.args[0] and t is e.args[1] and f is e.args[2]:
                    return e
                return E.Call(e.dtype, e.op, [c, t, f])
            return self._select(e, *e.args, make=make)
        if e.op == "tir.likely" and len(e.args) == 1:
            a = self.simp(e.args[0])
            if isinstance(a, E.IntImm):
                return a
            return e if a is e.args[0] else E.Call(e.dtype, e.op, [a])
        return self._generic(e)

    def _cast(self, e):
        v = self.simp(e.value)
        if v.dtype == e.dtype:
            return v
        if isinstance(v, E.ConstExpr) and dt.lanes(e.dtype) == 1:
            r = E.cast(e.dtype, v)
            if isinstance(r, E.ConstExpr):
                return r
        if type(v) is E.Cast:
            x = v.value
            do, dm, dx = dt.parse(e.dtype), dt.parse(v.dtype), dt.parse(x.dtype)
            if x.dtype == e.dtype and do.is_integer and dm.is_integer and \
                    dm.code == dx.code and dm.bits >= dx.bits and dm.lanes == dx.lanes:
                return x
        return e if v is e.value else E.Cast(e.dtype, v)

    def _let(self, e):
        v = self.simp(e.value)
        if isinstance(v, (E.ConstExpr, E.Var)):
            return self.simp(substitute(e.body, {e.var: v}))
        ana = self.ana
        saved = (self.memo, self.bev)
        with ana.const_bound_scope(e.var, self.bound(v) if is_sint(v.dtype) else None):
            self.memo, self.bev = {}, BoundEvaluator(ana)
            try:
                body = self.simp(e.body)
            finally:
                self.memo, self.bev = saved
        if v is e.value and body is e.body:
            return e
        return E.Let(e.var, v, body)


__all__ = ["SelectCastRules"]
