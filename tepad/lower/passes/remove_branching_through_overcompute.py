"""remove_branching_through_overcompute: drop ``if`` guards whose skipped work is a no-op.

RFC 0077 "Remove Branching Through Overcompute". For every ``if cond: T [else: F]``:

- without ``else``: ``T`` is simplified assuming ``not cond`` (with the enclosing loop ranges,
  conditions, ``tir.assume`` facts and known buffer contents from ``simplify_with_facts``) and
  then cleaned by ``remove_no_op``; if nothing remains, and every buffer access of ``T`` is
  provably in bounds when ``not cond``, the statement becomes ``T`` (executed unconditionally);
- without ``else``, when ``T`` is one store ``B[idx] = v`` whose location, under ``not cond``,
  is overwritten later by a ``tir.undef`` store nest (``for ..: if pad: B[..] = undef``, the
  RFC's "write is a no-op if it is overwritten") with no read of ``B`` in between, and ``v``
  reads ``B`` at most at ``idx``: the statement becomes ``T``;
- with ``else``: if ``T`` simplified under ``not cond`` equals ``F`` simplified under
  ``not cond``, the statement becomes ``T``; symmetrically if ``F`` under ``cond`` equals ``T``
  under ``cond``, it becomes ``F``;
- without ``else``, when the whole guard cannot go but it is a conjunction
  ``c1 and ... and cn`` (inside ``T.likely`` or not): each conjunct ``ci`` is dropped when,
  under ``not ci`` and the conjuncts still kept, ``T`` is a no-op by the two rules above and
  all its accesses are in bounds. This is how a reduction over padded axes loses the guard on
  its reduce axis: when the padding holds the reducer's identity (``pad_value=0`` for a sum,
  the minimum for a max, ...), the update that reads padding (``B = B + 0``) is a no-op. The
  guard kept is ``T.likely(kept conjuncts)`` when the original was wrapped in ``T.likely``.

A store ``B[idx] = max(B[idx], c)`` (or ``min``) left after simplification counts as a no-op
when ``c`` is the identity of that combiner for every value ``B`` can hold: the dtype's least
(greatest) integer; ``-inf`` (``+inf``) for floats; or the least (greatest) finite float
(``te.min_value``, the identity tepad's ``te.max`` starts from) when every store into ``B`` in
the function writes a constant no smaller (no greater) than ``c`` or a ``max`` (``min``) with
``B[same idx]``, so ``B`` never holds ``-inf`` (``+inf``). NaN is not considered, as for
``x + 0.0``.

Guarantee: for every input satisfying the function's assumptions, the result performs the same
stores with the same values at every location that is observable (extra stores only rewrite a
location with the value it already holds); no access goes out of bounds. The rest of the
function is simplified as ``simplify_with_facts`` does. The row summation of RFC 0077 with
``pad_value=0`` loses the conditional in its inner loop.
"""
from __future__ import annotations

import math

from ...arith.negation import negate_cond
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Visitor, post_order_visit, substitute
from ...tir.op import is_call, likely, max_value, min_value
from ...tir.structural import structural_equal
from .remove_no_op import NoOpRemover
from .simplify_with_facts import FactSimplifier
from ...tir.transform import register_pass


class _Bounds(Visitor):
    def __init__(self, ana):
        self.ana = ana
        self.ok = True

    def _check(self, buf, indices):
        if len(indices) != len(buf.shape):
            return
        for i, s in zip(indices, buf.shape):
            i = E.convert(i)
            if E.dt.lanes(i.dtype) != 1:
                self.ok = False
                return
            if not (self.ana.can_prove(i >= 0) and self.ana.can_prove(i < s)):
                self.ok = False

    def visit_For(self, s):
        with self.ana.bind_scope(s.loop_var, E.Range.from_min_extent(s.min, s.extent)):
            self.visit(s.body)

    def visit_BufferLoad(self, x):
        self.visit(x.indices)
        self._check(x.buffer, x.indices)

    def visit_BufferStore(self, s):
        self.visit(s.value)
        self.visit(s.indices)
        self._check(s.buffer, s.indices)


def accesses_in_bounds(stmt, ana) -> bool:
    v = _Bounds(ana)
    v.visit(stmt)
    return v.ok


def _undef_region(stmt):
    """``(buffer, loop vars, ranges, predicate)`` when ``stmt`` is a nest of loops around
    ``[if pred:] B[loop vars] = tir.undef``, else None."""
    loops = []
    while isinstance(stmt, S.For):
        loops.append(stmt)
        stmt = stmt.body
    pred = E.IntImm(1, "bool")
    if isinstance(stmt, S.IfThenElse) and stmt.else_case is None:
        pred, stmt = stmt.condition, stmt.then_case
    if not (isinstance(stmt, S.BufferStore) and is_call(stmt.value, "tir.undef")):
        return None
    lvars = [l.loop_var for l in loops]
    if len(stmt.indices) != len(lvars) or any(i is not v for i, v in zip(stmt.indices, lvars)):
        return None
    return stmt.buffer, lvars, [(l.min, l.extent) for l in loops], pred


