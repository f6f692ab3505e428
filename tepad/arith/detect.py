"""TVM's ``tvm.arith`` detectors: ``detect_linear_equation`` (an expression as a linear
combination of given variables), ``ModularSet`` / ``modular_set`` (``coeff * k + base``),
and the interval names ``IntervalSet`` / ``intset_interval`` / ``intset_single_point``
(tepad's ``IntSet`` is an interval)."""
from __future__ import annotations

from ..tir import expr as E
from ..tir.functor import uses_var
from .analyzer import Analyzer
from .int_set import IntSet
from .modular import ModularSet, modular_set

IntervalSet = IntSet


def intset_interval(min_value, max_value) -> IntSet:
    """The interval ``[min_value, max_value]`` (TVM 0.6's ``arith.intset_interval``)."""
    return IntSet.interval(min_value, max_value)


def intset_single_point(point) -> IntSet:
    """The interval holding only ``point``."""
    return IntSet.single_point(point)


def _uses_any(e, vs):
    return uses_var(e, vs)


def _linear(e, vs):
    """``{var or None: coefficient}`` of ``e`` linear in ``vs``, else None."""
    if isinstance(e, E.Var) and e in vs:
        return {e: E.const(1, e.dtype)}
    if not _uses_any(e, vs):
        return {None: e}
    if isinstance(e, (E.Add, E.Sub)):
        a, b = _linear(e.a, vs), _linear(e.b, vs)
        if a is None or b is None:
            return None
        out = dict(a)
        for k, c in b.items():
            c = c if isinstance(e, E.Add) else E.const(0, c.dtype) - c
            out[k] = out[k] + c if k in out else c
        return out
    if isinstance(e, E.Mul):
        for lin_side, other in ((e.a, e.b), (e.b, e.a)):
            if not _uses_any(other, vs):
                lin = _linear(lin_side, vs)
                return None if lin is None else {k: c * other for k, c in lin.items()}
        return None
    if isinstance(e, E.Cast):
        return _linear(e.value, vs)
    return None


def detect_linear_equation(expr, var_list) -> list:
    """``[c_0, ..., c_{n-1}, base]`` with ``expr == sum(c_k * var_list[k]) + base`` and no
    ``c_k`` or ``base`` using a variable of ``var_list`` (simplified); ``[]`` when ``expr`` is
    not linear in them."""
    vs = list(var_list)
    e = E.convert(expr)
    lin = _linear(e, vs)
    if lin is None:
        return []
    ana = Analyzer()
    zero = E.const(0, e.dtype)
    return [ana.simplify(lin.get(v, zero)) for v in vs] + [ana.simplify(lin.get(None, zero))]


__all__ = ["IntervalSet", "intset_interval", "intset_single_point", "detect_linear_equation",
           "ModularSet", "modular_set"]
