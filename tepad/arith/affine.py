"""Plain affine forms of integer expressions, without simplification."""
from __future__ import annotations

from ..tir import expr as E


def affine_terms(e):
    """``({Var: coef}, const)`` when ``e`` is a sum of constant multiples of variables and a
    constant (integer casts looked through), else None. Zero coefficients are dropped."""
    if isinstance(e, E.IntImm):
        return {}, int(e.value)
    if isinstance(e, E.Var):
        return {e: 1}, 0
    if isinstance(e, E.Cast):
        return affine_terms(e.value)
    if isinstance(e, (E.Add, E.Sub)):
        a, b = affine_terms(e.a), affine_terms(e.b)
        if a is None or b is None:
            return None
        sign = 1 if isinstance(e, E.Add) else -1
        co = dict(a[0])
        for v, c in b[0].items():
            co[v] = co.get(v, 0) + sign * c
        return {v: c for v, c in co.items() if c != 0}, a[1] + sign * b[1]
    if isinstance(e, E.Mul):
        a, b = affine_terms(e.a), affine_terms(e.b)
        if a is None or b is None:
            return None
        if not a[0]:
            a, b = b, a
        if b[0]:
            return None                     # product of two variable terms
        k = b[1]
        return {v: c * k for v, c in a[0].items() if c * k != 0}, a[1] * k
    return None


__all__ = ["affine_terms"]
