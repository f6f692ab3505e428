"""Small helpers shared by the simplifier's rule modules (``rewrite`` and ``rules_*``)."""
from __future__ import annotations

from ..tir import expr as E
from ..tir import dtype as dt

# Expressions the linear canonical form covers.
ADD_SUB_MUL = (E.Add, E.Sub, E.Mul)


def is_sint(dtype: str) -> bool:
    """Signed scalar integer: the only dtypes that get algebraic rules (others fold constants)."""
    d = dt.parse(dtype)
    return d.is_int and d.lanes == 1


def const_true():
    return E.IntImm(1, "bool")


def const_false():
    return E.IntImm(0, "bool")


def imm_fits(v, dtype):
    """Whether ``v`` is representable in ``dtype`` (always true for non-integer dtypes)."""
    d = dt.parse(dtype)
    if d.is_int:
        return -(1 << (d.bits - 1)) <= v < (1 << (d.bits - 1))
    return True


__all__ = ["ADD_SUB_MUL", "is_sint", "const_true", "const_false", "imm_fits"]
