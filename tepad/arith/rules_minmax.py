"""Simplifier rules for ``min`` and ``max``.

Besides dropping an operand that is provably never the result, nested ``min``/``max`` are kept
in a small canonical form, so that bounds built by taking the min/max of min/max (InferBound's
unions of clamped indices, level after level) do not grow:

  min(a, min(b, c))           -> the operands a, b, c without those another one provably
                                 bounds (min(y, min(y + 1, 255)) -> min(y, 255))
  max(a, min(b, c)), a <= b   -> min(b, max(a, c))   (distributivity; max(a, b) is b),
                                 when max(a, c) folds (the result is smaller)
  min(a, max(b, c)), b <= a   -> max(b, min(a, c))   (the mirror, same condition)
"""
from __future__ import annotations

from ..tir import expr as E
from .canonical import dag_equal as structural_equal
from .rule_helpers import is_sint
from .rules_linear import _size

_MAX_OPERANDS = 8      # nested operands compared pairwise (beyond that: kept as they are)


def _operands(t, e, out):
    if type(e) is t:
        _operands(t, e.a, out)
        _operands(t, e.b, out)
    else:
        out.append(e)
    return out


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
        if type(a) is t or type(b) is t:
            r = self._flatten_minmax(t, a, b)
            if r is not None:
                return r
        other = E.Max if is_min else E.Min
        if type(b) is other or type(a) is other:
            r = self._distribute_minmax(t, a, b)
            if r is not None:
                return r
        if a is e.a and b is e.b:
            return e
        return t(a, b)

    def _flatten_minmax(self, t, a, b):
        """min(a, min(b, c)) without the operands another one provably bounds, or None."""
        ops = _operands(t, a, [])
        ops = _operands(t, b, ops)
        if len(ops) > _MAX_OPERANDS:
            return None
        is_min = t is E.Min
        keep = []
        for x in ops:
            if any(structural_equal(x, y) for y in keep):
                continue
            keep.append(x)
        n_unique = len(keep)
        le = self._prove_le
        out = []
        for i, x in enumerate(keep):
            # x is dropped when another operand y (not dropped yet) is never worse: y <= x
            # (min) or y >= x (max); of operands that bound each other the first one stays
            for j, y in enumerate(keep):
                if i == j or y is None:
                    continue
                if le(y, x) if is_min else le(x, y):
                    if j < i or not (le(x, y) if is_min else le(y, x)):
                        keep[i] = None
                        break
            if keep[i] is not None:
                out.append(x)
        if len(out) == n_unique and n_unique == len(ops):
            return None
        return self._build_minmax(t, out)

    def _build_minmax(self, t, ops):
        consts = [x for x in ops if isinstance(x, E.IntImm)]
        rest = [x for x in ops if not isinstance(x, E.IntImm)]
        c = None
        for x in consts:
            c = x if c is None else E._fold_int(t, c, x)
        if not rest:
            return c
        r = rest[0]
        for x in rest[1:]:
            r = t(r, x)
        return r if c is None else t(r, c)

    def _distribute_minmax(self, t, a, b):
        """max(a, min(b, c)) -> min(b, max(a, c)) when a <= b (and the min/max mirror)."""
        is_min = t is E.Min
        other = E.Max if is_min else E.Min
        for x, y in ((a, b), (b, a)):
            if type(y) is not other:
                continue
            inner = _operands(other, y, [])
            if len(inner) > _MAX_OPERANDS:
                continue
            # max(x, yi) is yi when x <= yi (max); min(x, yi) is yi when yi <= x (min)
            absorbed = [(self._prove_le(yi, x) if is_min else self._prove_le(x, yi))
                        for yi in inner]
            if not any(absorbed) or absorbed.count(False) > 1:
                continue
            parts = [yi if ok else self.simp(t(x, yi)) for yi, ok in zip(inner, absorbed)]
            r = self._build_minmax(other, parts)
            # only when the remaining pair collapsed: the result is smaller (this also keeps
            # the rewrite from turning the mirror form back into the original)
            if _size(r) < _size(a) + _size(b) + 1:
                return self.simp(r)
        return None


__all__ = ["MinMaxRules"]
