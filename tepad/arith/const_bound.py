"""Constant integer bounds (TVM's ``ConstIntBound``) and the infinity sentinels.

``POS_INF`` / ``NEG_INF`` are the single sentinel objects used both as ``ConstIntBound``
endpoints and as ``IntSet`` endpoints. They are special ``tir.Var`` objects (so an IntSet's
``min()``/``max()`` is always a ``PrimExpr``) that also compare with Python ints as
+/- infinity (``5 < POS_INF`` is ``True``) and only equal themselves. Test them with ``is``.

Internally bounds are computed with Python ints and ``math.inf``; a bound that leaves its
dtype's range (overflow) becomes the infinity sentinel on that side. The bound of an unknown
integer of 32 bits or more is ``[NEG_INF, POS_INF]`` (``[0, POS_INF]`` for unsigned types and
``SizeVar``); narrower types get their dtype range; ``bool`` is ``[0, 1]``.
"""
from __future__ import annotations

import math

from ..tir import expr as E
from ..tir import dtype as dt


class _Infinity(E.Var):
    """+/- infinity sentinel (one object per sign)."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        super().__init__("pos_inf" if sign > 0 else "neg_inf", "int64")
        object.__setattr__(self, "sign", sign)

    def __hash__(self):
        return id(self)

    def __eq__(self, o):
        return o is self

    def __ne__(self, o):
        return o is not self

    def __lt__(self, o):
        return self.sign < 0 and o is not self

    def __le__(self, o):
        return self.sign < 0 or o is self

    def __gt__(self, o):
        return self.sign > 0 and o is not self

    def __ge__(self, o):
        return self.sign > 0 or o is self

    def __float__(self):
        return math.inf if self.sign > 0 else -math.inf

    def __bool__(self):
        return True

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return "POS_INF" if self.sign > 0 else "NEG_INF"

    def __repr__(self):
        return "POS_INF" if self.sign > 0 else "NEG_INF"


POS_INF = _Infinity(1)
NEG_INF = _Infinity(-1)


def is_inf(x) -> bool:
    return x is POS_INF or x is NEG_INF


def to_num(x):
    """Sentinel -> +/-math.inf, IntImm -> int, int -> int."""
    if x is POS_INF:
        return math.inf
    if x is NEG_INF:
        return -math.inf
    if isinstance(x, E.IntImm):
        return x.value
    if isinstance(x, float):
        if math.isinf(x):
            return x
        return int(x)
    return int(x)


def from_num(x):
    if x == math.inf:
        return POS_INF
    if x == -math.inf:
        return NEG_INF
    return int(x)


class ConstIntBound:
    """Inclusive constant bounds ``[min_value, max_value]`` (ints or the infinity sentinels)."""

    POS_INF = POS_INF
    NEG_INF = NEG_INF
    __slots__ = ("min_value", "max_value")

    def __init__(self, min_value, max_value):
        self.min_value = from_num(to_num(min_value))
        self.max_value = from_num(to_num(max_value))

    @classmethod
    def everything(cls) -> "ConstIntBound":
        return cls(NEG_INF, POS_INF)

    def as_tuple(self):
        """``(lo, hi)`` as numbers (``math.inf`` for the sentinels)."""
        return to_num(self.min_value), to_num(self.max_value)

    def is_const(self) -> bool:
        return not is_inf(self.min_value) and self.min_value == self.max_value

    def __eq__(self, other):
        if isinstance(other, ConstIntBound):
            return self.as_tuple() == other.as_tuple()
        if isinstance(other, tuple) and len(other) == 2:
            return self.as_tuple() == tuple(to_num(x) for x in other)
        return NotImplemented

    def __hash__(self):
        return hash(self.as_tuple())

    def __iter__(self):
        return iter((self.min_value, self.max_value))

    def __repr__(self):
        return f"ConstIntBound(min_value={self.min_value!r}, max_value={self.max_value!r})"


# ----------------------------------------------------------------------------------------------
# Interval arithmetic on numbers (ints and +/-math.inf)
# ----------------------------------------------------------------------------------------------

INF = math.inf
EVERYTHING = (-INF, INF)


def dtype_limits(dtype: str):
    """Representable range of an integer dtype, as numbers."""
    d = dt.parse(dtype)
    if d.is_bool:
        return 0, 1
    if d.is_uint:
        return 0, (1 << d.bits) - 1
    if d.is_int:
        return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1
    return -INF, INF


def default_bound(dtype: str):
    """Bound of an unknown value of ``dtype`` (see the module docstring)."""
    d = dt.parse(dtype)
    if d.is_bool:
        return 0, 1
    if d.is_uint:
        return (0, INF) if d.bits >= 32 else (0, (1 << d.bits) - 1)
    if d.is_int:
        return (-INF, INF) if d.bits >= 32 else dtype_limits(dtype)
    return EVERYTHING


def clamp_to_dtype(b, dtype: str):
    """Overflowing sides become infinite (wide types) or the whole dtype range (narrow types)."""
    d = dt.parse(dtype)
    if not (d.is_int or d.is_uint or d.is_bool):
        return b
    lo, hi = b
    dlo, dhi = dtype_limits(dtype)
    if d.bits < 32 and (lo < dlo or hi > dhi):
        return default_bound(dtype)
    if lo < dlo:
        lo = -INF
    if hi > dhi:
        hi = INF
    return lo, hi


def _nan_safe(x, fallback):
    return fallback if isinstance(x, float) and math.isnan(x) else x


def b_add(a, b):
    return (_nan_safe(a[0] + b[0], -INF), _nan_safe(a[1] + b[1], INF))


def b_neg(a):
    return (-a[1], -a[0])


def b_sub(a, b):
    return b_add(a, b_neg(b))


def _mul(x, y):
    if x == 0 or y == 0:
        return 0
    return x * y


def b_mul(a, b):
    c = [_mul(x, y) for x in a for y in b]
    return min(c), max(c)


def _fdiv(x, y):
    """floor(x / y) for y != 0, with infinities (see module notes)."""
    if math.isinf(y):
        if y > 0:
            return 0 if x >= 0 else -1
        return -1 if x > 0 else 0
    if math.isinf(x):
        return x if y > 0 else -x
    return x // y


def _tdiv(x, y):
    if math.isinf(y):
        return 0
    if math.isinf(x):
        return x if y > 0 else -x
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _div_corners(a, b, fn):
    c = [fn(x, y) for x in a for y in b]
    return min(c), max(c)


def _split_divisor(b):
    """Parts of the divisor interval without zero."""
    parts = []
    if b[0] <= -1:
        parts.append((b[0], min(b[1], -1)))
    if b[1] >= 1:
        parts.append((max(b[0], 1), b[1]))
    return parts


def b_union(*bs):
    return min(x[0] for x in bs), max(x[1] for x in bs)


def b_div(a, b, floor=True):
    parts = _split_divisor(b)
    if not parts:
        return EVERYTHING
    fn = _fdiv if floor else _tdiv
    return b_union(*[_div_corners(a, p, fn) for p in parts])


def b_floormod(a, b):
    if b[0] > 0:
        if a[0] >= 0 and a[1] < b[0]:
            return a
        if b[0] == b[1] and not math.isinf(a[0]) and not math.isinf(a[1]):
            c = b[0]
            if a[0] // c == a[1] // c:
                return a[0] % c, a[1] % c
        hi = b[1] - 1
        if a[0] >= 0:
            hi = min(hi, a[1])
        return 0, hi
    if b[1] < 0:
        return b[0] + 1, 0
    return min(b[0] + 1, 0), max(b[1] - 1, 0)


def b_truncmod(a, b):
    m = max(abs(b[0]), abs(b[1]))
    if m == 0:
        return EVERYTHING
    if a[0] >= 0:
        return 0, min(a[1], m - 1)
    if a[1] <= 0:
        return max(a[0], -(m - 1)), 0
    return -(m - 1), m - 1


def b_min(a, b):
    return min(a[0], b[0]), min(a[1], b[1])


def b_max(a, b):
    return max(a[0], b[0]), max(a[1], b[1])


def b_intersect(a, b):
    return max(a[0], b[0]), min(a[1], b[1])


class BoundEvaluator:
    """Computes ``(lo, hi)`` number bounds of an expression given the analyzer's var facts."""

    def __init__(self, analyzer):
        self.ana = analyzer
        self.memo: dict = {}
        self._active: set = set()

    def bound(self, e):
        if isinstance(e, E.IntImm):
            return (e.value, e.value)
        if isinstance(e, E.Var):
            return self._var(e)
        key = id(e)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        r = self._compute(e)
        d = dt.parse(e.dtype)
        if d.is_int or d.is_uint or d.is_bool:
            r = clamp_to_dtype(r, d.scalar)
        self.memo[key] = (e, r)
        return r

    def _var(self, v):
        if v is POS_INF:
            return (INF, INF)
        if v is NEG_INF:
            return (-INF, -INF)
        ana = self.ana
        sub = ana.binding_of(v)
        b = ana.const_bound_of(v)
        base = (0, INF) if isinstance(v, E.SizeVar) else default_bound(v.dtype)
        if isinstance(v, E.SizeVar) and dt.parse(v.dtype).bits < 32:
            base = (0, dtype_limits(v.dtype)[1])
        if b is not None:
            base = b_intersect(base, b)
        if sub is not None and v not in self._active:
            self._active.add(v)
            try:
                base = b_intersect(base, self.bound(sub))
            finally:
                self._active.discard(v)
        return base

    def _compute(self, e):
        t = type(e)
        if t is E.Add:
            return b_add(self.bound(e.a), self.bound(e.b))
        if t is E.Sub:
            return b_sub(self.bound(e.a), self.bound(e.b))
        if t is E.Mul:
            return b_mul(self.bound(e.a), self.bound(e.b))
        if not dt.is_int(e.dtype) and not dt.is_bool(e.dtype):
            if t is E.Cast:
                return default_bound(e.dtype)
            return EVERYTHING
        if t is E.FloorDiv:
            return b_div(self.bound(e.a), self.bound(e.b), floor=True)
        if t is E.Div:
            return b_div(self.bound(e.a), self.bound(e.b), floor=False)
        if t is E.FloorMod:
            return b_floormod(self.bound(e.a), self.bound(e.b))
        if t is E.Mod:
            return b_truncmod(self.bound(e.a), self.bound(e.b))
        if t is E.Min:
            return b_min(self.bound(e.a), self.bound(e.b))
        if t is E.Max:
            return b_max(self.bound(e.a), self.bound(e.b))
        if t is E.Select:
            return b_union(self.bound(e.true_value), self.bound(e.false_value))
        if t is E.Cast:
            src = dt.parse(e.value.dtype)
            if src.is_int or src.is_uint or src.is_bool:
                b = self.bound(e.value)
                lo, hi = dtype_limits(dt.element_of(e.dtype))
                if lo <= b[0] and b[1] <= hi:
                    return b
            return default_bound(dt.element_of(e.dtype))
        if t is E.Call:
            if e.op == "tir.if_then_else":
                return b_union(self.bound(e.args[1]), self.bound(e.args[2]))
            if e.op == "tir.likely" and e.args:
                return self.bound(e.args[0])
            return default_bound(dt.element_of(e.dtype))
        if t is E.Broadcast:
            return self.bound(e.value)
        if t is E.Shuffle:
            out = self.bound(e.vectors[0])
            for v in e.vectors[1:]:
                out = b_union(out, self.bound(v))
            return out
        if t is E.Ramp:
            base = self.bound(e.base)
            step = b_mul(self.bound(e.stride), (0, e.lanes - 1))
            return b_add(base, step)
        if t is E.Let:
            ana = self.ana
            with ana.const_bound_scope(e.var, self.bound(e.value)):
                return BoundEvaluator(ana).bound(e.body)
        if isinstance(e, (E.CmpOp, E.And, E.Or, E.Not)):
            return (0, 1)
        return default_bound(dt.element_of(e.dtype))


__all__ = ["POS_INF", "NEG_INF", "ConstIntBound", "is_inf", "BoundEvaluator"]
