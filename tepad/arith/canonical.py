"""Linear canonical form of integer expressions: ``sum(coeff * term) + const``.

A *term* is any already-simplified non-linear expression (a Var, ``x // 4``, ``i * j``,
``min(a, b)``, a load, ...). Terms keep the order in which they first appear (deterministic:
it depends only on the expression's structure, never on object ids); when rebuilt, terms with
positive coefficients come first, then the subtracted ones, then the constant, e.g.
``n - io * 4 + 3``.
"""
from __future__ import annotations

from ..tir import expr as E
from ..tir.structural import structural_equal
from .const_bound import dtype_limits


class Overflow(Exception):
    """A coefficient or constant does not fit the dtype; the caller keeps the expression."""


_EQUAL_PAIRS: dict = {}     # (id(a), id(b)) -> (a, b): pairs proved structurally equal
_MAX_EQUAL_PAIRS = 50000


def dag_equal(a, b) -> bool:
    """``structural_equal`` that remembers compared pairs (linear on DAGs with sharing).

    Pairs of nodes found equal are also remembered across calls (IR nodes are immutable;
    the table holds both nodes, so their ids stay theirs), which makes repeated deep
    comparisons of the same two expressions O(1).
    """
    if a is b:
        return True
    if (id(a), id(b)) in _EQUAL_PAIRS:
        return True
    memo: dict = {}
    r = _deq(a, b, memo)
    if memo:
        if len(_EQUAL_PAIRS) + len(memo) > _MAX_EQUAL_PAIRS:
            _EQUAL_PAIRS.clear()
        _EQUAL_PAIRS.update(memo)
    return r


def _deq(a, b, memo) -> bool:
    if a is b:
        return True
    if isinstance(a, E.Var) or isinstance(b, E.Var):
        return False
    if isinstance(a, E.Node):
        if type(a) is not type(b):
            return False
        ha, hb = getattr(a, "_hash", None), getattr(b, "_hash", None)
        if ha is not None and hb is not None and ha != hb:
            return False
        k = (id(a), id(b))
        if k in memo or k in _EQUAL_PAIRS:
            return True
        if isinstance(a, E.BinaryOp):       # fast path: the dtype follows from the operands
            if not (_deq(a.a, b.a, memo) and _deq(a.b, b.b, memo)):
                return False
        else:
            for x, y in zip(a.field_values(), b.field_values()):
                if not _deq(x, y, memo):
                    return False
        memo[k] = (a, b)
        return True
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and \
            all(_deq(x, y, memo) for x, y in zip(a, b))
    return structural_equal(a, b)


class Key:
    """Dict key comparing an expression structurally."""

    __slots__ = ("e", "h")

    def __init__(self, e):
        self.e = e
        self.h = hash(e)

    def __hash__(self):
        return self.h

    def __eq__(self, other):
        return self.e is other.e or (self.h == other.h and dag_equal(self.e, other.e))


class Linear:
    __slots__ = ("dtype", "terms", "const")

    def __init__(self, dtype: str, terms=None, const: int = 0):
        self.dtype = dtype
        self.terms: dict = dict(terms) if terms else {}   # Key -> coeff (insertion ordered)
        self.const = const

    @classmethod
    def of_const(cls, dtype, c):
        return cls(dtype, None, c)

    @classmethod
    def of_term(cls, e, coeff=1):
        lin = cls(e.dtype)
        lin.terms[Key(e)] = coeff
        return lin

    def copy(self):
        return Linear(self.dtype, self.terms, self.const)

    def is_const(self):
        return not self.terms

    def add_term(self, e, k):
        if k == 0:
            return
        key = Key(e)
        v = self.terms.get(key, 0) + k
        if v == 0:
            self.terms.pop(key, None)
        else:
            self.terms[key] = v

    def iadd(self, other, sign=1):
        for key, k in other.terms.items():
            v = self.terms.get(key, 0) + sign * k
            if v == 0:
                self.terms.pop(key, None)
            else:
                self.terms[key] = v
        self.const += sign * other.const
        return self

    def __add__(self, other):
        return self.copy().iadd(other)

    def __sub__(self, other):
        return self.copy().iadd(other, -1)

    def scale(self, k):
        if k == 0:
            return Linear(self.dtype)
        return Linear(self.dtype, {key: c * k for key, c in self.terms.items()}, self.const * k)

    def items(self):
        return [(key.e, k) for key, k in self.terms.items()]

    # --- rebuild ---------------------------------------------------------------------------
    def _imm(self, v):
        lo, hi = dtype_limits(self.dtype)
        if not lo <= v <= hi:
            raise Overflow(v)
        return E.IntImm(v, self.dtype)

    def _scaled(self, t, k):
        return t if k == 1 else E.Mul(t, self._imm(k))

    def to_expr(self) -> E.PrimExpr:
        items = self.items()
        pos = [(t, k) for t, k in items if k > 0]
        neg = [(t, -k) for t, k in items if k < 0]
        c = self.const
        if pos:
            e = self._scaled(*pos[0])
            for t, k in pos[1:]:
                e = E.Add(e, self._scaled(t, k))
            for t, k in neg:
                e = E.Sub(e, self._scaled(t, k))
            if c > 0:
                e = E.Add(e, self._imm(c))
            elif c < 0:
                e = E.Sub(e, self._imm(-c))
            return e
        e = self._imm(c)
        for t, k in neg:
            e = E.Sub(e, self._scaled(t, k))
        return e


__all__ = ["Linear", "Key", "Overflow"]
