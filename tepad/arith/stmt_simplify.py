"""Statement-level simplification (the engine of ``tepad.lower.passes.simplify``).

Walks statements with an Analyzer that knows the enclosing loop ranges, LetStmt values (a
value with a min/max, or over another let var, only by its constant range),
thread extents and ``if`` conditions, simplifies every expression (values, indices, realize
bounds, allocate extents, conditions), and removes structure that provably does nothing:
``if`` with a provable condition, ``for`` of extent 1 (body with the var substituted by the
loop min) or extent <= 0, and ``Evaluate(const)`` inside sequences. A ``LetStmt`` binding a
constant or a plain variable is inlined and dropped (unless a buffer used below is defined
with its variable).
"""
from __future__ import annotations

from ..tir import expr as E
from ..tir import stmt as S
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, post_order_visit, substitute
from ..tir.piecewise import is_piecewise
from .negation import negate


class _StmtSimplifier(Mutator):
    def __init__(self, ana):
        self.ana = ana
        self.lets = set()         # the LetStmt vars in scope

    def visit(self, node):
        if isinstance(node, E.PrimExpr):
            return self.ana.simplify(node)
        return super().visit(node)

    def visit_Range(self, r):
        mn = self.ana.simplify(r.min)
        ext = self.ana.simplify(r.extent)
        if mn is r.min and ext is r.extent:
            return r
        return E.Range.from_min_extent(mn, ext)

    def visit_For(self, op):
        mn = self.ana.simplify(op.min)
        ext = self.ana.simplify(op.extent)
        if isinstance(ext, E.IntImm) and ext.value <= 0:
            return S.Evaluate(0)
        if not isinstance(ext, E.IntImm) and self.ana.can_prove(ext <= 0):
            return S.Evaluate(0)
        if isinstance(ext, E.IntImm) and ext.value == 1:
            return self.visit(substitute(op.body, {op.loop_var: mn}))
        with self.ana.bind_scope(op.loop_var, E.Range.from_min_extent(mn, ext)):
            body = self.visit(op.body)
        return op.replace(min=mn, extent=ext, body=body)

    def visit_IfThenElse(self, op):
        cond = self.ana.simplify(op.condition)
        if isinstance(cond, E.IntImm):
            if cond.value:
                return self.visit(op.then_case)
            return self.visit(op.else_case) if op.else_case is not None else S.Evaluate(0)
        with self.ana.constraint_scope(cond):
            then_case = self.visit(op.then_case)
        else_case = op.else_case
        if else_case is not None:
            n = negate(cond)
            with self.ana.constraint_scope(n if n is not None else E.Not(cond)):
                else_case = self.visit(else_case)
            if S.is_no_op(else_case):
                else_case = None
        if S.is_no_op(then_case) and else_case is None:
            return S.Evaluate(0)
        if cond is op.condition and then_case is op.then_case and else_case is op.else_case:
            return op
        return S.IfThenElse(cond, then_case, else_case)

    def visit_LetStmt(self, op):
        value = self.ana.simplify(op.value)
        if isinstance(value, (E.IntImm, E.FloatImm, E.Var)) and \
                not _in_buffer_definitions(op.body, op.var):
            # a constant or a plain variable: inlined, the binding dropped (as TVM)
            return self.visit(substitute(op.body, {op.var: value}))
        snap = self.ana.snapshot()
        try:
            if isinstance(value, E.PrimExpr) and E.dt.is_int(value.dtype) and \
                    E.dt.lanes(value.dtype) == 1:
                self.ana.set_const_bound(op.var, self.ana.bound_numbers(value))
                if not is_piecewise(value) and not _mentions(value, self.lets):
                    # a min/max value, or one over another let var, stays opaque (its
                    # constant range only): as a symbolic bound it would make every failing
                    # proof over the var expand it, and a chain of such lets (shared
                    # region-predicate bounds, the root offsets of a deep chain of stages,
                    # tepad.bound.offset_lets) level by level
                    self.ana.set_symbolic_bounds(op.var, (value,), (value,))
            self.lets.add(op.var)
            body = self.visit(op.body)
        finally:
            self.lets.discard(op.var)
            self.ana.restore(snap)
        if value is op.value and body is op.body:
            return op
        return S.LetStmt(op.var, value, body)

    def visit_AttrStmt(self, op):
        value = self.ana.simplify(op.value)
        node = op.node
        if op.attr_key in ("thread_extent", "virtual_thread") and hasattr(node, "var") and \
                hasattr(node, "dom") \
                and isinstance(value, E.PrimExpr):
            with self.ana.bind_scope(node.var, E.Range.from_min_extent(
                    E.IntImm(0, value.dtype), value)):
                body = self.visit(op.body)
        else:
            body = self.visit(op.body)
        if value is op.value and body is op.body:
            return op
        return S.AttrStmt(node, op.attr_key, value, body)

    def visit_SeqStmt(self, op):
        new = [self.visit(s) for s in op.seq]
        if all(a is b for a, b in zip(new, op.seq)) and not any(S.is_no_op(s) for s in new):
            return op
        return S.seq(*new)

    def visit_Evaluate(self, op):
        v = self.ana.simplify(op.value)
        return op if v is op.value else S.Evaluate(v)


def _in_buffer_definitions(stmt, var) -> bool:
    """Whether a buffer used in ``stmt`` has ``var`` in its shape, strides, offset or data
    (substitution does not rewrite buffer definitions)."""
    found = []

    def f(n):
        b = getattr(n, "buffer", None)
        if b is not None and isinstance(n, (E.BufferLoad, S.BufferStore)):
            parts = list(b.shape) + list(b.strides or ()) + [b.elem_offset, b.data]
            if any(p is var or (isinstance(p, E.PrimExpr) and _mentions(p, {var}))
                   for p in parts if p is not None):
                found.append(n)
    post_order_visit(stmt, f)
    return bool(found)


def _mentions(e, vars_) -> bool:
    if not vars_:
        return False
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, E.Var) and n in vars_
                     else None)
    return bool(found)


def simplify_stmt(stmt, ana):
    """``stmt`` simplified with ``ana`` (an Analyzer) plus the facts each statement adds."""
    return _StmtSimplifier(ana).visit(stmt)


def simplify_stmt_or_func(node, ana):
    """A Stmt or PrimFunc simplified with ``ana``; a PrimFunc comes back as itself when nothing
    changed, else through ``with_body``."""
    if isinstance(node, PrimFunc):
        body = simplify_stmt(node.body, ana)
        return node if body is node.body else node.with_body(body)
    return simplify_stmt(node, ana)


__all__ = ["simplify_stmt", "simplify_stmt_or_func"]
