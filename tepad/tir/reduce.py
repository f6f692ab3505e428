"""Reductions: ``CommReducer`` (a commutative combiner with identity) and the ``Reduce`` node."""
from __future__ import annotations

from ..errors import TepadError
from .expr import PrimExpr, Var, convert, IntImm, structural_hash
from .functor import post_order_visit, substitute


class CommReducer:
    """``result(lhs, rhs)`` combines two partial values; ``identity_element`` is its unit.

    A tuple reducer (argmax: ``(index, value)``) has one lhs/rhs Var, one result and one
    identity per value; ``result[k]`` may read every lhs/rhs Var.
    """

    def __init__(self, lhs, rhs, result, identity_element, name="reduce"):
        self.lhs = tuple(lhs)
        self.rhs = tuple(rhs)
        self.result = tuple(result)
        self.identity_element = tuple(identity_element)
        self.name = name

    @property
    def size(self) -> int:
        """The number of values combined together (1, or 2 for argmax)."""
        return len(self.result)

    def combine(self, a: PrimExpr, b: PrimExpr) -> PrimExpr:
        """Apply a single-value combiner to two values (substituting lhs/rhs)."""
        return substitute(self.result[0], {self.lhs[0]: a, self.rhs[0]: b})

    def combine_all(self, a, b) -> tuple:
        """All results of the combiner for the value tuples ``a`` and ``b`` (substituted at
        once: every result sees the old values of every lhs)."""
        vmap = dict(zip(self.lhs, a))
        vmap.update(zip(self.rhs, b))
        return tuple(substitute(r, vmap) for r in self.result)

    def __call__(self, a, b):
        """TVM's ``combiner(lhs, rhs)``: the list of combined values."""
        return list(self.combine_all(a, b))

    def identity(self, value_index=0) -> PrimExpr:
        """The identity element of value ``value_index``."""
        return self.identity_element[value_index]

    def __repr__(self):
        return f"CommReducer({self.name})"

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        # structural (two reducers that structural_equal hashes the same), so that a Reduce's
        # structural hash does not tell apart two separately declared sums
        return hash((self.size, tuple(v.dtype for v in self.lhs),
                     tuple(structural_hash(i) for i in self.identity_element)))


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
