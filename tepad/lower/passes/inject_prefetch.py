"""inject_prefetch: ``Stage.prefetch`` markers become ``Prefetch`` statements.

ScheduleOps leaves ``AttrStmt(buffer, "prefetch_scope", offset)`` just inside the loop of the
prefetched axis. This pass replaces each by ``Prefetch(buffer, region); body``: ``region`` is
the box of ``buffer`` the loop body reads (inner loops over their whole ranges) in the
iteration ``offset`` ahead of the current one (TVM's InjectPrefetch). A marker with no
enclosing loop, or whose body reads nothing of ``buffer`` or reads it through an index with
no bound, is dropped. Guarantee: no ``prefetch_scope`` attr remains; nothing is read or
written that was not before (a prefetch is a hint; storage_flatten clamps its addresses into
the buffer).
"""
from __future__ import annotations

from ...arith import IntSet, eval_set, union
from ...tir import Mutator, PrimFunc, Visitor, collect_vars, post_order_visit
from ...tir.expr import BufferLoad, Range
from ...tir.stmt import Prefetch, seq
from ...tir.transform import register_pass

PREFETCH_SCOPE = "prefetch_scope"


class _Inject(Mutator):
    def __init__(self):
        self.loops = []

    def visit_For(self, s):
        self.loops.append(s)
        out = self.generic_visit(s)
        self.loops.pop()
        return out

    def visit_AttrStmt(self, s):
        if s.attr_key != PREFETCH_SCOPE:
            return self.generic_visit(s)
        body = self.visit(s.body)
        if not self.loops:
            return body
        region = _region_read(s.node, body, self.loops[-1], s.value)
        if region is None:
            return body
        return seq(Prefetch(s.node, region), body)


class _Scopes(Visitor):
    """The ranges of the variables bound inside a statement (loops: their range; lets: the
    set of their value), outer bindings first."""

    def __init__(self, dom):
        self.dom = dom
        self.bound = set()

    def visit_For(self, s):
        lo = eval_set(s.min, self.dom)
        hi = eval_set(s.min + s.extent - 1, self.dom)
        self.dom[s.loop_var] = union([lo, hi])
        self.bound.add(s.loop_var)
        self.visit(s.body)

    def visit_LetStmt(self, s):
        self.dom[s.var] = eval_set(s.value, self.dom)
        self.bound.add(s.var)
        self.visit(s.body)


def _region_read(buf, body, loop, offset):
    """Ranges of ``buf`` read in ``body`` at iteration ``loop.var + offset``; None if none
    or if a bound depends on a variable bound inside ``body``."""
    dom = {loop.loop_var: IntSet.single_point(loop.loop_var + offset)}
    scopes = _Scopes(dom)
    scopes.visit(body)
    loads = []
    post_order_visit(body, lambda n: loads.append(n) if isinstance(n, BufferLoad) and
                     n.buffer is buf else None)
    if not loads:
        return None
    region = []
    for d in range(len(loads[0].indices)):
        s = union([eval_set(ld.indices[d], dom) for ld in loads])
        if not (s.has_lower_bound() and s.has_upper_bound()):
            return None
        r = Range.from_min_extent(s.min(), s.max() - s.min() + 1)
        if any(v in scopes.bound for v in collect_vars(r.min) | collect_vars(r.extent)):
            return None
        region.append(r)
    return region


@register_pass("InjectPrefetch")
def inject_prefetch(func: PrimFunc) -> PrimFunc:
    """``func`` with its prefetch markers turned into Prefetch statements (module docstring)."""
    body = _Inject().visit(func.body)
    return func if body is func.body else func.with_body(body)
