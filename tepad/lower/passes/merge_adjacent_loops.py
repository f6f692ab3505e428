"""merge_adjacent_loops: fuse adjacent serial loops with equal ranges (RFC 0077 utility).

Two adjacent statements ``for i in R: S1(i)`` and ``for j in R: S2(j)`` of a sequence (both
SERIAL, structurally equal min and extent) become ``for i in R: S1(i); S2(i)`` when merging
respects the data dependencies, checked exactly with ISL over the loops' iteration spaces
(inner loops included) as the RFC states, for all ``i > j``:

1. the locations written by the first loop in iteration ``i`` are disjoint from the locations
   accessed (read or written) by the second loop in iteration ``j``;
2. the locations read by the first loop in iteration ``i`` are disjoint from the locations
   written by the second loop in iteration ``j``.

``if`` conditions are ignored (the accesses are over-approximated), so the check is
conservative; a loop whose accesses are not quasi-affine in the loop variables, or that
contains calls with side effects, is never merged. Merging repeats until no pair merges.
Guarantee: the result computes the same values.
"""
from __future__ import annotations

from ...arith.isl_bridge import IslWriter, NotAffine, isl
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ...tir.op import is_call
from ...tir.structural import structural_equal
from ...tir.transform import register_pass


class _Access:
    def __init__(self, buffer, indices, is_write, loops):
        self.buffer, self.indices, self.is_write, self.loops = buffer, indices, is_write, loops


def _accesses(stmt, loops=()):
    out = []
    if isinstance(stmt, S.For):
        return _accesses(stmt.body, loops + (stmt,))
    if isinstance(stmt, S.SeqStmt):
        for s in stmt.seq:
            out += _accesses(s, loops)
        return out
    if isinstance(stmt, S.IfThenElse):
        out += _loads(stmt.condition, loops)
        out += _accesses(stmt.then_case, loops)
        if stmt.else_case is not None:
            out += _accesses(stmt.else_case, loops)
        return out
    if isinstance(stmt, S.BufferStore):
        out += _loads(stmt.value, loops) + _loads(stmt.indices, loops)
        out.append(_Access(stmt.buffer, stmt.indices, True, loops))
        return out
    if isinstance(stmt, S.Evaluate):
        if isinstance(stmt.value, E.ConstExpr) or is_call(stmt.value, "tir.assume"):
            return _loads(stmt.value, loops)
    raise NotAffine(f"unsupported statement {type(stmt).__name__}")


def _loads(e, loops):
    out = []
    post_order_visit(e, lambda n: out.append(_Access(n.buffer, n.indices, False, loops))
                     if isinstance(n, E.BufferLoad) else None)
    return out


def _conflict(a: _Access, b: _Access, ivar, jvar, lo, ext) -> bool:
    """Can ``a`` (first loop, iteration i) and ``b`` (second loop, iteration j) touch the same
    location with i > j?"""
    names, cons = {}, []
    counter = [0]

    def name(v):
        if v not in names:
            names[v] = f"x{counter[0]}"
            counter[0] += 1
        return names[v]
    name(ivar)
    name(jvar)
    for acc in (a, b):
        for l in acc.loops:
            n = name(l.loop_var)
    free = set()
    for acc in (a, b):
        for x in acc.indices:
            free |= collect_vars(x)
        for l in acc.loops:
            free |= collect_vars(l.min) | collect_vars(l.extent)
    free |= collect_vars(lo) | collect_vars(ext)
    params = [v for v in free if v not in names]
    pn = {v: f"p{k}" for k, v in enumerate(params)}
    allnames = {**names, **pn}
    w = IslWriter(allnames)
    for acc in (a, b):
        for l in acc.loops:
            n = allnames[l.loop_var]
            cons.append(f"{w.expr(l.min)} <= {n} < {w.expr(l.min)} + {w.expr(l.extent)}")
    i, j = allnames[ivar], allnames[jvar]
    L, X = w.expr(lo), w.expr(ext)
    cons += [f"{L} <= {j} < {i} < {L} + {X}"]
    for x, y in zip(a.indices, b.indices):
        cons.append(f"{w.expr(x)} = {w.expr(y)}")
    dims = ", ".join(names.values())
    pstr = "[" + ", ".join(pn.values()) + "] -> " if pn else ""
    st = isl.Set(f"{pstr}{{ [{dims}] : {w.wrap(' and '.join(cons))} }}")
    return not st.is_empty()


def can_merge(first: S.For, second: S.For) -> bool:
    if first.kind != S.ForKind.SERIAL or second.kind != S.ForKind.SERIAL:
        return False
    if not (structural_equal(first.min, second.min) and
            structural_equal(first.extent, second.extent)):
        return False
    try:
        acc1 = _accesses(first.body, (first,))
        acc2 = _accesses(second.body, (second,))
        # accesses are relative to (first.loop_var, second.loop_var) as (i, j)
        for a in acc1:
            for b in acc2:
                if a.buffer is not b.buffer or len(a.indices) != len(b.indices):
                    continue
                if not (a.is_write or b.is_write):
                    continue
                if _conflict(a, b, first.loop_var, second.loop_var, first.min, first.extent):
                    return False
    except NotAffine:
        return False
    return True


def _merge(first, second):
    body2 = substitute(second.body, {second.loop_var: first.loop_var})
    return first.replace(body=S.seq(first.body, body2))


class _Merger(Mutator):
    def visit_SeqStmt(self, s):
        items = [self.visit(x) for x in s.seq]
        out = []
        for x in items:
            if out and isinstance(out[-1], S.For) and isinstance(x, S.For) and \
                    can_merge(out[-1], x):
                out[-1] = self.visit(_merge(out[-1], x))
            else:
                out.append(x)
        if len(out) == len(s.seq) and all(a is b for a, b in zip(out, s.seq)):
            return s
        return S.seq(*out)


@register_pass("MergeAdjacentLoops")
def merge_adjacent_loops(func):
    """Merge adjacent loops where the dependencies allow it (see the module docstring)."""
    if isinstance(func, PrimFunc):
        body = _Merger().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return _Merger().visit(func)


__all__ = ["merge_adjacent_loops", "can_merge"]
