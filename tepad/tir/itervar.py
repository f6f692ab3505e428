"""IterVar: an iteration axis (a Var with a domain and a kind), as in TVM."""
from __future__ import annotations

import enum

from .expr import PrimExpr, Range, Var, convert
from .printer import expr_to_str


class IterVarType(enum.IntEnum):
    """The kind of an IterVar (TVM's numbering): data-parallel, thread index, reduction,
    ordered, opaque, and the loop annotations (unrolled, vectorized, parallelized,
    tensorized)."""

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8


class IterVar:
    """An axis: ``var`` ranging over ``dom`` (a Range, or None until InferBound fills it).

    Compared and hashed by identity. Usable directly in index expressions (``i + 1``).
    """

    def same_as(self, other) -> bool:
        """TVM's ``Object.same_as``: ``other`` is this very object."""
        return self is other

    DataPar = IterVarType.DataPar
    ThreadIndex = IterVarType.ThreadIndex
    CommReduce = IterVarType.CommReduce
    Ordered = IterVarType.Ordered
    Opaque = IterVarType.Opaque
    Unrolled = IterVarType.Unrolled
    Vectorized = IterVarType.Vectorized
    Parallelized = IterVarType.Parallelized
    Tensorized = IterVarType.Tensorized

    __slots__ = ("dom", "var", "iter_type", "thread_tag")

    def __init__(self, dom, var, iter_type=IterVarType.DataPar, thread_tag=""):
        if dom is not None and not isinstance(dom, Range):
            dom = Range(*dom) if isinstance(dom, (tuple, list)) else Range(dom)
        if isinstance(var, str):
            var = Var(var, dom.extent.dtype if dom is not None else "int32")
        self.dom = dom
        self.var = var
        self.iter_type = IterVarType(iter_type)
        self.thread_tag = thread_tag

    @property
    def name(self) -> str:
        return self.var.name

    def as_expr(self):
        return self.var

    def __repr__(self):
        if self.dom is None:
            return f"IterVar({self.var.name})"
        lo = expr_to_str(self.dom.min)
        hi = expr_to_str(self.dom.min + self.dom.extent)
        kind = "" if self.iter_type == IterVarType.DataPar else f", {self.iter_type.name}"
        return f"IterVar({self.var.name}: [{lo}, {hi}){kind})"

    # Arithmetic delegates to the var, so ``i * 4 + j`` works with IterVars as in TVM.
    def __add__(self, o): return self.var + o
    def __radd__(self, o): return convert(o) + self.var
    def __sub__(self, o): return self.var - o
    def __rsub__(self, o): return convert(o) - self.var
    def __mul__(self, o): return self.var * o
    def __rmul__(self, o): return convert(o) * self.var
    def __floordiv__(self, o): return self.var // o
    def __rfloordiv__(self, o): return convert(o) // self.var
    def __mod__(self, o): return self.var % o
    def __rmod__(self, o): return convert(o) % self.var
    def __neg__(self): return -self.var
    def __lt__(self, o): return self.var < o
    def __le__(self, o): return self.var <= o
    def __gt__(self, o): return self.var > o
    def __ge__(self, o): return self.var >= o
    __hash__ = object.__hash__

    # IterVars compare by identity with each other (dict keys, ``in``); against an expression
    # or a number they build a condition like their var does (``te.if_then_else(k == 0, ...)``).
    def __eq__(self, o):
        if isinstance(o, IterVar):
            return self is o
        if isinstance(o, (PrimExpr, int, float, bool)):
            return self.var == o
        return NotImplemented

    def __ne__(self, o):
        if isinstance(o, IterVar):
            return self is not o
        if isinstance(o, (PrimExpr, int, float, bool)):
            return self.var != o
        return NotImplemented
