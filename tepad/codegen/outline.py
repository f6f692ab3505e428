"""Deep loop nests: serial loops past a nesting depth become functions of their own.

A pipeline whose stages are each computed inside their consumer's tile nests a loop per
stage: 50 stages make one function 50+ loops deep, and LLVM's loop passes (IndVarSimplify,
unrolling, LICM) cost more than linearly in the depth of a nest: most of a 50-stage build.
Past ``OUTLINE_DEPTH`` loops, a serial loop that has loops inside it is emitted
as ``i32 <name>_nest<k>(free...)`` (``noinline``, so LLVM does not put it back) and called;
its status is checked like a parallel body's. Every function then nests at most about
``OUTLINE_DEPTH`` loops. The call costs a few nanoseconds per iteration of the enclosing loop,
against a body that itself runs whole loop nests.
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import InternalError
from .. import tir
from ..tir.free_vars import FreeVars
from .lltypes import I32, ident

#: a serial loop this many loops deep (in its LLVM function) that has loops inside it is
#: outlined; None turns outlining off
OUTLINE_DEPTH = 12


def _has_loop(stmt) -> bool:
    found = []

    def visit(n):
        if isinstance(n, tir.For):
            found.append(n)
    tir.post_order_visit(stmt, visit)
    return bool(found)


class NestOutliner:
    """``outline_nest(s)``: emit loop ``s`` as a call of a function holding it (see the
    module doc); ``should_outline(s)`` says when."""

    n_nests = 0

    def should_outline(self, s) -> bool:
        return (OUTLINE_DEPTH is not None and self.ctx.depth >= OUTLINE_DEPTH
                and self.ctx.mask is None and _has_loop(s.body))

    def outline_nest(self, s):
        k = self.n_nests
        self.n_nests = k + 1
        fv = FreeVars()
        fv.visit(s)
        parent = self.ctx
        free, vals = [], []
        for v in fv.order:
            if v not in parent.vars:
                raise InternalError(f"codegen: variable {v.name} used before definition")
            free.append(v)
            vals.append(parent.vars[v])
        fn = ir.Function(self.module, ir.FunctionType(I32, [x.type for x in vals]),
                         name=f"{self.name}_nest{k}")
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        fn.attributes.add("noinline")
        ctx = self.new_ctx(fn, in_parallel=parent.in_parallel)
        for v, a in zip(free, fn.args):
            a.name = ident(v.name)
            ctx.vars[v] = a
        self.ctx = ctx
        try:
            self.stmt(s)
            if not self.b.block.is_terminated:
                self.b.ret(I32(0))
        finally:
            self.ctx = parent
        self.emit_status_check(self.b.call(fn, vals), f"nest{k}")
