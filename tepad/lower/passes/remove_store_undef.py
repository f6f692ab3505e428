"""remove_store_undef: drop stores of ``tir.undef`` (RFC 0077 "RemoveStoreUndef").

Guarantees: every ``BufferStore`` whose value contains ``tir.undef`` is removed (storing an
unspecified value is a no-op), together with the loops/ifs/sequences it leaves empty. After the
pass no ``tir.undef`` remains; any other use of ``tir.undef`` (in an index, a condition, a loop
bound, a let value, a load index, ...) raises ``TepadError`` naming the statement, because the
value would be observable. ``tir.undef`` inside ``tir.assume(...)`` is tolerated (it is a
compile-time fact; run ``remove_assume`` to drop it).
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Visitor
from .remove_assume import _Cleaner
from ...tir.transform import register_pass


class _HasUndef(Visitor):
    def __init__(self):
        self.found = False

    def visit_Call(self, c):
        if c.op == "tir.undef":
            self.found = True
        elif c.op == "tir.assume":
            return
        else:
            self.generic_visit(c)


def _has_undef(node) -> bool:
    v = _HasUndef()
    v.visit(node)
    return v.found


class _RemoveUndef(_Cleaner):
    def drop(self, s):
        return False

    def visit_BufferStore(self, s):
        if _has_undef(s.indices):
            raise TepadError(f"tir.undef used as an index of buffer {s.buffer.name}: `{s}`")
        if _has_undef(s.value):
            return S.Evaluate(0)
        return s

    def visit_Evaluate(self, s):
        if _has_undef(s.value):
            raise TepadError(f"tir.undef used outside a buffer store: `{s}`")
        return s

    def generic_visit(self, node):
        if isinstance(node, S.Stmt) and not isinstance(node, (S.SeqStmt, S.For, S.IfThenElse,
                                                             S.LetStmt, S.BufferStore)):
            for f in node._fields:
                v = getattr(node, f)
                if f != "body" and not isinstance(v, S.Stmt) and _has_undef(v):
                    raise TepadError(f"tir.undef used outside a buffer store in "
                                     f"{type(node).__name__}")
        return super().generic_visit(node)

    def visit_For(self, s):
        if _has_undef(s.min) or _has_undef(s.extent):
            raise TepadError(f"tir.undef used in the bounds of loop {s.loop_var.name}")
        return super().visit_For(s)

    def visit_IfThenElse(self, s):
        if _has_undef(s.condition):
            raise TepadError("tir.undef used in an if condition")
        return super().visit_IfThenElse(s)

    def visit_LetStmt(self, s):
        if _has_undef(s.value):
            raise TepadError(f"tir.undef bound to {s.var.name} by a let: not a store")
        return super().visit_LetStmt(s)


@register_pass("RemoveStoreUndef")
def remove_store_undef(func):
    """Remove stores of ``tir.undef`` (see the module docstring)."""
    if isinstance(func, PrimFunc):
        body = _RemoveUndef().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return _RemoveUndef().visit(func)


__all__ = ["remove_store_undef"]
