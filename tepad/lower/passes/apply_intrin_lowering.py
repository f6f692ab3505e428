"""apply_intrin_lowering: the intrinsic lowering rules a program registered, applied for the
target being built (TVM's ``LowerIntrin`` consulting ``<kind>.FLowerIntrinsic``).

A Call whose operator has a rule for the target's kind (``tvm.ir.register_intrin_lowering``,
``tvm.target.register_intrin_rule``; else a ``"default"`` rule) is replaced by what the rule
returns for it; the result is lowered again (a rule may return calls that have rules), except
a Call of the same operator, which stays. A rule returning None or its argument leaves the
call as it is. tepad's own math lowering needs no rules: without registered rules this pass
returns the function unchanged.
"""
from __future__ import annotations

from ...errors import TepadError
from ...target import kind_of
from ...tir.expr import Call, PrimExpr, convert
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...target.intrin import has_lowering_rules, lowering_rule


class _Apply(Mutator):
    def __init__(self, kind: str):
        self.kind = kind

    def visit_Call(self, c):
        c = self.generic_visit(c)
        if not isinstance(c, Call):
            return c
        rule = lowering_rule(str(c.op), self.kind)
        if rule is None:
            return c
        out = rule(c)
        if out is None or out is c:
            return c
        if isinstance(out, (int, float)):
            out = convert(out)
        if not isinstance(out, PrimExpr):
            raise TepadError(f"intrinsic lowering rule of {str(c.op)!r} for {self.kind!r} "
                             f"returned {type(out).__name__}; a rule returns a PrimExpr")
        if out.dtype != c.dtype:
            raise TepadError(f"intrinsic lowering rule of {str(c.op)!r} for {self.kind!r} "
                             f"returned a {out.dtype} expression for a {c.dtype} call")
        if isinstance(out, Call) and str(out.op) == str(c.op):
            return out
        return self.visit(out)


def apply_intrin_lowering(func: PrimFunc, target="llvm") -> PrimFunc:
    """``func`` with every registered lowering rule for ``target``'s kind applied."""
    if not has_lowering_rules():
        return func
    body = _Apply(kind_of(target)).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["apply_intrin_lowering"]
