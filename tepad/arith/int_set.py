"""Interval integer sets (TVM's ``IntervalSet``) and their evaluation over expressions.

An ``IntSet`` is the inclusive interval ``[min, max]``; endpoints are PrimExprs (possibly
symbolic, e.g. ``[io*4, io*4 + 3]``) or the sentinels ``NEG_INF`` / ``POS_INF``.
``nothing()`` is ``[POS_INF, NEG_INF]``; constant endpoints with ``min > max`` are also empty.
A single point has ``min`` and ``max`` the same expression.

``eval_set(expr, dom_map)`` over-approximates the values of ``expr`` when each var of
``dom_map`` ranges over its set (vars not in the map are single points of themselves). All
endpoints it returns are simplified.
"""
from __future__ import annotations

from ..tir import expr as E
from ..tir import dtype as dt
from .canonical import dag_equal as structural_equal
from ..tir.printer import expr_to_str
from .const_bound import POS_INF, NEG_INF, is_inf

# The Analyzer sits above this module (its simplifier evaluates IntSets), yet the entry points
# that take no analyzer (``from_min_extent``, ``cover_range``, ``eval_set``, ``union``,
# ``intersect``) work under no facts, with a fresh one: ``arith.analyzer`` registers its class
# here when it is imported, which importing ``tepad.arith`` always does.
_analyzer_class = None


def use_analyzer_class(cls):
    """Make ``cls()`` the fresh analyzer of the entry points that take none."""
    global _analyzer_class
    _analyzer_class = cls


def _fresh_analyzer():
    return _analyzer_class()


def _conv(x, dtype=None):
    if x is POS_INF or x is NEG_INF:
        return x
    if isinstance(x, E.PrimExpr):
        return x
    if hasattr(x, "as_expr"):
        return x.as_expr()
    if isinstance(x, float):
        if x == float("inf"):
            return POS_INF
        if x == float("-inf"):
            return NEG_INF
    if dtype is not None and isinstance(x, int):
        return E.IntImm(x, dtype)
    return E.convert(x)


def _dtype_of(*xs):
    for x in xs:
        if isinstance(x, E.PrimExpr) and not is_inf(x):
            return x.dtype
    return None