def _reads(stmt, buf) -> bool:
    found = []
    post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, E.BufferLoad) and
                     n.buffer is buf else None)
    return bool(found)


def _later_undef_regions(rest):
    """Undef-store regions in ``rest`` (statements that follow), each with no earlier read."""
    out = []
    for k, st in enumerate(rest):
        r = _undef_region(st)
        if r is not None and not any(_reads(x, r[0]) for x in rest[:k]):
            out.append(r)
    return out


class _Overcompute(FactSimplifier):
    def __init__(self, ana=None):
        super().__init__(ana)
        self.root = None               # the whole body (for the stores into a buffer)
        self.later_undef = []          # undef-store regions that follow the current statement
        self._regions_after = {}       # id(statement in a sequence) -> regions after it

    def visit_SeqStmt(self, op):
        for k, st in enumerate(op.seq):
            self._regions_after[id(st)] = _later_undef_regions(op.seq[k + 1:])
        return super().visit_SeqStmt(op)

    def visit(self, node):
        regions = self._regions_after.get(id(node))
        if not regions:
            return super().visit(node)
        saved = self.later_undef
        self.later_undef = saved + regions
        try:
            return super().visit(node)
        finally:
            self.later_undef = saved

    def _dead_before_undef(self, ncond, store):
        """Under ``ncond`` the store's location is overwritten by a later undef store."""
        if not isinstance(store, S.BufferStore):
            return False
        buf = store.buffer
        bad = []
        post_order_visit(store.value, lambda n: bad.append(n) if isinstance(n, E.BufferLoad) and
                         n.buffer is buf and not structural_equal(list(n.indices),
                                                                  list(store.indices)) else None)
        if bad:
            return False
        for rbuf, lvars, ranges, pred in self.later_undef:
            if rbuf is not buf or len(lvars) != len(store.indices):
                continue
            vmap = dict(zip(lvars, store.indices))
            conds = [substitute(pred, vmap)]
            for idx, (mn, ext) in zip(store.indices, ranges):
                conds += [idx >= mn, idx < mn + ext]
            with self.ana.constraint_scope(ncond):
                if all(self.ana.can_prove(c) for c in conds):
                    return True
        return False

    def _is_no_op(self, stmt) -> bool:
        """``stmt`` (already simplified) changes nothing: empty, or an identity update."""
        if S.is_no_op(stmt):
            return True
        return isinstance(stmt, S.BufferStore) and _identity_update(stmt, self.root)

    def _under(self, cond, stmt):
        with self.ana.constraint_scope(cond):
            s = self.visit(stmt)
            s = NoOpRemover(self.ana).visit(s)
        return s

    def visit_IfThenElse(self, op):
        cond = self.visit(op.condition)
        while isinstance(cond, E.Call) and cond.op == "tir.likely":
            cond = cond.args[0]
        if isinstance(cond, E.IntImm):
            return super().visit_IfThenElse(op)
        ncond = negate_cond(cond)

        def attempt():
            if op.else_case is None:
                if self._dead_before_undef(ncond, op.then_case):
                    with self.ana.constraint_scope(ncond):
                        if accesses_in_bounds(op.then_case, self.ana):
                            return op.then_case
                t_not = self._under(ncond, op.then_case)
                if self._is_no_op(t_not):
                    with self.ana.constraint_scope(ncond):
                        ok = accesses_in_bounds(op.then_case, self.ana)
                    if ok:
                        return op.then_case
                return None
            t_not = self._under(ncond, op.then_case)
            e_not = self._under(ncond, op.else_case)
            if structural_equal(t_not, e_not):
                with self.ana.constraint_scope(ncond):
                    if accesses_in_bounds(op.then_case, self.ana):
                        return op.then_case
            t_c = self._under(cond, op.then_case)
            e_c = self._under(cond, op.else_case)
            if structural_equal(t_c, e_c):
                with self.ana.constraint_scope(cond):
                    if accesses_in_bounds(op.else_case, self.ana):
                        return op.else_case
            return None

        chosen = self._with_live_facts(op, attempt)
        if chosen is not None:
            return self.visit(chosen)
        if op.else_case is None:
            narrowed = self._with_live_facts(op, lambda: self._drop_conjuncts(op, cond))
            if isinstance(narrowed, S.IfThenElse):
                return super().visit_IfThenElse(narrowed)
            if narrowed is not None:
                return self.visit(narrowed)
        return super().visit_IfThenElse(op)

    def _noop_under(self, cond, stmt) -> bool:
        """``stmt`` does nothing observable, and reads and writes only inside its buffers,
        whenever ``cond`` holds (in the current context)."""
        if self._dead_before_undef(cond, stmt):
            with self.ana.constraint_scope(cond):
                if accesses_in_bounds(stmt, self.ana):
                    return True
        if not self._is_no_op(self._under(cond, stmt)):
            return False
        with self.ana.constraint_scope(cond):
            return accesses_in_bounds(stmt, self.ana)

    def _drop_conjuncts(self, op, cond):
        """``op`` with the conjuncts of its guard whose failure skips only a no-op removed;
        None when every conjunct is needed (see the module docstring).

        A conjunct ``c`` is dropped when ``T`` is a no-op under ``not c``, the conjuncts kept
        so far, and every truth assignment of the conjuncts dropped before it (those cases
        run ``T`` too once ``c`` is gone); at most ``_MAX_DROPPED`` conjuncts are dropped."""
        parts = _conjuncts(cond)
        if len(parts) < 2:
            return None
        kept, dropped = list(parts), []
        for c in parts:
            if len(dropped) >= _MAX_DROPPED:
                break
            others = [x for x in kept if x is not c]
            if all(self._noop_under(_all_of(others + case + [negate_cond(c)]), op.then_case)
                   for case in _assignments(dropped)):
                kept, dropped = others, dropped + [c]
        if not dropped:
            return None
        if not kept:
            return op.then_case
        new = _all_of(kept)
        if is_call(op.condition, "tir.likely"):
            new = likely(new)
        return S.IfThenElse(new, op.then_case)


