"""simplify_with_facts: Simplify that also uses ``tir.assume`` and known buffer contents (RFC 0077).

``simplify_with_facts(func_or_stmt)`` does everything ``passes.simplify`` does (it extends the
same statement simplifier) and in addition:

- an ``Evaluate(tir.assume(c))`` whose condition reads no buffer adds ``c`` as a known fact for
  the statements that follow it in its sequence (``assume(0 <= n < 8)`` makes ``n // 8`` be 0);
- *buffer facts* ``for idx in box: buf[idx] == value(idx) when cond(idx)`` come from
  (a) loop nests of ``Evaluate(tir.assume(P or buf[idx] == v))`` (``idx`` the loop vars, the
  RFC 0077 consumer form), (b) a plain ``assume(buf[c] == v)``, and (c) padding loop nests
  ``for idx: if P: buf[idx] = v`` (``v`` reading no buffer), as written by
  ``apply_buffer_transforms``. In the statements that follow in the same sequence, a load
  ``buf[e]`` is replaced by ``v(e)`` when ``e`` provably lies in the box and satisfies ``cond``
  given the enclosing loops and conditions;
- a fact about ``buf`` is dropped for any statement that may write ``buf`` (the condition of an
  ``if`` and the bounds of a loop are still simplified with it, since they are evaluated
  before the body), and for every statement after it in the sequence;
- ``assume`` statements are kept (a user assumption may never be removed); ``tir.undef``
  values are never substituted.

The lead can wire it in place of ``simplify`` where these facts should be used.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.negation import negate_cond
from ...arith.stmt_simplify import _StmtSimplifier
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ...tir.op import is_call
from ...tir.transform import register_pass


class BufferFact:
    """``buf[vars] == value`` for every ``vars`` in ``ranges`` where ``cond`` holds."""

    def __init__(self, buffer, vars_, ranges, cond, value):
        self.buffer, self.vars, self.ranges, self.cond, self.value = (
            buffer, list(vars_), list(ranges), cond, value)

    def lookup(self, indices, ana: Analyzer):
        if len(indices) != len(self.vars):
            return None
        vm = dict(zip(self.vars, indices))
        conds = [self.cond]
        for v, r in zip(self.vars, self.ranges):
            conds.append(E._cmp(E.GE, v, r.min))
            conds.append(E._cmp(E.LT, v, E.add(r.min, r.extent)))
        for c in conds:
            if not ana.can_prove(substitute(c, vm)):
                return None
        return substitute(self.value, vm)

    def __repr__(self):
        return f"BufferFact({self.buffer.name}{self.vars} == {self.value} if {self.cond})"


def _reads_buffer(e) -> bool:
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, E.BufferLoad) else None)
    return bool(found)


def _disjuncts(e):
    if isinstance(e, E.Or):
        return _disjuncts(e.a) + _disjuncts(e.b)
    return [e]


def _strip_loops(stmt):
    loops = []
    while isinstance(stmt, S.For) and stmt.kind in (S.ForKind.SERIAL, S.ForKind.PARALLEL,
                                                     S.ForKind.UNROLLED,
                                                     S.ForKind.VECTORIZED):
        loops.append(stmt)
        stmt = stmt.body
    return loops, stmt


def extract_facts(stmt):
    """``(buffer_facts, scalar_conditions)`` that ``stmt`` establishes for later statements."""
    loops, inner = _strip_loops(stmt)
    lvars = [l.loop_var for l in loops]
    ranges = [E.Range.from_min_extent(l.min, l.extent) for l in loops]
    facts, scalars = [], []
    if isinstance(inner, S.Evaluate) and is_call(inner.value, "tir.assume"):
        c = inner.value.args[0]
        if not _reads_buffer(c):
            if not loops:
                scalars.append(c)
            return facts, scalars
        ds = _disjuncts(c)
        for k, d in enumerate(ds):
            if isinstance(d, E.EQ):
                for ld, val in ((d.a, d.b), (d.b, d.a)):
                    if isinstance(ld, E.BufferLoad) and not _reads_buffer(val) and \
                            not is_call(val, "tir.undef"):
                        rest = ds[:k] + ds[k + 1:]
                        cond = E.IntImm(1, "bool")
                        for r in rest:
                            cond = E.logical_and(cond, negate_cond(r))
                        f = _fact_from_access(ld.buffer, ld.indices, lvars, ranges, cond, val)
                        if f is not None:
                            facts.append(f)
                            return facts, scalars
        return facts, scalars
    cond = E.IntImm(1, "bool")
    if isinstance(inner, S.IfThenElse) and inner.else_case is None:
        cond, inner = inner.condition, inner.then_case
    if isinstance(inner, S.BufferStore) and not _reads_buffer(inner.value) and \
            not is_call(inner.value, "tir.undef") and not _reads_buffer(cond):
        f = _fact_from_access(inner.buffer, inner.indices, lvars, ranges, cond, inner.value)
        if f is not None:
            facts.append(f)
    return facts, scalars


def _fact_from_access(buf, indices, lvars, ranges, cond, value):
    """Facts need indices that are exactly the loop vars (in order) or constants."""
    vars_, rngs, vm = [], [], {}
    used = set()
    for idx in indices:
        if isinstance(idx, E.Var) and idx in lvars and idx not in used:
            used.add(idx)
            vars_.append(idx)
            rngs.append(ranges[lvars.index(idx)])
        elif isinstance(idx, E.IntImm):
            v = E.Var("c", idx.dtype)
            vars_.append(v)
            rngs.append(E.Range.from_min_extent(idx, E.IntImm(1, idx.dtype)))
        else:
            return None
    if set(lvars) - used:
        # a loop var that does not index the buffer: the fact must hold for all its values;
        # only accept it when neither cond nor value depends on it
        free = (collect_vars(cond) | collect_vars(value)) & (set(lvars) - used)
        if free:
            return None
    return BufferFact(buf, vars_, rngs, cond, value)


def writes_buffer(stmt, buf) -> bool:
    found = []
    post_order_visit(stmt, lambda n: found.append(n)
                     if isinstance(n, S.BufferStore) and n.buffer is buf else None)
    return bool(found)


_REBUILD = {E.Add: E.add, E.Sub: E.sub, E.Mul: E.mul, E.FloorDiv: E.floordiv,
            E.FloorMod: E.floormod, E.Min: E.min_expr, E.Max: E.max_expr}


def refold(e):
    """Rebuild arithmetic with the folding constructors (``x + 0.0 -> x``, ``x * 1.0 -> x``)."""
    class _R(Mutator):
        def generic_visit(self, node):
            n = super().generic_visit(node)
            f = _REBUILD.get(type(n))
            if f is not None and E.dt.is_float(n.dtype):
                if isinstance(n.a, E.FloatImm) and n.a.value == 0.0 and type(n) is E.Add:
                    return n.b
                return f(n.a, n.b)
            return n
    return _R().visit(e)


class FactSimplifier(_StmtSimplifier):
    """The statement simplifier plus assume/buffer facts (see the module docstring)."""

    def __init__(self, ana=None):
        super().__init__(ana if ana is not None else Analyzer())
        self.facts: list[BufferFact] = []

    # --- expressions -------------------------------------------------------------------------
    def visit(self, node):
        if isinstance(node, E.PrimExpr):
            if self.facts:
                node = self._substitute_facts(node)
            return self.ana.simplify(node)
        return Mutator.visit(self, node)

    def _substitute_facts(self, e):
        facts, ana = self.facts, self.ana

        class _Sub(Mutator):
            def visit_BufferLoad(self, x):
                idx = self.visit(x.indices)
                for f in facts:
                    if f.buffer is x.buffer:
                        v = f.lookup([ana.simplify(i) for i in idx], ana)
                        if v is not None:
                            return v
                return x if idx is x.indices else E.BufferLoad(x.buffer, idx)

            def visit_Call(self, c):
                if c.op == "tir.assume":
                    return c
                return self.generic_visit(c)
        out = _Sub().visit(e)
        return e if out is e else refold(out)

    # --- statements --------------------------------------------------------------------------
    def _with_live_facts(self, stmt, fn):
        """Run ``fn`` with the facts about buffers that ``stmt`` writes removed."""
        saved = self.facts
        self.facts = [f for f in saved if not writes_buffer(stmt, f.buffer)]
        try:
            return fn()
        finally:
            self.facts = saved

    def visit_Evaluate(self, op):
        if is_call(op.value, "tir.assume"):
            saved = self.facts
            self.facts = []
            try:
                v = self.ana.simplify(op.value)
            finally:
                self.facts = saved
            return op if v is op.value else S.Evaluate(v)
        return super().visit_Evaluate(op)

    def visit_For(self, op):
        if not self.facts:
            return super().visit_For(op)
        return self._with_live_facts(op, lambda: super(FactSimplifier, self).visit_For(op))

    def visit_IfThenElse(self, op):
        cond = self.visit(op.condition)
        if cond is not op.condition:
            op = S.IfThenElse(cond, op.then_case, op.else_case)
        return self._with_live_facts(op, lambda: super(FactSimplifier, self).visit_IfThenElse(op))

    def visit_BufferStore(self, op):
        # the stored value and indices are read before the write: facts still apply
        return self.generic_visit(op)

    def visit_SeqStmt(self, op):
        saved_facts = list(self.facts)
        snap = self.ana.snapshot()
        out = []
        try:
            for s in op.seq:
                new = self.visit(s)
                out.append(new)
                # writes in this statement invalidate facts about those buffers
                self.facts = [f for f in self.facts if not writes_buffer(new, f.buffer)]
                facts, scalars = extract_facts(new)
                self.facts.extend(facts)
                for c in scalars:
                    self.ana.add_constraint(c)
        finally:
            self.facts = saved_facts
            self.ana.restore(snap)
        if all(a is b for a, b in zip(out, op.seq)) and not any(S.is_no_op(s) for s in out):
            return op
        return S.seq(*out)


@register_pass()
def simplify_with_facts(func_or_stmt, analyzer=None):
    """Simplify using assumptions and known buffer values (see the module docstring)."""
    sim = FactSimplifier(analyzer)
    if isinstance(func_or_stmt, PrimFunc):
        body = sim.visit(func_or_stmt.body)
        return func_or_stmt if body is func_or_stmt.body else func_or_stmt.with_body(body)
    return sim.visit(func_or_stmt)


__all__ = ["simplify_with_facts", "FactSimplifier", "BufferFact", "extract_facts",
           "writes_buffer"]
