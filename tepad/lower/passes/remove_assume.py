"""remove_assume: drop every ``tir.assume`` (RFC 0077 "RemoveCompileTimeAssume").

Guarantees: the result contains no ``tir.assume`` call. ``Evaluate(tir.assume(c))`` statements
are removed; loop nests and ``if`` statements left empty by that are removed too (a loop that
only evaluated assumptions does nothing). An assume nested inside another expression is
replaced by ``True`` (its value as a condition). Nothing else changes.
"""
from __future__ import annotations

from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.op import is_call
from ...tir.transform import register_pass


def _empty(s) -> bool:
    return s is None or S.is_no_op(s)


class _Cleaner(Mutator):
    """Removes statements matched by ``drop`` and the loops/ifs/sequences they leave empty."""

    def drop(self, s) -> bool:     # pragma: no cover - overridden
        return False

    def visit_Evaluate(self, s):
        if self.drop(s):
            return S.Evaluate(0)
        return self.generic_visit(s)

    def visit_SeqStmt(self, s):
        new = [self.visit(x) for x in s.seq]
        if all(a is b for a, b in zip(new, s.seq)):
            return s
        return S.seq(*new)

    def visit_For(self, s):
        body = self.visit(s.body)
        if body is not s.body and _empty(body):
            return S.Evaluate(0)
        return s.replace(body=body)

    def visit_IfThenElse(self, s):
        cond = self.visit(s.condition)
        t = self.visit(s.then_case)
        e = self.visit(s.else_case) if s.else_case is not None else None
        if t is s.then_case and e is s.else_case and cond is s.condition:
            return s
        if e is not None and _empty(e):
            e = None
        if _empty(t) and e is None:
            return S.Evaluate(0)
        if _empty(t):
            return S.IfThenElse(E.logical_not(cond), e)
        return S.IfThenElse(cond, t, e)

    def visit_LetStmt(self, s):
        body = self.visit(s.body)
        if body is s.body:
            return s
        return S.Evaluate(0) if _empty(body) else S.LetStmt(s.var, s.value, body)


class _RemoveAssume(_Cleaner):
    def drop(self, s):
        return is_call(s.value, "tir.assume")

    def visit_Call(self, c):
        if c.op == "tir.assume":
            return E.IntImm(1, "bool")
        return self.generic_visit(c)


@register_pass("RemoveAssume")
def remove_assume(func):
    """Remove every ``tir.assume`` from a PrimFunc or Stmt (see the module docstring)."""
    if isinstance(func, PrimFunc):
        body = _RemoveAssume().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return _RemoveAssume().visit(func)


__all__ = ["remove_assume"]