class IntSet:
    """Inclusive integer interval ``[min, max]`` with symbolic or infinite endpoints."""

    __slots__ = ("min_value", "max_value")

    def __init__(self, min_value, max_value):
        d = _dtype_of(min_value, max_value)
        self.min_value = _conv(min_value, d)
        self.max_value = _conv(max_value, d)

    # --- constructors --------------------------------------------------------------------
    @classmethod
    def interval(cls, lo, hi) -> "IntSet":
        return cls(lo, hi)

    @classmethod
    def single_point(cls, e) -> "IntSet":
        e = _conv(e)
        return cls(e, e)

    @classmethod
    def from_min_extent(cls, min_value, extent) -> "IntSet":
        m, ext = E.convert(min_value), E.convert(extent)
        ana = _fresh_analyzer()
        if isinstance(ext, E.IntImm) and ext.value == 1:
            return cls.single_point(ana.simplify(m))
        return cls(ana.simplify(m), ana.simplify(E.sub(E.add(m, ext), 1)))

    @classmethod
    def from_range(cls, r: E.Range) -> "IntSet":
        return cls.from_min_extent(r.min, r.extent)

    @classmethod
    def everything(cls) -> "IntSet":
        return cls(NEG_INF, POS_INF)

    @classmethod
    def nothing(cls) -> "IntSet":
        return cls(POS_INF, NEG_INF)

    # --- queries -------------------------------------------------------------------------
    def min(self):
        return self.min_value

    def max(self):
        return self.max_value

    @property
    def dtype(self):
        return _dtype_of(self.min_value, self.max_value) or "int32"

    def is_nothing(self) -> bool:
        lo, hi = self.min_value, self.max_value
        if lo is POS_INF or hi is NEG_INF:
            return True
        return isinstance(lo, E.IntImm) and isinstance(hi, E.IntImm) and lo.value > hi.value

    def is_everything(self) -> bool:
        return self.min_value is NEG_INF and self.max_value is POS_INF

    def has_lower_bound(self) -> bool:
        return self.min_value is not NEG_INF and not self.is_nothing()

    def has_upper_bound(self) -> bool:
        return self.max_value is not POS_INF and not self.is_nothing()

    def is_single_point(self) -> bool:
        lo, hi = self.min_value, self.max_value
        if is_inf(lo) or is_inf(hi):
            return False
        return lo is hi or structural_equal(lo, hi)

    def point_value(self):
        if not self.is_single_point():
            raise ValueError(f"{self!r} is not a single point")
        return self.min_value

    def cover_range(self, r: E.Range) -> E.Range:
        """The Range ``[min, max - min + 1]`` covering this set, or ``r`` when unbounded."""
        if not (self.has_lower_bound() and self.has_upper_bound()):
            return r
        if self.is_single_point():
            return E.Range.from_min_extent(self.min_value,
                                           E.IntImm(1, self.min_value.dtype))
        ana = _fresh_analyzer()
        ext = ana.simplify(E.Add(E.Sub(self.max_value, self.min_value),
                                 E.IntImm(1, self.max_value.dtype)))
        return E.Range.from_min_extent(self.min_value, ext)

    def __repr__(self):
        def f(x):
            return repr(x) if is_inf(x) else expr_to_str(x)
        if self.is_nothing() and (self.min_value is POS_INF):
            return "IntSet.nothing()"
        return f"IntSet[{f(self.min_value)}, {f(self.max_value)}]"

    def __eq__(self, other):
        if not isinstance(other, IntSet):
            return NotImplemented
        return _ep_eq(self.min_value, other.min_value) and _ep_eq(self.max_value, other.max_value)

    def __hash__(self):
        return hash((id(self.min_value) if is_inf(self.min_value) else hash(self.min_value),
                     id(self.max_value) if is_inf(self.max_value) else hash(self.max_value)))


def _ep_eq(a, b):
    if is_inf(a) or is_inf(b):
        return a is b
    return structural_equal(a, b)


def to_int_set(x) -> IntSet:
    if isinstance(x, IntSet):
        return x
    if isinstance(x, E.Range):
        return IntSet.from_range(x)
    if isinstance(x, (tuple, list)) and len(x) == 2:
        return IntSet.interval(*x)
    return IntSet.single_point(x)


# ----------------------------------------------------------------------------------------------
# Endpoint arithmetic with infinities
# ----------------------------------------------------------------------------------------------

def _inf(sign):
    return POS_INF if sign > 0 else NEG_INF


def _ep_add(x, y, side):
    """x + y for endpoints; ``side`` (-1 min, +1 max) resolves inf + (-inf)."""
    if is_inf(x) or is_inf(y):
        if is_inf(x) and is_inf(y) and x is not y:
            return _inf(side)
        return x if is_inf(x) else y
    return E.Add(x, y) if x.dtype == y.dtype else E.add(x, y)


def _ep_neg(x):
    if is_inf(x):
        return _inf(-x.sign)
    return E.Sub(E.IntImm(0, x.dtype), x) if _is_int(x.dtype) else E.neg(x)


def _ep_mul(x, c):
    """x * c for c >= 0 (an infinite x stays infinite)."""
    if is_inf(x):
        return x
    return E.Mul(x, c)


def _is_int(dtype):
    return dt.parse(dtype).is_integer


