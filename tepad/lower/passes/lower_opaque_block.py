"""LowerOpaqueBlock (TVM's ``tir.transform.LowerOpaqueBlock``): opaque blocks disappear into
tepad's loop IR, which the build pipeline takes from there.

    BlockRealize(predicate, Block(alloc_buffers=[B], body))
        ==>  BufferRealize(B, whole shape, body')  under  ``if predicate:``

A block's allocated buffers become ``BufferRealize`` regions over their whole shape around
its body (storage_flatten makes them allocations, as it does for ``tepad.lower(...,
flatten=False)``); its predicate, when not ``True``, an ``IfThenElse``; reads / writes and
annotations are dropped. Needs ``LowerInitBlock`` and ``ConvertBlocksToOpaque`` first: a block
with init or iter vars is an error (TepadError naming it), as are match_buffers (views of
other buffers, which tepad's buffers do not express).
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import expr as E
from ...tir.expr import Range, const
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.stmt import BufferRealize, IfThenElse
from .block_stmts import has_blocks
from ...tir.transform import register_pass


class _Lower(Mutator):
    def visit_BlockRealize(self, r):
        b = r.block
        if b.init is not None or b.iter_vars:
            raise TepadError(f"LowerOpaqueBlock: block {b.name_hint!r} still has "
                             f"{'an init' if b.init is not None else 'iter vars'}; run "
                             "LowerInitBlock and ConvertBlocksToOpaque first")
        if b.match_buffers:
            raise TepadError(f"LowerOpaqueBlock: block {b.name_hint!r} matches buffers "
                             f"({', '.join(m.buffer.name for m in b.match_buffers)}); tepad "
                             "lowers blocks without match_buffers only")
        body = self.visit(b.body)
        for buf in reversed(b.alloc_buffers):
            bounds = [Range.from_min_extent(const(0, E.convert(e).dtype), e) for e in buf.shape]
            body = BufferRealize(buf, bounds, True, body)
        pred = r.predicate
        if not (isinstance(pred, E.IntImm) and pred.value):
            body = IfThenElse(pred, body)
        return body

    def visit_Block(self, b):       # a block without a realize around it
        raise TepadError(f"LowerOpaqueBlock: block {b.name_hint!r} has no BlockRealize "
                         "around it")


@register_pass("LowerOpaqueBlock")
def lower_opaque_block(func: PrimFunc) -> PrimFunc:
    """``func`` without blocks (see the module docstring)."""
    if not has_blocks(func.body):
        return func
    return func.with_body(_Lower().visit(func.body))


__all__ = ["lower_opaque_block"]
