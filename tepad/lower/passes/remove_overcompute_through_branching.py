"""remove_overcompute_through_branching: skip work on padding that is overwritten later.

The reverse of ``remove_branching_through_overcompute`` (RFC 0077). In a sequence, a loop nest
``L`` followed by a padding nest ``for idx: if P(idx): X[idx] = v`` (as written by
``apply_buffer_transforms``), with no statement in between touching ``X``, is rewritten when

- every store in ``L`` is to ``X`` at the same indices ``e`` (expressions of the loops that
  enclose all of them), and every load of ``X`` in ``L`` uses exactly ``e``; and
- ``L`` writes no other buffer.

Then the body of the innermost loop defining ``e`` gets the guard ``if not P(e)``: iterations
that only compute a padding location (which the padding nest overwrites anyway) are skipped.
The result is simplified (``simplify``). Guarantee: every location holds the same final value
(padding locations get ``v`` from the padding nest, other locations are computed as before).
"""
from __future__ import annotations

from ...arith.negation import negate_cond
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit, substitute, collect_vars
from ...tir.structural import structural_equal
from .simplify_with_facts import extract_facts, writes_buffer
from .simplify import simplify
from ...tir.transform import register_pass


def _stores_loads(stmt, buf):
    st, ld = [], []

    def f(n):
        if isinstance(n, S.BufferStore):
            st.append(n)
        elif isinstance(n, E.BufferLoad) and n.buffer is buf:
            ld.append(n)
    post_order_visit(stmt, f)
    return st, ld


def _reads(stmt, buf):
    return bool(_stores_loads(stmt, buf)[1])


def _guard(loop, fact):
    """Guard ``loop`` with ``not P(e)`` or return None when the conditions do not hold."""
    buf = fact.buffer
    stores, loads = _stores_loads(loop, buf)
    if not stores or any(s.buffer is not buf for s in stores):
        return None
    e = stores[0].indices
    for x in list(stores[1:]) + list(loads):
        if len(x.indices) != len(e) or not all(structural_equal(a, b)
                                               for a, b in zip(x.indices, e)):
            return None
    needed = set()
    for x in e:
        needed |= collect_vars(x)
    cond = negate_cond(substitute(fact.cond, dict(zip(fact.vars, e))))
    box = [E.logical_and(E._cmp(E.GE, x, r.min), E._cmp(E.LT, x, E.add(r.min, r.extent)))
           for x, r in zip(e, fact.ranges)]
    # outside the fact's box the point is not overwritten: keep it
    inside = E.IntImm(1, "bool")
    for b in box:
        inside = E.logical_and(inside, b)
    guard = E.logical_or(E.logical_not(inside), cond)

    def descend(s, seen):
        if isinstance(s, S.For):
            seen = seen | {s.loop_var}
            if needed <= seen:
                return s.replace(body=S.IfThenElse(guard, s.body))
            if isinstance(s.body, S.For):
                return s.replace(body=descend(s.body, seen))
        return None
    return descend(loop, set())


class _Rewriter(Mutator):
    def visit_SeqStmt(self, s):
        items = [self.visit(x) for x in s.seq]
        changed = False
        for k in range(len(items)):
            facts, _ = extract_facts(items[k])
            for f in facts:
                if not isinstance(items[k], S.For):
                    continue
                for m in range(k - 1, -1, -1):
                    cand = items[m]
                    if isinstance(cand, S.For) and writes_buffer(cand, f.buffer):
                        g = _guard(cand, f)
                        if g is not None:
                            items[m] = g
                            changed = True
                        break
                    if writes_buffer(cand, f.buffer) or _reads(cand, f.buffer):
                        break
        if not changed and all(a is b for a, b in zip(items, s.seq)):
            return s
        return S.seq(*items)


@register_pass()
def remove_overcompute_through_branching(func):
    """Guard computations whose results land only in overwritten padding (module docstring)."""
    body = func.body if isinstance(func, PrimFunc) else func
    new = _Rewriter().visit(body)
    if new is body:
        return func
    new = simplify(new)
    return func.with_body(new) if isinstance(func, PrimFunc) else new


__all__ = ["remove_overcompute_through_branching"]
