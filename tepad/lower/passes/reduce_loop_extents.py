"""reduce_loop_extents: shrink loops to the iterations their guard lets through (RFC 0077).

For every SERIAL or PARALLEL ``For`` whose body is ``if cond: T`` (no else), the conjuncts of
``cond`` of the form ``v <op> e`` / ``e <op> v`` (``v`` the loop var, ``e`` not depending on
``v``, ``op`` one of ``< <= > >= ==``) are turned into loop bounds: the loop runs over
``[max(min, lo), min(min + extent, hi))`` and those conjuncts are removed from the condition
(the ``if`` disappears when nothing remains). Inner loops are reduced first.

A conjunct whose bound reads a buffer the loop writes stays a condition: its value can change
from one iteration to the next, while a loop bound is read once.

Guarantee: exactly the iterations whose condition held are executed, with the same body, in
the same order. Other loops and conditions are unchanged (run ``hoist_expression`` first to
bring conditions next to their loop, and ``simplify`` afterwards to fold extent-1 loops).
"""
from __future__ import annotations

from ...arith import Analyzer
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit, uses_var
from ...tir.transform import register_pass


def conjuncts(c):
    """The conjuncts of ``c`` (``tir.likely`` wrappers are looked through)."""
    if isinstance(c, E.Call) and c.op == "tir.likely":
        return conjuncts(c.args[0])
    if isinstance(c, E.And):
        return conjuncts(c.a) + conjuncts(c.b)
    return [c]


def _bound(c, v):
    """(lo, hi) exclusive-hi bounds on v from a comparison, or None."""
    if not isinstance(c, (E.LT, E.LE, E.GT, E.GE, E.EQ)):
        return None
    a, b, t = c.a, c.b, type(c)
    if b is v and a is not v:
        a, b = b, a
        t = {E.LT: E.GT, E.LE: E.GE, E.GT: E.LT, E.GE: E.LE, E.EQ: E.EQ}[t]
    if a is not v or uses_var(b, [v]) or not E.dt.is_int(b.dtype):
        return None
    one = E.IntImm(1, b.dtype)
    return {E.LT: (None, b), E.LE: (None, E.add(b, one)), E.GT: (E.add(b, one), None),
            E.GE: (b, None), E.EQ: (b, E.add(b, one))}[t]


def _written(stmt) -> set:
    """Data vars of the buffers ``stmt`` stores to."""
    out = set()
    post_order_visit(stmt, lambda n: out.add(n.buffer.data)
                     if isinstance(n, S.BufferStore) else None)
    return out


def _reads_any(e, data_vars) -> bool:
    hit = []
    post_order_visit(e, lambda n: hit.append(n) if isinstance(n, E.BufferLoad) and
                     n.buffer.data in data_vars else None)
    return bool(hit)


class _Reducer(Mutator):
    def __init__(self):
        self.ana = Analyzer()

    def visit_For(self, s):
        body = self.visit(s.body)
        if s.kind not in (S.ForKind.SERIAL, S.ForKind.PARALLEL) or \
                not isinstance(body, S.IfThenElse) or body.else_case is not None:
            return s.replace(body=body)
        lo, hi = s.min, E.add(s.min, s.extent)
        rest, used = [], False
        written = _written(body.then_case)
        for c in conjuncts(body.condition):
            b = _bound(c, s.loop_var)
            if b is not None and written and any(x is not None and _reads_any(x, written)
                                                 for x in b):
                b = None
            if b is None:
                rest.append(c)
                continue
            used = True
            if b[0] is not None:
                lo = E.max_expr(lo, b[0])
            if b[1] is not None:
                hi = E.min_expr(hi, b[1])
        if not used:
            return s.replace(body=body)
        lo = self.ana.simplify(lo)
        ext = self.ana.simplify(E.max_expr(E.sub(hi, lo), E.IntImm(0, lo.dtype)))
        inner = body.then_case
        if rest:
            cond = rest[0]
            for c in rest[1:]:
                cond = E.logical_and(cond, c)
            inner = S.IfThenElse(cond, inner)
        return s.replace(min=lo, extent=ext, body=inner)


@register_pass("ReduceLoopExtents")
def reduce_loop_extents(func):
    """Turn loop-var guards into loop bounds (see the module docstring)."""
    if isinstance(func, PrimFunc):
        body = _Reducer().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return _Reducer().visit(func)


__all__ = ["reduce_loop_extents", "conjuncts"]