class _Evaluator:
    def __init__(self, ana, dom):
        self.ana = ana
        self.dom = dom
        self.memo: dict = {}

    def simp(self, x):
        if is_inf(x):
            return x
        return self.ana.simplify(x)

    def mk(self, lo, hi):
        lo, hi = self.simp(lo), self.simp(hi)
        if not is_inf(lo) and not is_inf(hi) and structural_equal(lo, hi):
            return IntSet(lo, lo)
        return IntSet(lo, hi)

    def point(self, e):
        e = self.simp(e)
        return IntSet(e, e)

    def ev(self, e) -> IntSet:
        key = id(e)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        r = self._ev(e)
        self.memo[key] = (e, r)
        return r

    def _sign(self, c):
        """+1 if c >= 0 provably, -1 if c <= 0 provably, else None."""
        lo, hi = self.ana.bound_numbers(c)
        if lo >= 0:
            return 1
        if hi <= 0:
            return -1
        return None

    def _ev(self, e) -> IntSet:
        t = type(e)
        if t is E.IntImm:
            return IntSet(e, e)
        if isinstance(e, E.Var):
            s = self.dom.get(e)
            return s if s is not None else IntSet(e, e)
        if t is E.FloatImm:
            return IntSet(e, e)
        if t is E.Add or t is E.Sub:
            ends = self._linear_ends(e)
            if ends is not None:
                # one simplification of each end of the whole sum instead of one per partial
                # sum (the same linear form: a sum of k terms costs O(k), not O(k^2))
                return self.mk(*ends)
            a, b = self.ev(e.a), self.ev(e.b)
            if a.is_nothing() or b.is_nothing():
                return IntSet.nothing()
            if a.is_single_point() and b.is_single_point():
                return self.point(t(a.min_value, b.min_value))
            if t is E.Add:
                return self.mk(_ep_add(a.min_value, b.min_value, -1),
                               _ep_add(a.max_value, b.max_value, 1))
            return self.mk(_ep_add(a.min_value, _ep_neg(b.max_value), -1),
                           _ep_add(a.max_value, _ep_neg(b.min_value), 1))
        if t is E.Mul:
            a, b = self.ev(e.a), self.ev(e.b)
            if a.is_nothing() or b.is_nothing():
                return IntSet.nothing()
            if a.is_single_point() and b.is_single_point():
                return self.point(E.Mul(a.min_value, b.min_value))
            if a.is_single_point():
                a, b = b, a
            if not b.is_single_point() or not _is_int(e.dtype):
                return IntSet.everything()
            c = b.min_value
            if isinstance(c, E.IntImm) and c.value == 0:
                return IntSet(c, c)
            sign = self._sign(c)
            if sign is None:
                return IntSet.everything()
            if sign > 0:
                lo, hi = _ep_mul(a.min_value, c), _ep_mul(a.max_value, c)
            else:
                lo = _ep_mul(_ep_neg_inf_aware(a.max_value), c)
                hi = _ep_mul(_ep_neg_inf_aware(a.min_value), c)
                lo = lo if is_inf(lo) else E.Mul(a.max_value, c)
                hi = hi if is_inf(hi) else E.Mul(a.min_value, c)
            return self.mk(lo, hi)
        if t in (E.FloorDiv, E.Div):
            a, b = self.ev(e.a), self.ev(e.b)
            if a.is_nothing() or b.is_nothing():
                return IntSet.nothing()
            if a.is_single_point() and b.is_single_point():
                return self.point(t(a.min_value, b.min_value))
            if not b.is_single_point() or not _is_int(e.dtype):
                return IntSet.everything()
            c = b.min_value
            sign = 1 if isinstance(c, E.IntImm) and c.value > 0 else \
                (-1 if isinstance(c, E.IntImm) and c.value < 0 else self._strict_sign(c))
            if sign is None:
                return IntSet.everything()
            lo = a.min_value if is_inf(a.min_value) else t(a.min_value, c)
            hi = a.max_value if is_inf(a.max_value) else t(a.max_value, c)
            if sign < 0:
                lo, hi = (_inf(-hi.sign) if is_inf(hi) else hi), \
                         (_inf(-lo.sign) if is_inf(lo) else lo)
            return self.mk(lo, hi)
        if t in (E.FloorMod, E.Mod):
            a, b = self.ev(e.a), self.ev(e.b)
            if a.is_nothing() or b.is_nothing():
                return IntSet.nothing()
            if a.is_single_point() and b.is_single_point():
                return self.point(t(a.min_value, b.min_value))
            if not b.is_single_point() or not _is_int(e.dtype):
                return IntSet.everything()
            c = b.min_value
            if isinstance(c, E.IntImm):
                if c.value <= 0:
                    return IntSet.everything()
            elif self._strict_sign(c) != 1:
                return IntSet.everything()
            one = E.IntImm(1, e.dtype)
            zero = E.IntImm(0, e.dtype)
            if t is E.Mod:
                nonneg = a.has_lower_bound() and self._sign(a.min_value) == 1
                if not nonneg:
                    if a.has_upper_bound() and self._sign(a.max_value) == -1:
                        return self.mk(E.Sub(one, c), zero)
                    return self.mk(E.Sub(one, c), E.Sub(c, one))
            if a.has_lower_bound() and a.has_upper_bound():
                qa = self.simp(E.FloorDiv(a.min_value, c))
                qb = self.simp(E.FloorDiv(a.max_value, c))
                if structural_equal(qa, qb):
                    return self.mk(E.FloorMod(a.min_value, c), E.FloorMod(a.max_value, c))
            return self.mk(zero, E.Sub(c, one))
        if t is E.Min or t is E.Max:
            a, b = self.ev(e.a), self.ev(e.b)
            if a.is_nothing():
                return b
            if b.is_nothing():
                return a
            if a.is_single_point() and b.is_single_point():
                return self.point(t(a.min_value, b.min_value))
            f = _ep_min if t is E.Min else _ep_max
            return self.mk(f(a.min_value, b.min_value), f(a.max_value, b.max_value))
        if t is E.Select:
            return union_with(self.ana, [self.ev(e.true_value), self.ev(e.false_value)])
        if t is E.Call and e.op == "tir.if_then_else" and len(e.args) == 3:
            return union_with(self.ana, [self.ev(e.args[1]), self.ev(e.args[2])])
        if t is E.Cast:
            src, dst = dt.parse(e.value.dtype), dt.parse(e.dtype)
            if not (src.is_integer and dst.is_integer):
                return IntSet.everything()
            a = self.ev(e.value)
            if a.is_nothing():
                return a
            if a.is_single_point():
                return self.point(E.cast(e.dtype, a.min_value))
            lo = a.min_value if is_inf(a.min_value) else E.cast(e.dtype, a.min_value)
            hi = a.max_value if is_inf(a.max_value) else E.cast(e.dtype, a.max_value)
            return self.mk(lo, hi)
        if t is E.Let:
            v = self.ev(e.value)
            sub = _Evaluator(self.ana, dict(self.dom))
            sub.dom[e.var] = v
            return sub.ev(e.body)
        if t is E.Broadcast:
            return self.ev(e.value)
        if t is E.Ramp:
            base = self.ev(e.base)
            if isinstance(e.stride, E.IntImm):
                span = E.IntImm(e.stride.value * (e.lanes - 1), e.base.dtype)
                z = E.IntImm(0, e.base.dtype)
                lo, hi = (z, span) if e.stride.value >= 0 else (span, z)
                return self.mk(_ep_add(base.min_value, lo, -1), _ep_add(base.max_value, hi, 1))
            return IntSet.everything()
        if isinstance(e, (E.CmpOp, E.And, E.Or, E.Not)):
            kids = [self.ev(x) for x in e.field_values() if isinstance(x, E.PrimExpr)]
            if all(k.is_single_point() for k in kids):
                vals = [k.min_value for k in kids]
                return self.point(t(*vals))
            return IntSet(E.IntImm(0, "bool"), E.IntImm(1, "bool"))
        return IntSet.everything()

    def _linear_ends(self, e):
        """``(lo, hi)``, unsimplified, of a ``+``/``-`` tree of integer constants, vars and
        their products with constants whose vars in the domain range over constant sets:
        the ends the partial sums would give, term by term (the same terms in the same
        order, so the same linear form once simplified). None for any other expression."""
        if not _is_int(e.dtype):
            return None

        def go(x, flip):
            t = type(x)
            if t is E.Add or t is E.Sub:
                a = go(x.a, flip)
                b = go(x.b, flip if t is E.Add else not flip)
                if a is None or b is None:
                    return None
                return (t(a[0], b[0]), t(a[1], b[1]))
            if t is E.IntImm:
                return (x, x)
            if t is E.Mul:
                v, c = x.a, x.b
                if type(v) is E.IntImm:
                    v, c = c, v
                if type(c) is not E.IntImm or type(v) is not E.Var:
                    return None
                r = go(v, flip if c.value >= 0 else not flip)
                return None if r is None else (E.Mul(r[0], c), E.Mul(r[1], c))
            if t is not E.Var:
                return None
            st = self.dom.get(x)
            if st is None:
                return (x, x)
            lo, hi = st.min_value, st.max_value
            if type(lo) is not E.IntImm or type(hi) is not E.IntImm or lo.value > hi.value:
                return None
            return (hi, lo) if flip else (lo, hi)

        return go(e, False)

    def _strict_sign(self, c):
        lo, hi = self.ana.bound_numbers(c)
        if lo > 0:
            return 1
        if hi < 0:
            return -1
        return None


