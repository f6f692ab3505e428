"""Simplifier rules for ``min`` and ``max``."""
from __future__ import annotations

from ..tir import expr as E
from .canonical import dag_equal as structural_equal
from .rule_helpers import is_sint


class MinMaxRules:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _minmax(self, e):
        t = type(e)
        is_min = t is E.Min
        a, b = self.simp(e.a), self.simp(e.b)
        if isinstance(a, E.ConstExpr) and isinstance(b, E.ConstExpr):
            f = E._fold_int(t, a, b)
            if f is not None:
                return f
        if not is_sint(e.dtype):
            return e if (a is e.a and b is e.b) else t(a, b)
        if isinstance(a, E.IntImm) and not isinstance(b, E.IntImm):
            a, b = b, a
        if structural_equal(a, b):
            return a
        if self._prove_le(a, b):
            return a if is_min else b
        if self._prove_le(b, a):
            return b if is_min else a
        if isinstance(b, E.IntImm) and type(a) is t and isinstance(a.b, E.IntImm):
            return t(a.a, E._fold_int(t, a.b, b))
        if type(a) is t and (structural_equal(a.a, b) or structural_equal(a.b, b)):
            return a
        if type(b) is t and (structural_equal(b.a, a) or structural_equal(b.b, a)):
            return b
        if a is e.a and b is e.b:
            return e
        return t(a, b)


__all__ = ["MinMaxRules"]
