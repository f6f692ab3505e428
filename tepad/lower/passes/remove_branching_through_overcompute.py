"""remove_branching_through_overcompute: drop ``if`` guards whose skipped work is a no-op.

RFC 0077 "Remove Branching Through Overcompute". For every ``if cond: T [else: F]``:

- without ``else``: ``T`` is simplified assuming ``not cond`` (with the enclosing loop ranges,
  conditions, ``tir.assume`` facts and known buffer contents from ``simplify_with_facts``) and
  then cleaned by ``remove_no_op``; if nothing remains, and every buffer access of ``T`` is
  provably in bounds when ``not cond``, the statement becomes ``T`` (executed unconditionally);
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

from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Visitor
from ...tir.structural import structural_equal
from .apply_buffer_transforms import negate_cond
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


class _Overcompute(FactSimplifier):
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
