"""RewriteUnsafeSelect (TVM's ``tir.transform.RewriteUnsafeSelect``): a scalar ``Select``
whose arms read memory becomes ``if_then_else``, which evaluates only the arm the condition
picks (a ``Select`` evaluates both, so the arm not taken may read out of bounds).

Arms that only compute (no ``BufferLoad``, no call other than pure math) stay a
``Select``, which the code generator can emit without branches. Vector selects are left
alone (each lane needs its own choice; the code generator masks those loads itself).
"""
from __future__ import annotations

from ...tir import dtype as dt
from ...tir.expr import BufferLoad, Call, Select
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit
from ...tir.transform import register_pass

_PURE_PREFIXES = ("tir.exp", "tir.log", "tir.sqrt", "tir.fabs", "tir.floor", "tir.ceil",
                  "tir.round", "tir.trunc", "tir.pow", "tir.sin", "tir.cos", "tir.tan",
                  "tir.tanh", "tir.sigmoid", "tir.erf", "tir.atan", "tir.rsqrt", "tir.likely",
                  "tir.popcount", "tir.isnan", "tir.isinf", "tir.isfinite")


def _unsafe(e) -> bool:
    found = []

    def f(n):
        if isinstance(n, BufferLoad) or (isinstance(n, Call) and
                                         not n.op.startswith(_PURE_PREFIXES)):
            found.append(n)
    post_order_visit(e, f)
    return bool(found)


class _Rewrite(Mutator):
    def visit_Select(self, e):
        e = self.generic_visit(e)
        if isinstance(e, Select) and dt.lanes(e.dtype) == 1 and \
                (_unsafe(e.true_value) or _unsafe(e.false_value)):
            return Call(e.dtype, "tir.if_then_else", [e.condition, e.true_value, e.false_value])
        return e


@register_pass("RewriteUnsafeSelect")
def rewrite_unsafe_select(func: PrimFunc) -> PrimFunc:
    """``func`` with memory-reading selects made conditional (see the module docstring)."""
    body = _Rewrite().visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["rewrite_unsafe_select"]
