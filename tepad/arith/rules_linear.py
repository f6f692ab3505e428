"""Simplifier rules for ``+``, ``-`` and ``*`` on signed integers: the linear canonical form.

``a + b``, ``a - b``, ``a * const`` become ``sum(k_i * t_i) + c`` with like terms merged,
and ``x // c * c + x % c`` merges back into ``x`` inside a sum.
"""
from __future__ import annotations

from ..tir import expr as E
from ..tir.printer import expr_to_str
from .canonical import Key, Linear, Overflow
from .rule_helpers import imm_fits


class LinearRules:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _canon(self, e):
        try:
            lin = self._lin(e, True)
            lin = self._merge_divmod(lin)
            e2 = lin.to_expr()
            pushed = self._push_into_minmax(lin, e2)
            return e2 if pushed is None else pushed
        except Overflow:
            a, b = self.simp(e.a), self.simp(e.b)
            return e if (a is e.a and b is e.b) else type(e)(a, b)

    def _lin(self, e, simp_leaves=True) -> Linear:
        t = type(e)
        if t is E.IntImm:
            return Linear.of_const(e.dtype, e.value)
        if t is E.Add:
            return self._lin(e.a, simp_leaves).iadd(self._lin(e.b, simp_leaves))
        if t is E.Sub:
            return self._lin(e.a, simp_leaves).iadd(self._lin(e.b, simp_leaves), -1)
        if t is E.Mul:
            la, lb = self._lin(e.a, simp_leaves), self._lin(e.b, simp_leaves)
            if lb.is_const():
                return la.scale(lb.const)
            if la.is_const():
                return lb.scale(la.const)
            return self._mul_terms(la, lb)
        if simp_leaves:
            s = self.simp(e)
            if type(s) in (E.Add, E.Sub, E.Mul, E.IntImm) and s.dtype == e.dtype:
                return self._lin(s, False)
            return Linear.of_term(s)
        return Linear.of_term(e)

    @staticmethod
    def _split_scale(lin):
        items = lin.items()
        if lin.const == 0 and len(items) == 1:
            return items[0]
        return lin.to_expr(), 1

    def _mul_terms(self, la, lb):
        ta, ka = self._split_scale(la)
        tb, kb = self._split_scale(lb)
        # commutative: order the factors by their text (deterministic; ties keep order)
        if expr_to_str(tb) < expr_to_str(ta):
            ta, tb = tb, ta
        return Linear.of_term(E.Mul(ta, tb), ka * kb)

    def _merge_divmod(self, lin):
        """``(x // c) * (k*c) + (x % c) * k -> x * k`` inside a sum."""
        changed = True
        while changed:
            changed = False
            for t, k in lin.items():
                if type(t) is E.FloorMod and isinstance(t.b, E.IntImm) and t.b.value > 0:
                    c = t.b.value
                    partner = E.FloorDiv(t.a, t.b)
                    pk = lin.terms.get(Key(partner))
                    if pk is not None and pk == k * c:
                        lin.terms.pop(Key(t))
                        lin.terms.pop(Key(partner))
                        lin.iadd(self._lin(t.a, False).scale(k))
                        changed = True
                        break
        return lin

    def _push_into_minmax(self, lin, whole):
        """``k*min(a, b) + r -> min(k*a + r, k*b + r)`` (a max when k < 0; the same for
        ``max``) when ``k*a + r`` or ``k*b + r`` is a constant and the result is smaller:
        ``min(x + 32, 255) - x + 1 -> min(256 - x, 33)``, whose constant bounds are tight."""
        items = lin.items()
        if len(items) < 2:
            return None
        for t, k in items:
            tt = type(t)
            if tt is not E.Min and tt is not E.Max:
                continue
            rest = lin.copy()
            rest.terms.pop(Key(t))
            la, lb = self._lin(t.a, False), self._lin(t.b, False)
            shared = la.terms.keys() | lb.terms.keys()
            if not any(key in shared for key in rest.terms):
                continue
            la, lb = la.scale(k), lb.scale(k)
            op = tt
            if k < 0:
                op = E.Max if tt is E.Min else E.Min
            na, nb = la + rest, lb + rest
            if not (na.is_const() or nb.is_const()):
                continue
            try:
                cand = op(na.to_expr(), nb.to_expr())
            except Overflow:
                continue
            r = self.simp(cand)
            if _size(r) < _size(whole):
                return r
        return None

    def _const(self, v, dtype):
        if not imm_fits(v, dtype):
            raise Overflow(v)
        return E.IntImm(v, dtype)


def _size(e, cap=10000):
    """Number of nodes of ``e`` as a tree (shared sub-expressions counted each time)."""
    n = 0
    todo = [e]
    while todo and n < cap:
        x = todo.pop()
        n += 1
        if isinstance(x, E.BinaryOp):
            todo.append(x.a)
            todo.append(x.b)
        elif isinstance(x, E.Node) and not isinstance(x, (E.Var, E.ConstExpr)):
            for v in x.field_values():
                if isinstance(v, E.PrimExpr):
                    todo.append(v)
    return n


__all__ = ["LinearRules"]
