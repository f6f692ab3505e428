"""The expression simplifier: a bottom-up rewriter over the linear canonical form.

Every rule keeps the value of the expression (for all values of the free vars that satisfy
the analyzer's known facts). Rules, one identity per line:

integers (signed scalar ints; unsigned/vector/float expressions only get constant folding):
  a + b, a - b, a * const        -> canonical sum  sum(k_i * t_i) + c     (like terms merged)
  x // c * c + x % c             -> x                                      (inside a sum)
  (q*c + r) // c                 -> q + r // c              (q: terms whose coeff c divides)
  r // c                         -> k     when every value of r lies in [k*c, k*c + c)
  (g*t + r) // c                 -> t // (c/g)       g = gcd(c, coeffs of t), 0 <= r < g
  (x // c1) // c2                -> x // (c1*c2)     c1, c2 > 0
  (q*c + r) % c                  -> r % c
  r % c                          -> r - k*c  when every value of r lies in [k*c, k*c + c)
  (g*t + r) % c                  -> (t % (c/g)) * g + r       g | c, 0 <= r < g
  (x % c1) % c2                  -> x % c2           c2 divides c1
  a // b, a % b (symbolic b)     -> 0, a             when 0 <= a < b is provable
  truncdiv/truncmod(a, c > 0)    -> floordiv/floormod when a >= 0 is provable
  min(a, b) / max(a, b)          -> a or b           when a <= b or b <= a is provable
  min(min(x, c1), c2)            -> min(x, min(c1, c2))        (same for max)
  a < b, a <= b, ... (ints)      -> True/False       when provable from bounds of a - b
  a < b (common terms)           -> (a - b without constant) < -const
  select(c, t, f), if_then_else  -> t / f when c is provable; t and f simplified under c / !c
  and/or/not                     -> constant folding, x and x -> x, not (a < b) -> a >= b
  cast(const)                    -> const; cast(t, cast(u, x: t)) -> x  (u at least as wide)
  let v = (const or var) in b    -> b[v := value]
floats: constant folding only (no reassociation, no x + 0.0 -> x).

Proofs use constant bounds (``const_bound``) of the simplified difference, and fall back to
relaxing variables that have *symbolic* bounds (loop ranges such as ``[0, n)`` and facts from
``constraint_scope`` such as ``i < n - 4*io``), innermost first.

Layout: ``Simplifier`` (here) memoizes, dispatches on the node type and keeps the scopes; the
rules live in mixins by operator family: ``rules_linear`` (+ - *), ``rules_divmod`` (// % and
truncating forms), ``rules_minmax``, ``rules_compare`` (comparisons, and/or/not),
``rules_select`` (select, if_then_else, likely, cast, let); ``proofs`` holds the bound proofs
they share, ``negation`` the exact negation of conditions.
"""
from __future__ import annotations

from ..tir import expr as E
from .canonical import Key
from .const_bound import BoundEvaluator
from .negation import negate
from .proofs import BoundProofs
from .rule_helpers import ADD_SUB_MUL, is_sint
from .rules_compare import CompareLogicRules
from .rules_divmod import DivModRules
from .rules_linear import LinearRules
from .rules_minmax import MinMaxRules
from .rules_select import SelectCastRules


