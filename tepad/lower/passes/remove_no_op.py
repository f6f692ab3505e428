"""remove_no_op: remove statements that provably do nothing (RFC 0077 "Remove No Op").

Removed (expressions are otherwise left as they are):

- ``buf[idx] = buf[idx]`` (a value read and immediately written back to the same place);
- a store of a value the buffer is known to hold there: known from a preceding
  ``tir.assume(buf[...] == v)`` (also the loop-nest form ``assume(P or buf[idx] == v)``) or a
  preceding padding loop ``for idx: if P: buf[idx] = v``, with no write to ``buf`` in between
  (the facts of ``simplify_with_facts``);
- the first of two adjacent stores to the same buffer and the same indices when the second one's
  value and indices do not read that buffer (overwritten store);
- the first of two adjacent statements when the second is a loop nest ``for idx in box:
  buf[idx] = v`` (no condition) that overwrites every location the first one writes, neither
  statement writes anything else, and the second does not read ``buf``;
- ``Evaluate`` of a constant, loops whose body became empty or whose extent is provably
  ``<= 0``, ``if`` statements with two empty branches, empty ``LetStmt`` bodies.

``tir.assume`` statements are kept. Everything else (order, kinds, annotations) is unchanged.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.negation import negate_cond
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit
from ...tir.structural import structural_equal
from .simplify_with_facts import extract_facts, writes_buffer
from ...tir.transform import register_pass


def _empty(s):
    return s is None or S.is_no_op(s)


def _reads(e, buf) -> bool:
    found = []
    post_order_visit(e, lambda n: found.append(n)
                     if isinstance(n, E.BufferLoad) and n.buffer is buf else None)
    return bool(found)


def _stores(stmt):
    out = []
    post_order_visit(stmt, lambda n: out.append(n) if isinstance(n, S.BufferStore) else None)
    return out


def is_write_back(s) -> bool:
    return isinstance(s, S.BufferStore) and isinstance(s.value, E.BufferLoad) and \
        s.value.buffer is s.buffer and len(s.indices) == len(s.value.indices) and \
        all(structural_equal(a, b) for a, b in zip(s.indices, s.value.indices))


class NoOpRemover(Mutator):
    def __init__(self, ana=None):
        self.ana = ana if ana is not None else Analyzer()
        self.facts = []

    def visit_For(self, s):
        ext = self.ana.simplify(s.extent)
        if self.ana.can_prove(ext <= 0):
            return S.Evaluate(0)
        with self.ana.bind_scope(s.loop_var, E.Range.from_min_extent(s.min, s.extent)):
            body = self._visit_under_facts(s, lambda: self.visit(s.body))
        if _empty(body):
            return S.Evaluate(0)
        return s.replace(body=body)

    def _visit_under_facts(self, s, visit_inside):
        """``visit_inside()`` (the inside of loop or if ``s``) run with the facts that still
        hold inside ``s``.

        A fact about a buffer ``s`` writes is kept when, with it, every such write turns out to
        be a no-op (a padding loop storing the assumed pad value): nothing then changes the
        buffer, so the fact held throughout. Otherwise the body is visited without it."""
        saved = self.facts
        written = [f for f in saved if writes_buffer(s, f.buffer)]
        try:
            if written:
                kept = visit_inside()
                if not any(writes_buffer(kept, f.buffer) for f in written):
                    return kept
                self.facts = [f for f in saved if f not in written]
            return visit_inside()
        finally:
            self.facts = saved

    def _visit_branches(self, s):
        with self.ana.constraint_scope(s.condition):
            t = self.visit(s.then_case)
        e = None
        if s.else_case is not None:
            with self.ana.constraint_scope(negate_cond(s.condition)):
                e = self.visit(s.else_case)
        return S.IfThenElse(s.condition, t, e)

    def visit_IfThenElse(self, s):
        out = self._visit_under_facts(s, lambda: self._visit_branches(s))
        t, e = out.then_case, out.else_case
        if _empty(e):
            e = None
        if _empty(t) and e is None:
            return S.Evaluate(0)
        if t is s.then_case and e is s.else_case:
            return s
        if _empty(t):
            return S.IfThenElse(negate_cond(s.condition), e)
        return S.IfThenElse(s.condition, t, e)

    def visit_LetStmt(self, s):
        body = self.visit(s.body)
        if _empty(body):
            return S.Evaluate(0)
        return s.replace(body=body)

    def visit_BufferStore(self, s):
        if is_write_back(s):
            return S.Evaluate(0)
        for f in self.facts:
            if f.buffer is s.buffer:
                v = f.lookup([self.ana.simplify(i) for i in s.indices], self.ana)
                if v is not None and self.ana.simplify(E.convert(v)) is not None and \
                        structural_equal(self.ana.simplify(v), self.ana.simplify(s.value)):
                    return S.Evaluate(0)
        return s

    def visit_Evaluate(self, s):
        return S.Evaluate(0) if S.is_no_op(s) else s

    def visit_SeqStmt(self, s):
        saved = list(self.facts)
        out = []
        try:
            for x in s.seq:
                new = self.visit(x)
                self.facts = [f for f in self.facts if not writes_buffer(new, f.buffer)]
                facts, _ = extract_facts(new)
                self.facts.extend(facts)
                out.append(new)
        finally:
            self.facts = saved
        out = [x for x in out if not _empty(x)]
        changed = True
        while changed:
            changed = False
            for k in range(len(out) - 1):
                if self._overwritten(out[k], out[k + 1]):
                    del out[k]
                    changed = True
                    break
        if len(out) == len(s.seq) and all(a is b for a, b in zip(out, s.seq)):
            return s
        return S.seq(*out)

    def _overwritten(self, first, second) -> bool:
        if isinstance(first, S.BufferStore) and isinstance(second, S.BufferStore):
            return first.buffer is second.buffer and \
                len(first.indices) == len(second.indices) and \
                all(self.ana.can_prove_equal(a, b) for a, b in zip(first.indices,
                                                                   second.indices)) \
                and not _reads(second.value, first.buffer) \
                and not any(_reads(i, first.buffer) for i in second.indices)
            # (X[X[0]] = 5; X[X[0]] = 7: the first store changes where the second one writes)
        # a full loop nest overwriting the box first writes into
        loops = []
        inner = second
        while isinstance(inner, S.For):
            loops.append(inner)
            inner = inner.body
        if not loops or not isinstance(inner, S.BufferStore):
            return False
        buf = inner.buffer
        if _reads(second, buf):
            return False
        lvars = [l.loop_var for l in loops]
        if len(inner.indices) != len(lvars) or \
                not all(i is v for i, v in zip(inner.indices, lvars)):
            return False
        st = _stores(first)
        if not st or any(x.buffer is not buf for x in st):
            return False
        # every store of `first` must land in the box of `second`
        for x in st:
            ok = _in_box(first, x, loops, self.ana)
            if not ok:
                return False
        return True


def _in_box(root, store, loops, ana):
    """Can we prove every index of ``store`` (inside ``root``) is inside the loops' box?"""
    path = []

    def find(node, acc):
        if node is store:
            path.extend(acc)
            return True
        if isinstance(node, S.For):
            return find(node.body, acc + [node])
        if isinstance(node, S.SeqStmt):
            return any(find(c, acc) for c in node.seq)
        if isinstance(node, S.IfThenElse):
            return find(node.then_case, acc) or (node.else_case is not None and
                                                 find(node.else_case, acc))
        if isinstance(node, (S.LetStmt, S.AttrStmt)):
            return find(node.body, acc)
        return False
    if not find(root, []):
        return False
    snap = ana.snapshot()
    try:
        for l in path:
            ana.bind(l.loop_var, E.Range.from_min_extent(l.min, l.extent))
        for idx, l in zip(store.indices, loops):
            if not (ana.can_prove(idx >= l.min) and ana.can_prove(idx < E.add(l.min, l.extent))):
                return False
        return True
    finally:
        ana.restore(snap)


@register_pass("RemoveNoOp")
def remove_no_op(func):
    """Remove provable no-ops from a PrimFunc or Stmt (see the module docstring)."""
    if isinstance(func, PrimFunc):
        body = NoOpRemover().visit(func.body)
        return func if body is func.body else func.with_body(body)
    return NoOpRemover().visit(func)


__all__ = ["remove_no_op", "is_write_back", "NoOpRemover"]