def _ep_neg_inf_aware(x):
    if is_inf(x):
        return _inf(-x.sign)
    return x


def _ep_min(x, y):
    if x is NEG_INF or y is NEG_INF:
        return NEG_INF
    if x is POS_INF:
        return y
    if y is POS_INF:
        return x
    return E.Min(x, y)


def _ep_max(x, y):
    if x is POS_INF or y is POS_INF:
        return POS_INF
    if x is NEG_INF:
        return y
    if y is NEG_INF:
        return x
    return E.Max(x, y)


def _norm_dom(dom_map):
    out = {}
    for k, v in (dom_map or {}).items():
        var = k.var if hasattr(k, "var") and hasattr(k, "dom") else k
        out[var] = to_int_set(v)
    return out


def eval_set_with(ana, expr, dom_map) -> IntSet:
    expr = E.convert(expr)
    return _Evaluator(ana, _norm_dom(dom_map)).ev(expr)


def eval_set(expr, dom_map=None) -> IntSet:
    """The IntSet of ``expr`` when each var in ``dom_map`` (Var/IterVar -> IntSet/Range) varies."""
    return eval_set_with(_fresh_analyzer(), expr, dom_map)


def union_with(ana, sets) -> IntSet:
    sets = [to_int_set(s) for s in sets]
    sets = [s for s in sets if not s.is_nothing()]
    if not sets:
        return IntSet.nothing()
    if len(sets) == 1:
        return sets[0]
    lo, hi = sets[0].min_value, sets[0].max_value
    for s in sets[1:]:
        lo = _ep_min(lo, s.min_value)
        hi = _ep_max(hi, s.max_value)
    ev = _Evaluator(ana, {})
    return ev.mk(lo, hi)


def intersect_with(ana, sets) -> IntSet:
    sets = [to_int_set(s) for s in sets]
    if not sets:
        return IntSet.everything()
    if any(s.is_nothing() for s in sets):
        return IntSet.nothing()
    lo, hi = sets[0].min_value, sets[0].max_value
    for s in sets[1:]:
        lo = _ep_max(lo, s.min_value)
        hi = _ep_min(hi, s.max_value)
    ev = _Evaluator(ana, {})
    r = ev.mk(lo, hi)
    if not is_inf(r.min_value) and not is_inf(r.max_value) and \
            _is_int(r.min_value.dtype) and dt.lanes(r.min_value.dtype) == 1:
        if ana.can_prove(E.LT(r.max_value, r.min_value)):
            return IntSet.nothing()
    return r


def union(sets) -> IntSet:
    """Smallest interval containing every set (endpoints simplified, comparisons proved)."""
    return union_with(_fresh_analyzer(), sets)


def intersect(sets) -> IntSet:
    """Interval of the points in every set (``nothing()`` when provably empty)."""
    return intersect_with(_fresh_analyzer(), sets)


__all__ = ["IntSet", "eval_set", "union", "intersect", "to_int_set"]
