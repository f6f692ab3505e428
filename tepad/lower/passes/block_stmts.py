"""``has_blocks``: whether a statement holds a TIR Block (the three block-lowering passes
return a function without blocks unchanged, and this check costs one walk over the
statements, not the expressions)."""
from __future__ import annotations

from ...tir.expr import PrimExpr
from ...tir.stmt import Block, BlockRealize, Stmt


def has_blocks(stmt) -> bool:
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, (Block, BlockRealize)):
            return True
        if isinstance(s, Stmt):
            stack.extend(v for v in s.field_values()
                         if isinstance(v, Stmt) and not isinstance(v, PrimExpr))
            for v in s.field_values():
                if isinstance(v, tuple):
                    stack.extend(x for x in v if isinstance(x, Stmt))
    return False


__all__ = ["has_blocks"]
