"""unroll_loop: replace ``ForKind.UNROLLED`` loops of constant extent by copies of their body.

Guarantee: after the pass no UNROLLED ``For`` with a constant extent of at most ``max_extent``
remains; each was replaced by ``extent`` copies of its body with the loop var substituted by
``min + k`` (inner loops are unrolled first), and the variables bound inside the copies are
renamed so that each is bound once (``convert_ssa``). An UNROLLED loop whose extent is not a constant
(or exceeds ``max_extent``) becomes a SERIAL loop; it is never an error.
"""
from __future__ import annotations

from ...tir import ForKind, IntImm, Mutator, PrimFunc, seq, substitute
from ...tir.expr import add, const
from ...tir.ssa import convert_ssa


class _Unroller(Mutator):
    def __init__(self, max_extent: int):
        self.max_extent = max_extent

    def visit_For(self, s):
        body = self.visit(s.body)
        if s.kind != ForKind.UNROLLED:
            return s.replace(body=body)
        if not isinstance(s.extent, IntImm) or not 0 <= s.extent.value <= self.max_extent:
            return s.replace(kind=ForKind.SERIAL, body=body)
        copies = [substitute(body, {s.loop_var: add(s.min, const(k, s.loop_var.dtype))})
                  for k in range(int(s.extent.value))]
        return seq(*copies)


def unroll_loop(func: PrimFunc, max_extent: int = 1024) -> PrimFunc:
    """Fully unroll every UNROLLED loop with a constant extent (see the module docstring)."""
    body = _Unroller(max_extent).visit(func.body)
    return func if body is func.body else convert_ssa(func.with_body(body))


def unroll_stmt(stmt, max_extent: int = 1024):
    """The same rewrite on a bare statement."""
    return _Unroller(max_extent).visit(stmt)
