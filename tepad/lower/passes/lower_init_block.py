"""LowerInitBlock (TVM's ``tir.transform.LowerInitBlock``): a block's ``init`` becomes a
guarded statement at the start of its body.

    with T.block("B"):                         with T.block("B"):
        v_k = T.axis.reduce(64, k)                 v_k = T.axis.reduce(64, k)
        with T.init():               ==>           if v_k == 0:
            B[v_i] = 0.0                                B[v_i] = 0.0
        B[v_i] = B[v_i] + A[v_i, v_k]              B[v_i] = B[v_i] + A[v_i, v_k]

The guard is the conjunction of ``v == dom.min`` over the block's reduction iter vars (no
guard without any: the init then runs at every point, as TVM lowers it). Blocks without
init and functions without blocks come back unchanged (the same objects).
"""
from __future__ import annotations

from ...tir import expr as E
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.itervar import IterVarType
from ...tir.stmt import IfThenElse, seq
from .block_stmts import has_blocks
from ...tir.transform import register_pass


class _LowerInit(Mutator):
    def visit_Block(self, b):
        b = super().visit_Block(b)
        if b.init is None:
            return b
        cond = None
        for iv in b.iter_vars:
            if iv.iter_type == IterVarType.CommReduce:
                c = E.EQ(iv.var, iv.dom.min) if iv.dom.min.dtype == iv.var.dtype else \
                    E.EQ(iv.var, E.cast(iv.var.dtype, iv.dom.min))
                cond = c if cond is None else E.logical_and(cond, c)
        init = b.init if cond is None else IfThenElse(cond, b.init)
        return b.replace(body=seq(init, b.body), init=None)


@register_pass("LowerInitBlock")
def lower_init_block(func: PrimFunc) -> PrimFunc:
    """``func`` with every block's init moved into its body under the first-reduction-point
    guard (see the module docstring)."""
    if not has_blocks(func.body):
        return func
    body = _LowerInit().visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["lower_init_block"]
