"""ConvertBlocksToOpaque (TVM's ``tir.transform.ConvertBlocksToOpaque``): each block's iter
vars are replaced by the values its BlockRealize binds them to, in its body, init and
regions; the block keeps no iter vars and the realize no values (an "opaque" block, which
reads the loops around it directly).

Functions without blocks come back unchanged (the same object).
"""
from __future__ import annotations

from ...tir.function import PrimFunc
from ...tir.functor import Mutator, substitute
from .block_stmts import has_blocks
from ...tir.transform import register_pass


class _Opaque(Mutator):
    def visit_BlockRealize(self, r):
        block = self.visit(r.block)
        if not block.iter_vars:
            return r.replace(block=block)
        vmap = {iv.var: v for iv, v in zip(block.iter_vars, r.iter_values)}
        opaque = substitute(block.replace(iter_vars=()), vmap)
        return type(r)((), r.predicate, opaque)


@register_pass("ConvertBlocksToOpaque")
def convert_blocks_to_opaque(func: PrimFunc) -> PrimFunc:
    """``func`` with every block opaque (see the module docstring)."""
    if not has_blocks(func.body):
        return func
    body = _Opaque().visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["convert_blocks_to_opaque"]
