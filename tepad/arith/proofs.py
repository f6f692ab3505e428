"""How the simplifier proves inequalities: constant bounds of a difference, then a search that
relaxes variables with symbolic bounds (``_RefineRun`` keeps that search resumable).
"""
from __future__ import annotations

import threading

from ..tir import expr as E
from .canonical import Key, Linear, Overflow
from .const_bound import BoundEvaluator, INF, POS_INF, NEG_INF
from .context import MEMO
from .int_set import IntSet, eval_set_with
from .rule_helpers import ADD_SUB_MUL, is_sint
from .witness import free_vars, witness_values


class BoundProofs:
    """Mixin of ``Simplifier``: uses its ``simp``, ``bound`` and ``ana`` and the other rule
    mixins' methods through ``self``."""

    def _diff(self, a, b):
        return self.simp(E.Sub(a, b))

    def _bounds_of(self, d, need):
        """Bounds of ``d``; ``need(lo, hi)`` says whether they already decide the question."""
        lo, hi = self.bound(d)
        if need(lo, hi):
            return lo, hi
        lo, hi = self._bound2(d, lo, hi)
        if need(lo, hi) or self.ana.constant_bounds_only or not self.ana.has_symbolic_bounds():
            return lo, hi
        # no var of d has a symbolic bound: the search below finds nothing (``_refine`` says
        # None on both sides), so neither it nor the witnesses that would skip it are run
        if not (free_vars(d) & self.ana.symbolically_bounded_vars()):
            return lo, hi
        if self._refuted(d, need):
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

    def _refuted(self, d, need):
        """Values ``d`` takes where every fact holds already rule ``need`` out: no bounds
        the search could find would satisfy it (``need`` only gets easier as bounds tighten),
        so the search is skipped (``tepad.arith.witness``)."""
        coeffs = None
        if is_sint(d.dtype) and type(d) in ADD_SUB_MUL:
            try:
                coeffs = {t: k for t, k in self._lin(d, False).items() if isinstance(t, E.Var)}
            except Overflow:
                coeffs = None
        lo = hi = None
        for w in witness_values(self.ana, d, coeffs):
            lo = w if lo is None else min(lo, w)
            hi = w if hi is None else max(hi, w)
            if not need(lo, hi):
                return True
        return False

    def _bound2(self, d, lo, hi, bound=None):
        """Bounds of ``d`` also through ``(x // c) * c -> x - x % c`` (proofs only)."""
        if not is_sint(d.dtype) or type(d) not in ADD_SUB_MUL:
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
        """a <= b.

        Memoized per context, as ``Analyzer._simp_once`` is: a fresh session's answer depends
        only on the facts, ``constant_bounds_only`` and the structure of ``a`` and ``b``. The min/max rules
        ask the same pairs again and again (every level of a chain of clamped stages compares
        the operands of the level before). Not while a let substitution is being
        expanded (the session's state then matters)."""
        if self._subst_active:
            return self._prove_le_fresh(a, b)
        ana = self.ana
        table = MEMO.table((ana.context_id(), ana.constant_bounds_only, "prove_le"))
        key = (Key(a), Key(b))
        r = table.get(key)
        if r is None:
            r = table[key] = self._prove_le_fresh(a, b)
        return r

    def _prove_le_fresh(self, a, b):
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
        if not (free_vars(d) & ana.symbolically_bounded_vars()):
            return None
        # a run is a generator: one per thread, so two threads never resume the same one
        runs = MEMO.table((ana.context_id(), "refine", threading.get_ident()))
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
        sym = ana.symbolically_bounded_vars()
        bev = BoundEvaluator(ana)
        best = INF if side > 0 else -INF
        budget = 24        # interval evaluations per refinement: keeps lowering time bounded
        frontier = [d]
        seen = set()
        for _ in range(3):
            nxt = []
            for x in frontier:
                vs = sorted(free_vars(x) & sym, key=lambda v: v.name)
                for v in vs:
                    clo, chi = ana.const_bound_of(v, (-INF, INF))
                    lows = list(ana.symbolic_lower_bounds(v)) + [_num_ep(clo, v.dtype)]
                    highs = list(ana.symbolic_upper_bounds(v)) + [_num_ep(chi, v.dtype)]
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
            ana.constant_bounds_only = True      # nested proofs use constant bounds only
            try:
                v = next(self.gen)
            except StopIteration as stop:
                self.gen, self.final = None, stop.value
                return self.final
            finally:
                ana.constant_bounds_only = False
            self.seen.append(v)
            if done(v):
                return v


def _num_ep(x, dtype):
    if x == INF:
        return POS_INF
    if x == -INF:
        return NEG_INF
    return E.IntImm(int(x), dtype)


__all__ = ["BoundProofs"]
