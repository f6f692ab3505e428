"""Reductions: ``CommReducer`` (a commutative combiner with identity) and the ``Reduce`` node."""
from __future__ import annotations

from ..errors import TepadError
from .expr import PrimExpr, Var, convert, IntImm
from .functor import post_order_visit, substitute


class CommReducer:
    """``result(lhs, rhs)`` combines two partial values; ``identity_element`` is its unit.

    Single-value reducers only (lists of one element, kept as tuples for TVM parity).
    """

    def __init__(self, lhs, rhs, result, identity_element, name="reduce"):
        self.lhs = tuple(lhs)
        self.rhs = tuple(rhs)
        self.result = tuple(result)
        self.identity_element = tuple(identity_element)
        self.name = name

    def combine(self, a: PrimExpr, b: PrimExpr) -> PrimExpr:
        """Apply the combiner to two values (substituting lhs/rhs)."""
        return substitute(self.result[0], {self.lhs[0]: a, self.rhs[0]: b})

    def identity(self, dtype=None) -> PrimExpr:
        return self.identity_element[0]

    def __repr__(self):
        return f"CommReducer({self.name})"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


class Reduce(PrimExpr):
    """``combiner`` over ``source`` for all points of ``axis`` (IterVars) where ``condition``."""

    __slots__ = ("combiner", "source", "axis", "condition", "value_index", "init")
    _fields = ("combiner", "source", "axis", "condition", "value_index", "init")

    def __init__(self, combiner, source, axis, condition, value_index=0, init=()):
        source = tuple(convert(s) for s in source)
        condition = convert(condition) if condition is not None else IntImm(1, "bool")
        object.__setattr__(self, "combiner", combiner)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "axis", tuple(axis))
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "value_index", int(value_index))
        object.__setattr__(self, "init", tuple(convert(i) for i in init))
        object.__setattr__(self, "dtype", source[value_index].dtype)
        object.__setattr__(self, "_hash", None)


def check_no_nested_reduce(e, where: str):
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, Reduce) else None)
    if found:
        raise TepadError(f"{where}: a reduction may only appear at the top of a compute body")


__all__ = ["CommReducer", "Reduce", "Var", "check_no_nested_reduce"]
