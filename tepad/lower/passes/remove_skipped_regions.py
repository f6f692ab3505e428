"""remove_skipped_regions: drop the code under ``pragma(iv, "debug_skip_region")``.

Guarantee: no ``AttrStmt`` with key ``pragma_debug_skip_region`` remains; each was replaced,
with everything under it, by a no-op (TVM's RemoveNoOp does the same). The tensor that region
computed is left unwritten (its memory holds whatever it held); nothing is read or written
out of bounds because of it. A debugging aid: time a kernel without one of its loops.
"""
from __future__ import annotations

from ...tir import Mutator, PrimFunc
from ...tir.stmt import Evaluate
from ...tir.transform import register_pass

SKIP_REGION = "pragma_debug_skip_region"


class _Skip(Mutator):
    def visit_AttrStmt(self, s):
        if s.attr_key == SKIP_REGION:
            return Evaluate(0)
        return self.generic_visit(s)


@register_pass()
def remove_skipped_regions(func: PrimFunc) -> PrimFunc:
    """``func`` without its debug_skip_region regions (see the module docstring)."""
    body = _Skip().visit(func.body)
    return func if body is func.body else func.with_body(body)
