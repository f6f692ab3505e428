"""Plain affine forms of integer expressions, without simplification."""
from __future__ import annotations

from ..tir import dtype as dt
from ..tir import expr as E
from ..tir.functor import collect_vars, substitute


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


def linear_degree(e, variables) -> int | None:
    """The degree of ``e`` as a polynomial in ``variables`` (a set of Vars) when only sums,
    differences, products and integer casts stand between them and the root; None when one
    of them sits under any other operation (a division, a min, a load, a call)."""
    if not collect_vars(e) & variables:
        return 0
    if isinstance(e, E.Var):
        return 1
    if isinstance(e, E.Cast) and dt.is_int(e.dtype):
        return linear_degree(e.value, variables)
    if isinstance(e, (E.Add, E.Sub, E.Mul)):
        a, b = linear_degree(e.a, variables), linear_degree(e.b, variables)
        if a is None or b is None:
            return None
        return a + b if isinstance(e, E.Mul) else max(a, b)
    return None


def linear_strides(e, variables, analyzer):
    """``(strides, offset)`` with ``e == offset + sum(stride_k * v_k)`` for the Vars of the
    list ``variables``, the strides and offset free of them (symbolic strides allowed), or
    None when ``e`` is not of degree one in them (``linear_degree``)."""
    if linear_degree(e, set(variables)) not in (0, 1):
        return None
    zero = {v: E.const(0, v.dtype) for v in variables}
    offset = analyzer.simplify(substitute(e, zero))
    strides = [analyzer.simplify(substitute(e, {**zero, v: E.const(1, v.dtype)}) - offset)
               for v in variables]
    return strides, offset


__all__ = ["affine_terms", "linear_degree", "linear_strides"]
