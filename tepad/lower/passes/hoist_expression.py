"""hoist_expression: move loop-invariant conditions and let bindings out of loops (RFC 0077).

``hoist_expression(func, conditionals=HoistConditional.IF_ELSE_STMT |
HoistConditional.BOOLEAN_EXPRESSION, let_bindings=HoistLetBinding.REQUIRED_BY_CONDITION)``.

Flags (bit sets, as in the RFC):

- ``HoistConditional.IF_ELSE_STMT``: an ``if`` that is the whole body of a loop and whose
  condition does not depend on the loop (its var, vars bound inside it, or buffers written in
  it) is moved outside: ``for: if c: T else: F`` -> ``if c: for: T else: for: F``;
- ``HoistConditional.BOOLEAN_EXPRESSION``: additionally, the invariant conjuncts of such an
  ``if`` without else are hoisted, the rest stay inside (``for j: if i == 0 and j < 2`` ->
  ``if i == 0: for j: if j < 2``);
- adjacent statements ``if c: A`` ``if c: B`` with the same condition (no else, ``A`` writing
  nothing ``c`` reads) are first merged into ``if c: A; B``, so a loop whose statements share
  a guard has one ``if`` as its body;
- ``HoistConditional.IF_ELSE_EXPR``: invariant ``if_then_else`` calls that are the whole
  stored value of a loop-body store are turned into an ``if`` statement first, then hoisted;
- ``HoistLetBinding.LET_STMT``: a ``LetStmt`` that is the whole body of a loop and whose value
  is invariant is moved outside the loop; ``REQUIRED_BY_CONDITION``: the same, but only when a
  condition right below it can then be hoisted; ``LET_EXPR`` is accepted and has no effect
  (let expressions are left in place).

Guarantee: the same statements run for the same iterations in the same order (a hoisted
condition is evaluated once per entry of the loop instead of per iteration, which is
equivalent because it is loop-invariant and reads nothing the loop writes). A loop of a
condition hoisted out of a loop with extent <= 0 is still not executed.
"""
from __future__ import annotations

import enum

from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit, uses_var
from ...tir.structural import structural_equal
from ...tir.op import is_call
from .reduce_loop_extents import conjuncts
from ...tir.transform import register_pass


class HoistConditional(enum.IntFlag):
    NONE = 0
    IF_ELSE_STMT = 1
    IF_ELSE_EXPR = 2
    BOOLEAN_EXPRESSION = 4


class HoistLetBinding(enum.IntFlag):
    NONE = 0
    REQUIRED_BY_CONDITION = 1
    LET_STMT = 2
    LET_EXPR = 4


def _bound_inside(stmt):
    """Vars bound (loops, LetStmts) and buffers stored to in ``stmt``: a walk over its
    statements only (expressions bind and store nothing)."""
    out = set()
    written = set()
    todo = [stmt]
    while todo:
        n = todo.pop()
        if isinstance(n, (tuple, list)):
            todo.extend(n)
            continue
        if not isinstance(n, S.Stmt):
            continue
        if isinstance(n, S.For):
            out.add(n.loop_var)
        elif isinstance(n, S.LetStmt):
            out.add(n.var)
        elif isinstance(n, S.BufferStore):
            written.add(n.buffer)
        todo.extend(v for v in n.field_values() if isinstance(v, (S.Stmt, tuple, list)))
    return out, written


def _buffers_read(e):
    reads = []
    post_order_visit(e, lambda n: reads.append(n.buffer) if isinstance(n, E.BufferLoad) else None)
    return reads


def _invariant(e, loop):
    bound, written = _bound_inside(loop)
    if uses_var(e, bound | {loop.loop_var}):
        return False
    return not any(b in written for b in _buffers_read(e))


def _and(cs):
    out = E.IntImm(1, "bool")
    for c in cs:
        out = E.logical_and(out, c)
    return out


