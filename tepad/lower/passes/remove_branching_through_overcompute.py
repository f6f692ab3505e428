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
  under ``cond``, it becomes ``F``.

Guarantee: for every input satisfying the function's assumptions, the result performs the same
stores with the same values at every location that is observable (extra stores only rewrite a
location with the value it already holds); no access goes out of bounds. The rest of the
function is simplified as ``simplify_with_facts`` does. The row summation of RFC 0077 with
``pad_value=0`` loses the conditional in its inner loop.
"""
from __future__ import annotations

from ...arith.negation import negate_cond
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Visitor, post_order_visit, substitute
from ...tir.op import is_call
from ...tir.structural import structural_equal
from .remove_no_op import NoOpRemover
from .simplify_with_facts import FactSimplifier


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
                if S.is_no_op(t_not):
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
        return super().visit_IfThenElse(op)


def remove_branching_through_overcompute(func):
    """Remove guards whose else-work is a no-op (see the module docstring)."""
    sim = _Overcompute()
    if isinstance(func, PrimFunc):
        body = sim.visit(func.body)
        return func if body is func.body else func.with_body(body)
    return sim.visit(func)


__all__ = ["remove_branching_through_overcompute", "accesses_in_bounds"]
