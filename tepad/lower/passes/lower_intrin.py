"""LowerIntrin: math intrinsics and floor division lowered for the target, as TVM's
``tir.transform.LowerIntrin`` does with its intrinsic rules (``tvm/target/intrin_rule``).

For an ``llvm`` target:

* a math call with an LLVM intrinsic (``T.exp(x)``, ``T.sqrt``, ``T.floor``, ``T.pow``,
  ``T.popcount``, ...) becomes ``T.call_llvm_pure_intrin(dtype, "llvm.exp", 1, x)``: the
  intrinsic, overloaded on its type (codegen appends ``.f32`` / ``.v8f32``);
  ``T.fma(a, b, c)`` becomes ``llvm.fmuladd``;
* ``a // b`` and ``a % b`` of integers with a constant positive divisor become C division
  (``truncdiv`` / ``truncmod``, cheaper in machine code) where the analyzer proves ``a >= 0``
  under the enclosing loops' ranges, lets and guards; elsewhere the sign-corrected form
  ``truncdiv(a, b) - (truncmod(a, b) < 0)`` that TVM's rule emits (the same values).

Math calls without an LLVM intrinsic (``erf``, ``log1p``, ``tan``, ``atan``, ``tanh`` where
LLVM lacks one, ``sigmoid``) are left as they are: tepad's code generator calls the C
library or expands them itself, which is what TVM's rules map them to. Other targets: the
function comes back unchanged (tepad's NVPTX code generator maps math calls to libdevice
itself). ``tepad.build`` does not run this pass (its code generator applies the same
mappings while emitting); it is for scripts that call ``tir.transform.LowerIntrin()`` and
look at or build the result.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...errors import TepadError
from ...target import is_cpu_kind
from ...tir import dtype as dt
from ...tir import expr as E
from ...tir.expr import Call, IntImm, Range, StringImm, const
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.transform import register_pass

# TIR math call -> LLVM intrinsic (TVM's intrin_rule_llvm)
LLVM_RULES = {
    "tir.exp": "llvm.exp", "tir.exp2": "llvm.exp2", "tir.log": "llvm.log",
    "tir.log2": "llvm.log2", "tir.log10": "llvm.log10", "tir.sqrt": "llvm.sqrt",
    "tir.floor": "llvm.floor", "tir.ceil": "llvm.ceil", "tir.trunc": "llvm.trunc",
    "tir.fabs": "llvm.fabs", "tir.round": "llvm.nearbyint", "tir.nearbyint": "llvm.nearbyint",
    "tir.pow": "llvm.pow", "tir.sin": "llvm.sin", "tir.cos": "llvm.cos",
    "tir.popcount": "llvm.ctpop", "tir.fma": "llvm.fmuladd",
}


class _Lower(Mutator):
    """Rewrites calls and divisions, knowing the loop ranges, lets and guards around them."""

    def __init__(self, analyzer):
        self.analyzer = analyzer

    def visit_For(self, f):
        with self.analyzer.bind_scope(f.loop_var, Range.from_min_extent(f.min, f.extent)):
            return self.generic_visit(f)

    def visit_LetStmt(self, s):
        with self.analyzer.bind_scope(s.var, s.value):
            return self.generic_visit(s)

    def visit_IfThenElse(self, s):
        cond = self.visit(s.condition)
        with self.analyzer.constraint_scope(s.condition):
            then = self.visit(s.then_case)
        other = self.visit(s.else_case) if s.else_case is not None else None
        return s.replace(condition=cond, then_case=then, else_case=other)

    def visit_Call(self, c):
        c = self.generic_visit(c)
        name = LLVM_RULES.get(c.op if c.op.startswith("tir.") else "tir." + c.op)
        if name is None:
            return c
        return Call(c.dtype, "tir.call_llvm_pure_intrin",
                    [StringImm(name), const(1, "uint32"), *c.args])

    def _const_divisor(self, e):
        return dt.is_int(e.dtype) and dt.lanes(e.dtype) == 1 and \
            isinstance(e.b, IntImm) and e.b.value > 0

    def visit_FloorDiv(self, e):
        e = self.generic_visit(e)
        if not isinstance(e, E.FloorDiv) or not self._const_divisor(e):
            return e
        q = E.Div(e.a, e.b)
        if self.analyzer.can_prove(e.a >= 0):
            return q
        return E.Sub(q, E.Cast(e.dtype, E.LT(E.Mod(e.a, e.b), const(0, e.dtype))))

    def visit_FloorMod(self, e):
        e = self.generic_visit(e)
        if not isinstance(e, E.FloorMod) or not self._const_divisor(e):
            return e
        r = E.Mod(e.a, e.b)
        if self.analyzer.can_prove(e.a >= 0):
            return r
        return E.Add(r, E.Select(E.LT(r, const(0, e.dtype)), e.b, const(0, e.dtype)))


@register_pass("LowerIntrin")
def lower_intrin(func: PrimFunc, target=None) -> PrimFunc:
    """``func`` with intrinsics lowered for ``target`` (a kind name or Target; default the
    function's ``target`` attribute, else llvm); see the module docstring."""
    if not isinstance(func, PrimFunc):
        raise TepadError(f"lower_intrin runs on a PrimFunc, got {type(func).__name__}")
    target = target if target is not None else func.attrs.get("target", "llvm")
    if not is_cpu_kind(target):
        return func
    body = _Lower(Analyzer()).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["lower_intrin", "LLVM_RULES"]