_MAX_DROPPED = 3


def _all_of(conds):
    out = E.IntImm(1, "bool")
    for c in conds:
        out = c if isinstance(out, E.IntImm) else E.logical_and(out, c)
    return out


def _assignments(conds):
    """Every list ``[c1 or not c1, c2 or not c2, ...]`` (2 ** len(conds) lists)."""
    out = [[]]
    for c in conds:
        out = [a + [x] for a in out for x in (c, negate_cond(c))]
    return out


def _extreme(c, want_min: bool):
    """``c`` is the least (``want_min``) or greatest value of its dtype: ``"exact"``; the
    least / greatest finite float: ``"finite"``; else None."""
    if isinstance(c, E.IntImm) and not E.dt.is_float(c.dtype):
        bound = min_value(c.dtype) if want_min else max_value(c.dtype)
        return "exact" if c.value == bound.value else None
    if isinstance(c, E.FloatImm):
        if c.value == (-math.inf if want_min else math.inf):
            return "exact"
        bound = min_value(c.dtype) if want_min else max_value(c.dtype)
        return "finite" if c.value == bound.value else None
    return None


def _combine_parts(value, buf, indices):
    """``(kind, other)`` when ``value`` is ``max/min(buf[indices], other)`` in either order."""
    kind = {E.Max: "max", E.Min: "min"}.get(type(value))
    if kind is None:
        return None
    for a, b in ((value.a, value.b), (value.b, value.a)):
        if isinstance(a, E.BufferLoad) and a.buffer is buf and \
                structural_equal(list(a.indices), list(indices)):
            return kind, b
    return None


def _identity_update(store, root) -> bool:
    """``store`` is ``B[i] = max(B[i], c)`` (``min``) with ``c`` an identity for every value
    ``B`` holds (see the module docstring)."""
    parts = _combine_parts(store.value, store.buffer, store.indices)
    if parts is None:
        return False
    kind, c = parts
    how = _extreme(c, kind == "max")
    if how == "exact":
        return True
    if how != "finite" or root is None:
        return False
    ok = []

    def check(n):
        if isinstance(n, S.BufferStore) and n.buffer is store.buffer:
            v = n.value
            if isinstance(v, E.FloatImm):
                ok.append(v.value >= c.value if kind == "max" else v.value <= c.value)
            else:
                p = _combine_parts(v, n.buffer, n.indices)
                ok.append(p is not None and p[0] == kind)
    post_order_visit(root, check)
    return all(ok)


def _conjuncts(c):
    if isinstance(c, E.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


@register_pass()
def remove_branching_through_overcompute(func):
    """Remove guards whose else-work is a no-op (see the module docstring)."""
    sim = _Overcompute()
    sim.root = func.body if isinstance(func, PrimFunc) else func
    if isinstance(func, PrimFunc):
        body = sim.visit(func.body)
        return func if body is func.body else func.with_body(body)
    return sim.visit(func)


__all__ = ["remove_branching_through_overcompute", "accesses_in_bounds"]