class _Hoister(Mutator):
    def __init__(self, cond_flags, let_flags):
        self.cf, self.lf = cond_flags, let_flags

    def visit_For(self, s):
        body = self.visit(s.body)
        loop = s.replace(body=body)
        return self._hoist(loop)

    def visit_SeqStmt(self, s):
        """Adjacent ``if c: A`` ``if c: B`` (no else, structurally equal ``c``) become
        ``if c: A; B`` when ``A`` writes no buffer ``c`` reads, so the merged ``if`` can be
        hoisted out of an enclosing loop: a reduction's init and update nests under the same
        guards become one guarded block (LLVM then sees the init store is overwritten)."""
        items = [self.visit(x) for x in s.seq]
        merged = _merge_same_guards(items)
        if len(merged) == len(s.seq) and all(a is b for a, b in zip(merged, s.seq)):
            return s
        return S.seq(*merged)

    def _hoist(self, loop):
        body = loop.body
        cf = self.cf
        if cf & HoistConditional.IF_ELSE_EXPR and isinstance(body, S.BufferStore) and \
                is_call(body.value, "tir.if_then_else") and \
                _invariant(body.value.args[0], loop):
            c, t, f = body.value.args
            body = S.IfThenElse(c, S.BufferStore(body.buffer, t, body.indices),
                                S.BufferStore(body.buffer, f, body.indices))
            loop = loop.replace(body=body)
        if isinstance(body, S.LetStmt) and _invariant(body.value, loop):
            want = bool(self.lf & HoistLetBinding.LET_STMT)
            if not want and self.lf & HoistLetBinding.REQUIRED_BY_CONDITION and \
                    isinstance(body.body, S.IfThenElse):
                inner = loop.replace(body=body.body)
                trial = self._hoist(inner)
                want = trial is not inner and not isinstance(trial, S.For)
            if want:
                return S.LetStmt(body.var, body.value, self._hoist(loop.replace(body=body.body)))
        if not isinstance(body, S.IfThenElse):
            return loop
        if cf & (HoistConditional.IF_ELSE_STMT | HoistConditional.BOOLEAN_EXPRESSION) and \
                _invariant(body.condition, loop):
            then = self._hoist(loop.replace(body=body.then_case))
            other = self._hoist(loop.replace(body=body.else_case)) \
                if body.else_case is not None else None
            return S.IfThenElse(body.condition, then, other)
        if cf & HoistConditional.BOOLEAN_EXPRESSION and body.else_case is None:
            cs = conjuncts(body.condition)
            inv = [c for c in cs if _invariant(c, loop)]
            rest = [c for c in cs if not _invariant(c, loop)]
            if inv and rest:
                inner = loop.replace(body=S.IfThenElse(_and(rest), body.then_case))
                return S.IfThenElse(_and(inv), inner)
        return loop


def _writes_read_by(stmt, cond) -> bool:
    _, written = _bound_inside(stmt)
    return any(b in written for b in _buffers_read(cond))


def _merge_same_guards(items):
    out = []
    for x in items:
        prev = out[-1] if out else None
        if isinstance(x, S.IfThenElse) and x.else_case is None and \
                isinstance(prev, S.IfThenElse) and prev.else_case is None and \
                structural_equal(prev.condition, x.condition) and \
                not _writes_read_by(prev.then_case, prev.condition):
            body = _merge_same_guards(_flatten_seq(prev.then_case) + _flatten_seq(x.then_case))
            out[-1] = S.IfThenElse(prev.condition, S.seq(*body))
        else:
            out.append(x)
    return out


def _flatten_seq(stmt):
    return list(stmt.seq) if isinstance(stmt, S.SeqStmt) else [stmt]


@register_pass("HoistExpression")
def hoist_expression(func, conditionals=HoistConditional.IF_ELSE_STMT |
                     HoistConditional.BOOLEAN_EXPRESSION,
                     let_bindings=HoistLetBinding.REQUIRED_BY_CONDITION):
    """Hoist loop-invariant conditions / lets (see the module docstring)."""
    h = _Hoister(HoistConditional(conditionals), HoistLetBinding(let_bindings))
    if isinstance(func, PrimFunc):
        body = h.visit(func.body)
        return func if body is func.body else func.with_body(body)
    return h.visit(func)


__all__ = ["hoist_expression", "HoistConditional", "HoistLetBinding"]
