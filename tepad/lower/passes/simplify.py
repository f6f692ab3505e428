"""Simplify pass: arithmetic simplification of every expression in a function.

``simplify(func_or_stmt)`` takes a ``tir.PrimFunc`` (returns a new one via ``with_body``, or
the same object when nothing changed) or a ``Stmt`` (returns a Stmt).

Guarantees:
- the result computes the same values and performs the same stores as the input, for every
  input that satisfies the program's own loop ranges and conditions;
- every expression (stored values, indices, loop bounds, realize bounds, allocate extents,
  conditions, attribute values) is simplified with ``tepad.arith`` under the facts that hold at
  that point: enclosing ``For`` ranges, ``LetStmt`` values, ``thread_extent`` attributes and the
  conditions of enclosing ``IfThenElse`` (else branches get the negated condition);
- an ``IfThenElse`` whose condition is provably true/false is replaced by the taken branch;
  a ``For`` of extent 1 becomes its body with the loop var replaced by the loop min; a ``For``
  of extent <= 0 is removed; ``Evaluate(const)`` statements inside sequences are dropped
  (a statement that becomes empty is ``Evaluate(0)``);
- loop kinds, annotations, buffers and statement order are kept; it never fails on IR it does
  not understand (unknown nodes are rebuilt with simplified expression children).
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.stmt_simplify import simplify_stmt_or_func
from ...support.lru import LRUCache
from ...tir.function import PrimFunc
from ...tir.transform import register_pass

#: the bodies the last few runs returned (``id -> body``; holding them keeps the ids theirs)
_RECENT = LRUCache(16)


@register_pass("Simplify")
def simplify(func_or_stmt):
    """Simplify a PrimFunc or Stmt (see the module docstring for what is guaranteed).

    A PrimFunc whose body is the very object an earlier run returned comes back as it is:
    IR is immutable and passes that change nothing return the same objects, so nothing has
    changed since that run (a pipeline's later Simplify steps after passes that did nothing
    here, or ``tepad.build`` of a function ``tepad.lower`` simplified)."""
    if isinstance(func_or_stmt, PrimFunc):
        body = func_or_stmt.body
        if _RECENT.get(id(body)) is body:
            return func_or_stmt
    out = simplify_stmt_or_func(func_or_stmt, Analyzer())
    if isinstance(out, PrimFunc):
        _RECENT.put(id(out.body), out.body)
    return out


__all__ = ["simplify"]
