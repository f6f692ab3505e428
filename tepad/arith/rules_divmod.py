"""Simplifier rules for floor and truncating division and modulo on signed integers."""
from __future__ import annotations

import math

from ..tir import expr as E
from .canonical import Key, Linear, Overflow
from .rule_helpers import imm_fits, is_sint


class DivModRules:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _finite(self, b):
        return not math.isinf(b[0]) and not math.isinf(b[1])

    def _fdiv(self, a, b):
        dtype = a.dtype
        if isinstance(b, E.IntImm):
            c = b.value
            if c == 0:
                return E.FloorDiv(a, b)
            if isinstance(a, E.IntImm):
                return E.IntImm(a.value // c, dtype)
            if c == 1:
                return a
            if c < 0:
                lo, hi = self.bound(a)
                if self._finite((lo, hi)) and lo // c == hi // c:
                    return E.IntImm(lo // c, dtype)
                return E.FloorDiv(a, b)
            try:
                la = self._lin(a, False)
                q, r = Linear(dtype), Linear(dtype)
                for t, k in la.items():
                    if k % c == 0:
                        q.add_term(t, k // c)
                    else:
                        r.add_term(t, k)
                q.const, r.const = la.const // c, la.const % c
                return (q + self._fdiv_residual(r, c)).to_expr()
            except Overflow:
                return E.FloorDiv(a, b)
        if self._prove_range(a, b):
            return E.IntImm(0, dtype)
        return E.FloorDiv(a, b)

    def _fdiv_residual(self, r, c) -> Linear:
        dtype = r.dtype
        if r.is_const():
            return Linear.of_const(dtype, r.const // c)
        re = r.to_expr()
        lo, hi = self.bound(re)
        if self._finite((lo, hi)) and lo // c == hi // c:
            return Linear.of_const(dtype, lo // c)
        items = r.items()
        g = math.gcd(c, *[k for _, k in items])
        if g > 1 and r.const < g:
            t = Linear(dtype, {Key(x): k // g for x, k in items}).to_expr()
            if c // g == 1:
                return self._lin(t, False)
            return self._lin(self._fdiv(t, E.IntImm(c // g, dtype)), False)
        if r.const == 0 and len(items) == 1 and items[0][1] == 1:
            x = items[0][0]
            if type(x) is E.FloorDiv and isinstance(x.b, E.IntImm) and x.b.value > 0 \
                    and imm_fits(x.b.value * c, dtype):
                return self._lin(self._fdiv(x.a, E.IntImm(x.b.value * c, dtype)), False)
        if len(items) == 1 and items[0][1] == 1 and type(items[0][0]) in (E.Min, E.Max):
            # (min(a, b) + k) // c -> min((a + k) // c, (b + k) // c)  (c > 0: monotone),
            # when one side folds to a constant
            m, k = items[0][0], r.const
            try:
                qa = self.simp(E.FloorDiv(E.add(m.a, E.IntImm(k, dtype)) if k else m.a,
                                          E.IntImm(c, dtype)))
                qb = self.simp(E.FloorDiv(E.add(m.b, E.IntImm(k, dtype)) if k else m.b,
                                          E.IntImm(c, dtype)))
            except Overflow:
                qa = qb = None
            if isinstance(qa, E.IntImm) or isinstance(qb, E.IntImm):
                return self._lin(self.simp(type(m)(qa, qb)), False)
        return Linear.of_term(E.FloorDiv(re, E.IntImm(c, dtype)))

    def _fmod(self, a, b):
        dtype = a.dtype
        if isinstance(b, E.IntImm):
            c = b.value
            if c == 0:
                return E.FloorMod(a, b)
            if isinstance(a, E.IntImm):
                return E.IntImm(a.value % c, dtype)
            if c == 1 or c == -1:
                return E.IntImm(0, dtype)
            if c < 0:
                return E.FloorMod(a, b)
            try:
                la = self._lin(a, False)
                r = Linear(dtype)
                for t, k in la.items():
                    if k % c:
                        r.add_term(t, k)
                r.const = la.const % c
                return self._fmod_residual(r, c).to_expr()
            except Overflow:
                return E.FloorMod(a, b)
        if self._prove_range(a, b):
            return a
        return E.FloorMod(a, b)

    def _fmod_residual(self, r, c) -> Linear:
        dtype = r.dtype
        if r.is_const():
            return r
        re = r.to_expr()
        lo, hi = self.bound(re)
        if lo >= 0 and hi < c:
            return r
        if self._finite((lo, hi)) and lo // c == hi // c:
            return r - Linear.of_const(dtype, (lo // c) * c)
        items = r.items()
        g = math.gcd(c, *[k for _, k in items])
        if g > 1 and r.const < g:
            t = Linear(dtype, {Key(x): k // g for x, k in items}).to_expr()
            m = self._lin(self._fmod(t, E.IntImm(c // g, dtype)), False).scale(g)
            m.const += r.const
            return m
        if r.const == 0 and len(items) == 1 and items[0][1] == 1:
            x = items[0][0]
            if type(x) is E.FloorMod and isinstance(x.b, E.IntImm) and x.b.value > 0 \
                    and x.b.value % c == 0:
                return self._lin(self._fmod(x.a, E.IntImm(c, dtype)), False)
        return Linear.of_term(E.FloorMod(re, E.IntImm(c, dtype)))

    def _trunc(self, e):
        a, b = self.simp(e.a), self.simp(e.b)
        t = type(e)
        if not is_sint(e.dtype):
            return self._fold_binary(e, a, b)
        if isinstance(a, E.IntImm) and isinstance(b, E.IntImm) and b.value != 0:
            return E._fold_int(t, a, b)
        if isinstance(b, E.IntImm):
            if b.value == 1:
                return a if t is E.Div else E.IntImm(0, a.dtype)
            if b.value > 0 and self._prove_nonneg(a):
                return self._fdiv(a, b) if t is E.Div else self._fmod(a, b)
        elif self._prove_nonneg(a) and self._prove_range(a, b):
            return E.IntImm(0, a.dtype) if t is E.Div else a
        if a is e.a and b is e.b:
            return e
        return t(a, b)


__all__ = ["DivModRules"]
