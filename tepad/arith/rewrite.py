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
"""
from __future__ import annotations

import itertools
import math
import threading

from ..tir import expr as E
from ..tir import dtype as dt
from ..tir.functor import collect_vars, substitute
from .canonical import Key, Linear, Overflow, dag_equal as structural_equal
from .const_bound import BoundEvaluator, INF, to_num, POS_INF, NEG_INF
from .context import MEMO

_ASM = (E.Add, E.Sub, E.Mul)
_MAX_SCOPE_DEPTH = 64
_MIRROR = {E.LT: E.GT, E.GT: E.LT, E.LE: E.GE, E.GE: E.LE, E.EQ: E.EQ, E.NE: E.NE}
_FLIP = {E.LT: E.GE, E.GE: E.LT, E.LE: E.GT, E.GT: E.LE, E.EQ: E.NE, E.NE: E.EQ}


def _is_sint(dtype: str) -> bool:
    d = dt.parse(dtype)
    return d.is_int and d.lanes == 1


def _true():
    return E.IntImm(1, "bool")


def _false():
    return E.IntImm(0, "bool")


def _imm_fits(v, dtype):
    d = dt.parse(dtype)
    if d.is_int:
        return -(1 << (d.bits - 1)) <= v < (1 << (d.bits - 1))
    return True


class Simplifier:
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
            sub = self.ana._subst.get(e)
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
        if not (ana._subst or ana._sym_lo or ana._sym_hi or ana._ranges):
            return vs
        out, todo = set(vs), list(vs)
        while todo:
            v = todo.pop()
            linked = list(ana._sym_lo.get(v, ())) + list(ana._sym_hi.get(v, ()))
            sub, rng = ana._subst.get(v), ana._ranges.get(v)
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
                self_.cm = simp.ana._constraint_scope_with(cond, simp)
                self_.cm.__enter__()

            def __exit__(self_, *exc):
                simp._frames.pop()
                simp.memo, simp.bev = self_.saved
                return self_.cm.__exit__(*exc)

        return _Ctx()

    # ------------------------------------------------------------------------------------------
    def _dispatch(self, e):
        t = type(e)
        if t in _ASM:
            if _is_sint(e.dtype):
                return self._canon(e)
            return self._fold_binary(e)
        if t is E.FloorDiv or t is E.FloorMod:
            a, b = self.simp(e.a), self.simp(e.b)
            if not _is_sint(e.dtype):
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

    # --- linear canonical form ----------------------------------------------------------------
    def _canon(self, e):
        try:
            lin = self._lin(e, True)
            lin = self._merge_divmod(lin)
            return lin.to_expr()
        except Overflow:
            a, b = self.simp(e.a), self.simp(e.b)
            return e if (a is e.a and b is e.b) else type(e)(a, b)

    def _lin(self, e, simp_leaves=True) -> Linear:
        t = type(e)
        if t is E.IntImm:
            return Linear.of_const(e.dtype, e.value)
        if t is E.Add:
            return self._lin(e.a, simp_leaves).iadd(self._lin(e.b, simp_leaves))
        if t is E.Sub:
            return self._lin(e.a, simp_leaves).iadd(self._lin(e.b, simp_leaves), -1)
        if t is E.Mul:
            la, lb = self._lin(e.a, simp_leaves), self._lin(e.b, simp_leaves)
            if lb.is_const():
                return la.scale(lb.const)
            if la.is_const():
                return lb.scale(la.const)
            return self._mul_terms(la, lb)
        if simp_leaves:
            s = self.simp(e)
            if type(s) in (E.Add, E.Sub, E.Mul, E.IntImm) and s.dtype == e.dtype:
                return self._lin(s, False)
            return Linear.of_term(s)
        return Linear.of_term(e)

    @staticmethod
    def _split_scale(lin):
        items = lin.items()
        if lin.const == 0 and len(items) == 1:
            return items[0]
        return lin.to_expr(), 1

    def _mul_terms(self, la, lb):
        ta, ka = self._split_scale(la)
        tb, kb = self._split_scale(lb)
        # commutative: order the factors by their text (deterministic; ties keep order)
        if _text(tb) < _text(ta):
            ta, tb = tb, ta
        return Linear.of_term(E.Mul(ta, tb), ka * kb)

    def _merge_divmod(self, lin):
        """``(x // c) * (k*c) + (x % c) * k -> x * k`` inside a sum."""
        changed = True
        while changed:
            changed = False
            for t, k in lin.items():
                if type(t) is E.FloorMod and isinstance(t.b, E.IntImm) and t.b.value > 0:
                    c = t.b.value
                    partner = E.FloorDiv(t.a, t.b)
                    pk = lin.terms.get(Key(partner))
                    if pk is not None and pk == k * c:
                        lin.terms.pop(Key(t))
                        lin.terms.pop(Key(partner))
                        lin.iadd(self._lin(t.a, False).scale(k))
                        changed = True
                        break
        return lin

    def _const(self, v, dtype):
        if not _imm_fits(v, dtype):
            raise Overflow(v)
        return E.IntImm(v, dtype)

    # --- division -----------------------------------------------------------------------------
    def _finite(self, b):
        return not math.isinf(b[0]) and not math.isinf(b[1])

    def _fdiv(self, a, b):
        dtype = a.dtype
        if isinstance(b, E.IntImm):
            c = b.value
            if c == 0:
                return E.FloorDiv(a, b)
            if isinstance(a, E.IntImm):
                return E.IntImm(a.value // c, dtype)
            if c == 1:
                return a
            if c < 0:
                lo, hi = self.bound(a)
                if self._finite((lo, hi)) and lo // c == hi // c:
                    return E.IntImm(lo // c, dtype)
                return E.FloorDiv(a, b)
            try:
                la = self._lin(a, False)
                q, r = Linear(dtype), Linear(dtype)
                for t, k in la.items():
                    if k % c == 0:
                        q.add_term(t, k // c)
                    else:
                        r.add_term(t, k)
                q.const, r.const = la.const // c, la.const % c
                return (q + self._fdiv_residual(r, c)).to_expr()
            except Overflow:
                return E.FloorDiv(a, b)
        if self._prove_range(a, b):
            return E.IntImm(0, dtype)
        return E.FloorDiv(a, b)

    def _fdiv_residual(self, r, c) -> Linear:
        dtype = r.dtype
        if r.is_const():
            return Linear.of_const(dtype, r.const // c)
        re = r.to_expr()
        lo, hi = self.bound(re)
        if self._finite((lo, hi)) and lo // c == hi // c:
            return Linear.of_const(dtype, lo // c)
        items = r.items()
        g = math.gcd(c, *[k for _, k in items])
        if g > 1 and r.const < g:
            t = Linear(dtype, {Key(x): k // g for x, k in items}).to_expr()
            if c // g == 1:
                return self._lin(t, False)
            return self._lin(self._fdiv(t, E.IntImm(c // g, dtype)), False)
        if r.const == 0 and len(items) == 1 and items[0][1] == 1:
            x = items[0][0]
            if type(x) is E.FloorDiv and isinstance(x.b, E.IntImm) and x.b.value > 0 \
                    and _imm_fits(x.b.value * c, dtype):
                return self._lin(self._fdiv(x.a, E.IntImm(x.b.value * c, dtype)), False)
        return Linear.of_term(E.FloorDiv(re, E.IntImm(c, dtype)))

    def _fmod(self, a, b):
        dtype = a.dtype
        if isinstance(b, E.IntImm):
            c = b.value
            if c == 0:
                return E.FloorMod(a, b)
            if isinstance(a, E.IntImm):
                return E.IntImm(a.value % c, dtype)
            if c == 1 or c == -1:
                return E.IntImm(0, dtype)
            if c < 0:
                return E.FloorMod(a, b)
            try:
                la = self._lin(a, False)
                r = Linear(dtype)
                for t, k in la.items():
                    if k % c:
                        r.add_term(t, k)
                r.const = la.const % c
                return self._fmod_residual(r, c).to_expr()
            except Overflow:
                return E.FloorMod(a, b)
        if self._prove_range(a, b):
            return a
        return E.FloorMod(a, b)

    def _fmod_residual(self, r, c) -> Linear:
        dtype = r.dtype
        if r.is_const():
            return r
        re = r.to_expr()
        lo, hi = self.bound(re)
        if lo >= 0 and hi < c:
            return r
        if self._finite((lo, hi)) and lo // c == hi // c:
            return r - Linear.of_const(dtype, (lo // c) * c)
        items = r.items()
        g = math.gcd(c, *[k for _, k in items])
        if g > 1 and r.const < g:
            t = Linear(dtype, {Key(x): k // g for x, k in items}).to_expr()
            m = self._lin(self._fmod(t, E.IntImm(c // g, dtype)), False).scale(g)
            m.const += r.const
            return m
        if r.const == 0 and len(items) == 1 and items[0][1] == 1:
            x = items[0][0]
            if type(x) is E.FloorMod and isinstance(x.b, E.IntImm) and x.b.value > 0 \
                    and x.b.value % c == 0:
                return self._lin(self._fmod(x.a, E.IntImm(c, dtype)), False)
        return Linear.of_term(E.FloorMod(re, E.IntImm(c, dtype)))

    def _trunc(self, e):
        a, b = self.simp(e.a), self.simp(e.b)
        t = type(e)
        if not _is_sint(e.dtype):
            return self._fold_binary(e, a, b)
        if isinstance(a, E.IntImm) and isinstance(b, E.IntImm) and b.value != 0:
            return E._fold_int(t, a, b)
        if isinstance(b, E.IntImm):
            if b.value == 1:
                return a if t is E.Div else E.IntImm(0, a.dtype)
            if b.value > 0 and self._prove_nonneg(a):
                return self._fdiv(a, b) if t is E.Div else self._fmod(a, b)
        elif self._prove_nonneg(a) and self._prove_range(a, b):
            return E.IntImm(0, a.dtype) if t is E.Div else a
        if a is e.a and b is e.b:
            return e
        return t(a, b)

    # --- proofs -------------------------------------------------------------------------------
    def _diff(self, a, b):
        return self.simp(E.Sub(a, b))

    def _bounds_of(self, d, need):
        """Bounds of ``d``; ``need(lo, hi)`` says whether they already decide the question."""
        lo, hi = self.bound(d)
        if need(lo, hi):
            return lo, hi
        lo, hi = self._bound2(d, lo, hi)
        if need(lo, hi) or self.ana._in_sym or not (self.ana._sym_lo or self.ana._sym_hi):
            return lo, hi
        h = self._refine(d, 1, lambda v: need(lo, min(hi, v)))
        if h is not None:
            hi = min(hi, h)
        if need(lo, hi):
            return lo, hi
        lw = self._refine(d, -1, lambda v: need(max(lo, v), hi))
        if lw is not None:
            lo = max(lo, lw)
        return lo, hi

    def _bound2(self, d, lo, hi, bound=None):
        """Bounds of ``d`` also through ``(x // c) * c -> x - x % c`` (proofs only)."""
        if not _is_sint(d.dtype) or type(d) not in _ASM:
            return lo, hi
        try:
            lin = self._lin(d, False)
            out = Linear(lin.dtype, None, lin.const)
            changed = False
            for t, k in lin.items():
                if type(t) is E.FloorDiv and isinstance(t.b, E.IntImm) and t.b.value > 0 \
                        and k % t.b.value == 0:
                    m = k // t.b.value
                    out.iadd(self._lin(t.a, False).scale(m))
                    out.add_term(E.FloorMod(t.a, t.b), -m)
                    changed = True
                else:
                    out.add_term(t, k)
            if not changed:
                return lo, hi
            l2, h2 = (bound or self.bound)(out.to_expr())
            return max(lo, l2), min(hi, h2)
        except Overflow:
            return lo, hi

    def _prove_le(self, a, b):
        """a <= b."""
        d = self._diff(a, b)
        return self._bounds_of(d, lambda lo, hi: hi <= 0)[1] <= 0

    def _prove_nonneg(self, a):
        return self._bounds_of(a, lambda lo, hi: lo >= 0)[0] >= 0

    def _prove_range(self, a, b):
        """0 <= a < b."""
        if not self._prove_nonneg(a):
            return False
        d = self._diff(a, b)
        return self._bounds_of(d, lambda lo, hi: hi <= -1)[1] <= -1

    def _refine(self, d, side, done):
        """Tighter bound of ``d`` on ``side`` (+1 upper, -1 lower), or None.

        Vars with symbolic bounds are relaxed one at a time (each alternative bound tried), a
        few rounds deep, so correlated bounds such as ``i <= n - 4*io - 1`` cancel exactly.
        Stops as soon as ``done(bound)`` holds. The search is shared by every query about
        ``d`` under the same facts (see ``_RefineRun``): its answer is the one a fresh search
        stopping at the same ``done`` would give.
        """
        ana = self.ana
        if not (collect_vars(d) & (ana._sym_lo.keys() | ana._sym_hi.keys())):
            return None
        # a run is a generator: one per thread, so two threads never resume the same one
        runs = MEMO.table((ana._context(), "refine", threading.get_ident()))
        key = (Key(d), side)
        run = runs.get(key)
        if run is None:
            run = runs[key] = _RefineRun()
            run.gen = self._refine_steps(run, d, side)
        try:
            return run.answer(ana, done)
        except BaseException:
            runs.pop(key, None)
            raise

    def _refine_steps(self, run, d, side):
        """Generator of the successive best bounds of the search; returns the final best.

        Reads the facts of ``run.ana`` (the analyzer resuming it) only while running, so it
        must only be resumed under the facts it was started with (runs are stored per
        context id).
        """
        ana = run.ana
        sym = set(ana._sym_lo) | set(ana._sym_hi)
        from .int_set import IntSet, eval_set_with
        bev = BoundEvaluator(ana)
        best = INF if side > 0 else -INF
        budget = 24        # interval evaluations per refinement: keeps lowering time bounded
        frontier = [d]
        seen = set()
        for _ in range(3):
            nxt = []
            for x in frontier:
                vs = sorted(collect_vars(x) & sym, key=lambda v: v.name)
                for v in vs:
                    clo, chi = ana._bounds.get(v, (-INF, INF))
                    lows = list(ana._sym_lo.get(v, ())) + [_num_ep(clo, v.dtype)]
                    highs = list(ana._sym_hi.get(v, ())) + [_num_ep(chi, v.dtype)]
                    for lo_ in lows:
                        for hi_ in highs:
                            budget -= 1
                            if budget < 0:
                                return best
                            s = eval_set_with(ana, x, {v: IntSet(lo_, hi_)})
                            y = s.max() if side > 0 else s.min()
                            if y is POS_INF or y is NEG_INF:
                                continue
                            b = self._bound2(y, *bev.bound(y), bound=bev.bound)
                            best = min(best, b[1]) if side > 0 else max(best, b[0])
                            yield best
                            ana = bev.ana = run.ana
                            k = Key(y)
                            if k not in seen:
                                seen.add(k)
                                nxt.append(y)
            frontier = nxt[:6]
            if not frontier:
                break
        return best

    # --- min / max ----------------------------------------------------------------------------
    def _minmax(self, e):
        t = type(e)
        is_min = t is E.Min
        a, b = self.simp(e.a), self.simp(e.b)
        if isinstance(a, E.ConstExpr) and isinstance(b, E.ConstExpr):
            f = E._fold_int(t, a, b)
            if f is not None:
                return f
        if not _is_sint(e.dtype):
            return e if (a is e.a and b is e.b) else t(a, b)
        if isinstance(a, E.IntImm) and not isinstance(b, E.IntImm):
            a, b = b, a
        if structural_equal(a, b):
            return a
        if self._prove_le(a, b):
            return a if is_min else b
        if self._prove_le(b, a):
            return b if is_min else a
        if isinstance(b, E.IntImm) and type(a) is t and isinstance(a.b, E.IntImm):
            return t(a.a, E._fold_int(t, a.b, b))
        if type(a) is t and (structural_equal(a.a, b) or structural_equal(a.b, b)):
            return a
        if type(b) is t and (structural_equal(b.a, a) or structural_equal(b.b, a)):
            return b
        if a is e.a and b is e.b:
            return e
        return t(a, b)

    # --- comparisons and logic ----------------------------------------------------------------
    def _cmp(self, e):
        t = type(e)
        a, b = self.simp(e.a), self.simp(e.b)
        if isinstance(a, E.ConstExpr) and isinstance(b, E.ConstExpr) and a.dtype == b.dtype:
            return E._cmp(t, a, b)
        if not _is_sint(a.dtype):
            if structural_equal(a, b) and dt.parse(a.dtype).is_integer:
                return _true() if t in (E.EQ, E.LE, E.GE) else _false()
            return e if (a is e.a and b is e.b) else t(a, b)
        try:
            dl = self._lin(a, False) - self._lin(b, False)
            d = dl.to_expr()
        except Overflow:
            return e if (a is e.a and b is e.b) else t(a, b)
        decided = self._decide(t, d)
        if decided is not None:
            return _true() if decided else _false()
        # normalise when terms cancelled: (terms of a - b) op -const
        la_n = len(self._lin(a, False).terms)
        lb_n = len(self._lin(b, False).terms)
        if len(dl.terms) < la_n + lb_n and dl.terms:
            try:
                if any(k > 0 for k in dl.terms.values()):
                    a = Linear(dl.dtype, dl.terms).to_expr()
                    b = self._const(-dl.const, dl.dtype)
                else:
                    a = Linear(dl.dtype, dl.terms).scale(-1).to_expr()
                    b = self._const(dl.const, dl.dtype)
                    t = _MIRROR[t]
            except Overflow:
                pass
        r = e if (a is e.a and b is e.b and t is type(e)) else t(a, b)
        return self._check_facts(r)

    def _decide(self, t, d):
        if isinstance(d, E.IntImm):
            v = d.value
            return {E.LT: v < 0, E.LE: v <= 0, E.GT: v > 0, E.GE: v >= 0,
                    E.EQ: v == 0, E.NE: v != 0}[t]

        def rule(lo, hi):
            if t is E.LT:
                return True if hi < 0 else (False if lo >= 0 else None)
            if t is E.LE:
                return True if hi <= 0 else (False if lo > 0 else None)
            if t is E.GT:
                return True if lo > 0 else (False if hi <= 0 else None)
            if t is E.GE:
                return True if lo >= 0 else (False if hi < 0 else None)
            if t is E.EQ:
                return True if lo == hi == 0 else (False if lo > 0 or hi < 0 else None)
            return False if lo == hi == 0 else (True if lo > 0 or hi < 0 else None)

        lo, hi = self._bounds_of(d, lambda lo, hi: rule(lo, hi) is not None)
        return rule(lo, hi)

    def _check_facts(self, r):
        facts = self.ana._facts
        if not facts:
            return r
        for f in facts:
            if structural_equal(f, r):
                return _true()
        neg = negate(r)
        if neg is not None:
            for f in facts:
                if structural_equal(f, neg):
                    return _false()
        return r

    def _logic(self, e):
        t = type(e)
        a = self.simp(e.a)
        if isinstance(a, E.IntImm):
            if (t is E.And) == bool(a.value):
                return self.simp(e.b)
            return a
        b = self.simp(e.b)
        if isinstance(b, E.IntImm):
            return a if (t is E.And) == bool(b.value) else b
        if structural_equal(a, b):
            return a
        na = negate(a)
        if na is not None and structural_equal(na, b):
            return _false() if t is E.And else _true()
        return e if (a is e.a and b is e.b) else t(a, b)

    def _not(self, e):
        a = self.simp(e.a)
        if isinstance(a, E.IntImm):
            return E.IntImm(1 - a.value, "bool")
        n = negate(a)
        if n is not None:
            return n
        return e if a is e.a else E.Not(a)

    # --- select / calls / cast / let ----------------------------------------------------------
    def _select(self, e, cond, tv, fv, make=None):
        c = self.simp(cond)
        if isinstance(c, E.IntImm):
            return self.simp(tv if c.value else fv)
        if self._depth < _MAX_SCOPE_DEPTH:
            # branches are simplified knowing the condition (nesting bounded for safety)
            self._depth += 1
            try:
                with self.scoped(c):
                    t2 = self.simp(tv)
                nc = negate(c)
                with self.scoped(nc if nc is not None else E.Not(c)):
                    f2 = self.simp(fv)
            finally:
                self._depth -= 1
        else:
            t2, f2 = self.simp(tv), self.simp(fv)
        if structural_equal(t2, f2):
            return t2
        if make is not None:
            return make(c, t2, f2)
        if c is cond and t2 is tv and f2 is fv:
            return e
        return E.Select(c, t2, f2)

    def _call(self, e):
        if e.op == "tir.if_then_else" and len(e.args) == 3:
            def make(c, t, f):
                if c is e.args[0] and t is e.args[1] and f is e.args[2]:
                    return e
                return E.Call(e.dtype, e.op, [c, t, f])
            return self._select(e, *e.args, make=make)
        if e.op == "tir.likely" and len(e.args) == 1:
            a = self.simp(e.args[0])
            if isinstance(a, E.IntImm):
                return a
            return e if a is e.args[0] else E.Call(e.dtype, e.op, [a])
        return self._generic(e)

    def _cast(self, e):
        v = self.simp(e.value)
        if v.dtype == e.dtype:
            return v
        if isinstance(v, E.ConstExpr) and dt.lanes(e.dtype) == 1:
            r = E.cast(e.dtype, v)
            if isinstance(r, E.ConstExpr):
                return r
        if type(v) is E.Cast:
            x = v.value
            do, dm, dx = dt.parse(e.dtype), dt.parse(v.dtype), dt.parse(x.dtype)
            if x.dtype == e.dtype and do.is_integer and dm.is_integer and \
                    dm.code == dx.code and dm.bits >= dx.bits and dm.lanes == dx.lanes:
                return x
        return e if v is e.value else E.Cast(e.dtype, v)

    def _let(self, e):
        v = self.simp(e.value)
        if isinstance(v, (E.ConstExpr, E.Var)):
            return self.simp(substitute(e.body, {e.var: v}))
        ana = self.ana
        old = ana._bounds.get(e.var)
        ctx = ana._ctx
        saved = (self.memo, self.bev)
        if _is_sint(v.dtype):
            ana._bounds[e.var] = self.bound(v)
        self.memo, self.bev = {}, BoundEvaluator(ana)
        try:
            body = self.simp(e.body)
        finally:
            self.memo, self.bev = saved
            if old is None:
                ana._bounds.pop(e.var, None)
            else:
                ana._bounds[e.var] = old
            ana._ctx = ctx      # the facts are exactly those of `ctx` again
        if v is e.value and body is e.body:
            return e
        return E.Let(e.var, v, body)


class _RefineRun:
    """One ``_refine`` search, resumable: the bounds it produced so far and its final answer.

    ``answer(done)`` replays the produced bounds and resumes the search only past them, so
    the answer equals that of a fresh search stopping at the first bound where ``done``
    holds (the search itself never depends on ``done``).
    """

    __slots__ = ("gen", "seen", "final", "ana")

    def __init__(self, gen=None):
        self.gen = gen
        self.seen: list = []
        self.final = None
        self.ana = None

    def answer(self, ana, done):
        for v in self.seen:
            if done(v):
                return v
        if self.gen is None:
            return self.final
        self.ana = ana
        while True:
            ana._in_sym = True      # nested proofs use constant bounds only
            try:
                v = next(self.gen)
            except StopIteration as stop:
                self.gen, self.final = None, stop.value
                return self.final
            finally:
                ana._in_sym = False
            self.seen.append(v)
            if done(v):
                return v


def negate(c):
    """``not c`` as a comparison when that is exact (integer comparisons), else None."""
    t = type(c)
    if t in _FLIP and _is_sint(c.a.dtype):
        return _FLIP[t](c.a, c.b)
    if t is E.Not:
        return c.a
    return None


def _text(e):
    from ..tir.printer import expr_to_str
    return expr_to_str(e)


def _num_ep(x, dtype):
    if x == INF:
        return POS_INF
    if x == -INF:
        return NEG_INF
    return E.IntImm(int(x), dtype)


__all__ = ["Simplifier", "negate"]
