"""The intrinsic lowering rules registered for the build's target kind
(``tvm.ir.register_intrin_lowering``; the table is ``tepad.target.intrin_rules``) applied to a
function before the GPU code generators and the emulator see it, so that a rule changes the
PTX, the emulated kernel and the printed CUDA / OpenCL source alike (TVM's LowerIntrin with
its per-target ``FLowerIntrinsic`` attributes)."""
from __future__ import annotations

from ...errors import TepadError
from ...target import kind_of
from ...target.intrin_rules import op_name, rules_for
from ...tir.expr import Call, PrimExpr
from ...tir.function import PrimFunc
from ...tir.functor import Mutator

MAX_DEPTH = 16          # rules applied to the results of rules, nested


class _ApplyRules(Mutator):
    def __init__(self, rules, kind):
        self.rules, self.kind, self.depth = rules, kind, 0

    def visit_Call(self, c):
        c = self.generic_visit(c)
        rule = self.rules.get(op_name(c.op)) if isinstance(c, Call) else None
        if rule is None:
            return c
        out = rule(c)
        if out is None or out is c:
            return c
        if not isinstance(out, PrimExpr):
            raise TepadError(f"the {self.kind} lowering rule of {c.op} returned "
                             f"{type(out).__name__}, not an expression")
        if self.depth >= MAX_DEPTH:
            raise TepadError(f"the {self.kind} lowering rules of {c.op} keep rewriting their "
                             f"own results ({MAX_DEPTH} levels deep)")
        self.depth += 1
        try:
            return self.visit(out)
        finally:
            self.depth -= 1


def apply_rules(node, kind: str):
    """``node`` (a statement or expression) with the calls that have a rule for target kind
    ``kind`` lowered by it; ``node`` itself when no rule applies."""
    rules = rules_for(kind)
    return node if not rules else _ApplyRules(rules, kind).visit(node)


def apply_intrin_rules(func: PrimFunc, opts) -> PrimFunc:
    """``func`` with the rules of ``opts.target``'s kind applied (itself when none apply)."""
    body = apply_rules(func.body, kind_of(opts.target))
    return func if body is func.body else func.with_body(body)


__all__ = ["apply_intrin_rules", "apply_rules", "MAX_DEPTH"]
