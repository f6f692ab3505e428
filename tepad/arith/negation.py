"""Exact negation of conditions, for the simplifier and for passes that split on a condition."""
from __future__ import annotations

from ..tir import expr as E
from ..tir.op import is_call
from .rule_helpers import is_sint

_FLIP = {E.LT: E.GE, E.GE: E.LT, E.LE: E.GT, E.GT: E.LE, E.EQ: E.NE, E.NE: E.EQ}


def negate(c):
    """``not c`` as a comparison when that is exact (integer comparisons), else None."""
    t = type(c)
    if t in _FLIP and is_sint(c.a.dtype):
        return _FLIP[t](c.a, c.b)
    if t is E.Not:
        return c.a
    return None


def negate_cond(c):
    """``not c`` pushed through and/or (De Morgan) down to exact integer comparisons.

    Never fails: a part with no exact negation is wrapped in ``Not``; ``likely`` hints are
    dropped."""
    if isinstance(c, E.IntImm):
        return E.IntImm(0 if c.value else 1, "bool")
    if is_call(c, "tir.likely"):
        return negate_cond(c.args[0])
    if isinstance(c, E.And):
        return E.logical_or(negate_cond(c.a), negate_cond(c.b))
    if isinstance(c, E.Or):
        return E.logical_and(negate_cond(c.a), negate_cond(c.b))
    n = negate(c)
    return n if n is not None else E.logical_not(c)


__all__ = ["negate", "negate_cond"]