class Simplifier(LinearRules, DivModRules, MinMaxRules, CompareLogicRules, SelectCastRules,
                 BoundProofs):
    """One simplification session over an Analyzer's current facts (memoized)."""

    def __init__(self, ana):
        self.ana = ana
        self.memo: dict = {}
        self.bev = BoundEvaluator(ana)
        self._subst_active: set = set()
        self._depth = 0
        self._frames: list = []        # (memo of the enclosing scope, vars of its condition)
        self._vars_cache: dict = {}

    # ------------------------------------------------------------------------------------------
    def simp(self, e):
        t = type(e)
        if t is E.IntImm or t is E.FloatImm or t is E.StringImm:
            return e
        if isinstance(e, E.Var):
            sub = self.ana.binding_of(e)
            if sub is not None and e not in self._subst_active:
                self._subst_active.add(e)
                try:
                    return self.simp(sub)
                finally:
                    self._subst_active.discard(e)
            return e
        if not isinstance(e, E.PrimExpr):
            return e
        key = Key(e)
        r = self.memo.get(key)
        if r is not None:
            return r
        outer = self._outer_memos(e) if self._frames else ()
        for m in outer:
            r = m.get(key)
            if r is not None:
                self.memo[key] = r
                return r
        r = self._dispatch(e)
        self.memo[key] = r
        for m in outer:
            m[key] = r
        if r is not e and not isinstance(r, (E.ConstExpr, E.Var)):
            self.memo.setdefault(Key(r), r)
        return r

    def _outer_memos(self, e):
        """Memos of enclosing scopes whose results are valid here and there for ``e``.

        A scope only adds facts about the vars of its condition, so an expression that uses
        none of them simplifies the same inside and outside: share the result both ways (this
        keeps nested selects over shared sub-DAGs linear instead of exponential).
        """
        vs = self._linked_vars(self._vars(e))
        out = []
        for memo, cond_vars in reversed(self._frames):
            if vs & cond_vars:
                break
            out.append(memo)
        return out

    def _linked_vars(self, vs):
        """``vs`` plus every var their known facts mention (an expression bound to a var, its
        symbolic bounds, its range), transitively: a condition on ``x`` also changes what is
        provable about ``z`` when ``z <= x`` is known."""
        ana = self.ana
        if not ana.has_var_facts():
            return vs
        out, todo = set(vs), list(vs)
        while todo:
            v = todo.pop()
            linked = list(ana.symbolic_lower_bounds(v)) + list(ana.symbolic_upper_bounds(v))
            sub, rng = ana.binding_of(v), ana.range_of(v)
            if sub is not None:
                linked.append(sub)
            if rng is not None:        # a Range, or an IntSet with symbolic ends
                linked += [getattr(rng, a, None) for a in ("min", "extent", "min_value",
                                                            "max_value")]
            for x in linked:
                for w in self._vars(x) if isinstance(x, E.Node) else ():
                    if w not in out:
                        out.add(w)
                        todo.append(w)
        return out

    def _vars(self, e):
        hit = self._vars_cache.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        if isinstance(e, E.Var):
            r = frozenset((e,))
        else:
            acc = set()
            for v in e.field_values() if isinstance(e, E.Node) else ():
                if isinstance(v, E.Node):
                    acc |= self._vars(v)
                elif isinstance(v, tuple):
                    for x in v:
                        if isinstance(x, E.Node):
                            acc |= self._vars(x)
            r = frozenset(acc)
        self._vars_cache[id(e)] = (e, r)
        return r

    def bound(self, e):
        return self.bev.bound(e)

    def scoped(self, cond):
        """Context: simplify under ``cond`` (fresh memo, restored after)."""
        simp = self

        class _Ctx:
            def __enter__(self_):
                # fresh memo and bound cache *before* the constraint goes in: bounds computed
                # while it is being added (under some of its conjuncts) must not stay in the
                # outer caches, where they would be too tight after the scope ends
                self_.saved = (simp.memo, simp.bev)
                simp._frames.append((simp.memo, simp._vars(cond)))
                simp.memo = {}
                simp.bev = BoundEvaluator(simp.ana)
                self_.cm = simp.ana.constraint_scope(cond, simp)
                self_.cm.__enter__()

            def __exit__(self_, *exc):
                simp._frames.pop()
                simp.memo, simp.bev = self_.saved
                return self_.cm.__exit__(*exc)

        return _Ctx()

    # ------------------------------------------------------------------------------------------
    def _dispatch(self, e):
        t = type(e)
        if t in ADD_SUB_MUL:
            if is_sint(e.dtype):
                return self._canon(e)
            return self._fold_binary(e)
        if t is E.FloorDiv or t is E.FloorMod:
            a, b = self.simp(e.a), self.simp(e.b)
            if not is_sint(e.dtype):
                return self._fold_binary(e, a, b)
            return self._fdiv(a, b) if t is E.FloorDiv else self._fmod(a, b)
        if t is E.Div or t is E.Mod:
            return self._trunc(e)
        if t is E.Min or t is E.Max:
            return self._minmax(e)
        if issubclass(t, E.CmpOp):
            return self._cmp(e)
        if t is E.And or t is E.Or:
            return self._logic(e)
        if t is E.Not:
            return self._not(e)
        if t is E.Select:
            return self._select(e, e.condition, e.true_value, e.false_value)
        if t is E.Call:
            return self._call(e)
        if t is E.Cast:
            return self._cast(e)
        if t is E.Let:
            return self._let(e)
        return self._generic(e)

    def _generic(self, e):
        """Rebuild ``e`` with simplified PrimExpr children (other fields untouched)."""
        old = e.field_values()
        new = []
        for v in old:
            if isinstance(v, E.PrimExpr):
                new.append(self.simp(v))
            elif isinstance(v, tuple) and any(isinstance(x, E.PrimExpr) for x in v):
                nv = tuple(self.simp(x) if isinstance(x, E.PrimExpr) else x for x in v)
                new.append(v if all(a is b for a, b in zip(nv, v)) else nv)
            else:
                new.append(v)
        if all(a is b for a, b in zip(new, old)):
            return e
        return type(e)._make(*new)

    def _fold_binary(self, e, a=None, b=None):
        """Children simplified, constants folded (no algebra): floats, unsigned, vectors."""
        if a is None:
            a, b = self.simp(e.a), self.simp(e.b)
        t = type(e)
        if isinstance(a, E.ConstExpr) and isinstance(b, E.ConstExpr):
            f = E._fold_int(t, a, b)
            if f is not None:
                return f
            if t is E.Div and isinstance(a, E.FloatImm) and b.value != 0:
                return E.FloatImm(a.value / b.value, a.dtype)
        if a is e.a and b is e.b:
            return e
        return t(a, b)


__all__ = ["Simplifier", "negate"]
