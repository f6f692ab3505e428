"""LoopPartition: split a loop whose body tests its variable into pieces without the test
(TVM's ``tir.transform.LoopPartition``).

    for io in range((n + 7) // 8):                  for io in range(n // 8):
        for ii in range(8):                             for ii in range(8):
            if likely(io*8 + ii < n): S      ==>            S
                                                    for io in range((n+7)//8 - n//8):
                                                        for ii in range(8):
                                                            if likely(...): S

Which loops: a loop is a candidate when its body holds a ``tir.likely`` condition (of an
``IfThenElse`` or of a ``tir.if_then_else`` call) that reads its variable, and its bounds are
symbolic -- or constant, with ``partition_const_loop``. A loop marked
``s[C].pragma(axis, "loop_partition_hint")`` is a candidate whatever its bounds, and for it
the plain (not ``likely``) conditions of ifs and if_then_else calls count too. Serial and parallel loops are
partitioned; vectorized, unrolled and thread-bound loops are left alone (their extents must
stay what the schedule asked for).

How: each condition is a conjunction; its conjuncts that read the loop variable ``v`` must be
integer comparisons (``==`` included), each linear in ``v`` (``a*v + r < 0`` after moving terms, ``a`` a constant); the variables of loops
between ``v`` and the condition range over their extents, everything defined outside stays
symbolic. That gives the interval of ``v`` where the condition holds for every inner
iteration; the intersection over the loop's conditions is the middle piece, where those
conditions are replaced by ``True`` (by their conjuncts that do not read ``v``, when there are
any: ``likely(i < n and j < m)`` becomes ``likely(j < m)`` in the middle of the ``i`` loop). The pieces before and after keep the conditions, except
those provably false over the whole piece (replaced by ``False``; Simplify then drops the
dead branch). A piece of extent 1 becomes its body with ``v`` replaced by the piece's start,
unless ``no_unroll_loop_with_extent_one``; other pieces are loops over their part of the
original range (``for v in range(lo, hi)``), so the body's indices stay as written. At most
``MAX_PARTITIONS`` loops are partitioned per function (outermost first): every partition
copies a body up to three times; a loop whose middle bounds are bigger than
``MAX_BOUND_NODES`` expression nodes stays guarded. Pieces get fresh loop variables (the IR binds a
variable once; convert_ssa renames the loops copied inside them). Pieces are partitioned again inside (inner loops), never by the same
conditions, so the pass terminates and is idempotent on its output's middle pieces.

Guarantee: the result performs the same stores in the same order as the input, for every
input; conditions not of this form (non-linear in ``v``, disjunctions, no ``likely``) are
left untouched.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.const_bound import NEG_INF, POS_INF
from ...arith.int_set import eval_set
from ...errors import TepadError
from ...tir import expr as E
from ...tir.expr import IntImm, Range, Var, const
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, post_order_visit, substitute
from ...tir.op import is_call
from ...tir.ssa import convert_ssa
from ...tir.stmt import Evaluate, For, ForKind, is_no_op, seq
from .simplify import simplify
from ...tir.transform import current_config, register_pass

CONFIG_KEY = "tir.LoopPartition"
HINT_KEY = "pragma_loop_partition_hint"
# loops partitioned per function at most: each partition copies the loop body up to three
# times, so nested candidates multiply the code; past this many the rest stay guarded
MAX_PARTITIONS = 16
# a loop whose middle-piece bounds take more expression nodes than this stays guarded (the
# pieces' loop bounds would be that big, and proofs about them slow)
MAX_BOUND_NODES = 24
# proofs about piece bounds per function (each may cost a good part of a second on involved
# bounds); past the budget, facts count as unproven: guards and clamps stay
MAX_PROOFS = 150
OPTIONS = ("partition_const_loop", "no_unroll_loop_with_extent_one",
           "unroll_loop_with_partition_hint_no_interval")
_PARTITIONED_KINDS = (ForKind.SERIAL, ForKind.PARALLEL)


def loop_partition_config(config) -> dict:
    """The options of a ``tir.LoopPartition`` PassContext config, checked: a dict with keys
    from ``OPTIONS`` (missing ones False)."""
    if config is None:
        return {k: False for k in OPTIONS}
    if not isinstance(config, dict):
        raise TepadError(f"PassContext config {CONFIG_KEY!r} takes a dict of "
                         f"{', '.join(OPTIONS)}, got {config!r}")
    unknown = [k for k in config if k not in OPTIONS]
    if unknown:
        raise TepadError(f"PassContext config {CONFIG_KEY!r}: unknown option {unknown[0]!r}; "
                         f"options: {', '.join(OPTIONS)}")
    return {k: bool(config.get(k, False)) for k in OPTIONS}


def _is_int_const(e) -> bool:
    return isinstance(e, IntImm)


def _conditions(stmt, every=False) -> list:
    """``[(node, condition)]``: each ``likely(c)`` call in ``stmt`` (node: the call,
    condition: ``c``); with ``every``, also the plain conditions of ifs and if_then_else
    calls (node and condition: the expression itself)."""
    out = []

    class _Find(Mutator):
        def visit_Call(self, c):
            if is_call(c, "tir.likely"):
                out.append((c, c.args[0]))
            elif every and is_call(c, "tir.if_then_else") and not is_call(c.args[0],
                                                                           "tir.likely"):
                out.append((c.args[0], c.args[0]))
            return self.generic_visit(c)

        def visit_IfThenElse(self, s):
            if every and not is_call(s.condition, "tir.likely"):
                out.append((s.condition, s.condition))
            return self.generic_visit(s)
    _Find().visit(stmt)
    return out


def comparisons(cond):
    """``cond`` as a list of ``d`` with ``cond == all(d < 0)``, or None when it is not a
    conjunction of integer comparisons (``a == b`` is ``a - b < 1 and b - a < 1``)."""
    if isinstance(cond, E.And):
        a, b = comparisons(cond.a), comparisons(cond.b)
        return None if a is None or b is None else a + b
    if not isinstance(cond, (E.LT, E.LE, E.GT, E.GE, E.EQ)) or \
            not cond.a.dtype.startswith("int"):
        return None
    a, b = cond.a, cond.b
    if isinstance(cond, E.LT):
        return [a - b]
    if isinstance(cond, E.LE):
        return [a - b - 1]
    if isinstance(cond, E.GT):
        return [b - a]
    if isinstance(cond, E.EQ):
        return [a - b - 1, b - a - 1]
    return [b - a - 1]


def _conjuncts(cond) -> list:
    if isinstance(cond, E.And):
        return _conjuncts(cond.a) + _conjuncts(cond.b)
    return [cond]


def _split_on(cond, v):
    """``(on_v, rest)``: the conjuncts of ``cond`` that read ``v`` (as one conjunction) and
    the others (a list)."""
    on, rest = [], []
    for c in _conjuncts(cond):
        (on if v in collect_vars(c) else rest).append(c)
    out = None
    for c in on:
        out = c if out is None else E.And(out, c)
    return out, rest


class _Interval:
    """Half-open ``[lo, hi)`` of the loop variable; None on a side means unbounded."""

    def __init__(self, lo=None, hi=None):
        self.lo, self.hi = lo, hi

    def meet(self, other):
        def pick(x, y, fn):
            if x is None:
                return y
            if y is None:
                return x
            return fn(x, y)
        return _Interval(pick(self.lo, other.lo, E.max_expr),
                         pick(self.hi, other.hi, E.min_expr))


def _reads_memory(e) -> bool:
    """Whether ``e`` loads from memory or calls a function (its value may change while the
    loop runs, so a bound made of it cannot be computed before the loop)."""
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(
        n, (E.BufferLoad, E.ProducerLoad, E.Call)) else None)
    return bool(found)


def _linear(d, v, ana):
    """``(a, r)`` with ``d == a*v + r``, ``a`` an int and ``r`` free of ``v``, else None."""
    if _reads_memory(d):
        return None
    r = ana.simplify(substitute(d, {v: 0}))
    a = ana.simplify(substitute(d, {v: 1}) - r)
    if not _is_int_const(a) or a.value == 0:
        return None
    if v in collect_vars(r) or not ana.can_prove(E.EQ(ana.simplify(d - (a * v + r)),
                                                        const(0, v.dtype))):
        return None
    return a.value, r


def _size(e) -> int:
    n = [0]

    def f(_):
        n[0] += 1
    post_order_visit(e, f)
    return n[0]


def _endpoint(x):
    return None if x is POS_INF or x is NEG_INF or not isinstance(x, E.PrimExpr) else x


def _intervals(cond, v, inner, local, ana):
    """``(true, false)`` intervals of ``v`` where ``cond`` holds / fails for every value of the
    ``inner`` loop variables (``{Var: Range}``), or None when ``cond`` is not of the form or
    its bounds would read a variable of ``local`` (defined inside the loop)."""
    parts = comparisons(cond)
    if parts is None:
        return None
    true, false_sets = _Interval(), []
    for d in parts:
        lin = _linear(d, v, ana)
        if lin is None:
            return None
        a, r = lin
        rs = eval_set(r, inner)
        hi_r, lo_r = _endpoint(rs.max_value), _endpoint(rs.min_value)
        # an inner loop's extent may read v itself (a split tail): such bounds are not
        # bounds on v
        if hi_r is None or lo_r is None or \
                (collect_vars(hi_r) | collect_vars(lo_r)) & (local | {v}):
            return None
        if a > 0:       # a*v + r < 0 for every r  <=>  v <= floor((-max r - 1) / a)
            true = true.meet(_Interval(None, E.floordiv(-hi_r - 1, a) + 1))
            # fails for every r  <=>  a*v + min r >= 0  <=>  v >= ceil(-min r / a)
            false_sets.append(_Interval(E.floordiv(-lo_r + a - 1, a), None))
        else:
            b = -a      # r - b*v < 0  <=>  v >= floor(max r / b) + 1
            true = true.meet(_Interval(E.floordiv(hi_r, b) + 1, None))
            false_sets.append(_Interval(None, E.floordiv(lo_r, b) + 1))
    return true, false_sets


class _Replace(Mutator):
    """Replace the given condition nodes (by identity) with constants."""

    def __init__(self, values):
        self.values = values

    def visit(self, node):
        if id(node) in self.values:
            value = self.values[id(node)]
            return const(value, "bool") if isinstance(value, bool) else value
        return super().visit(node)

    def visit_Call(self, c):
        c2 = self.generic_visit(c)
        if is_call(c2, "tir.if_then_else") and _is_int_const(c2.args[0]):
            return c2.args[1] if c2.args[0].value else c2.args[2]
        return c2

    def visit_IfThenElse(self, s):
        s2 = self.generic_visit(s)
        if _is_int_const(s2.condition):
            taken = s2.then_case if s2.condition.value else s2.else_case
            return taken if taken is not None else Evaluate(0)
        return s2


def _empty(stmt) -> bool:
    """A no-op, or loops around one (a piece whose conditions all came out False)."""
    while isinstance(stmt, For):
        stmt = stmt.body
    return is_no_op(stmt)


def _holding(node, rest):
    """What condition ``node`` becomes where its conjuncts on the loop variable hold: True,
    or the other conjuncts (still under ``likely`` when ``node`` is a likely call)."""
    if not rest:
        return True
    cond = rest[0]
    for c in rest[1:]:
        cond = E.And(cond, c)
    return E.Call("bool", "tir.likely", [cond]) if is_call(node, "tir.likely") else cond


class _Partitioner(Mutator):
    def __init__(self, partition_const_loop, keep_extent_one):
        self.const_loops = partition_const_loop
        self.keep_extent_one = keep_extent_one
        self.ana = Analyzer()
        self.loops: list = []       # (Var, Range) of the enclosing loops, outermost first
        self.hinted: set = set()    # loop variables under pragma loop_partition_hint
        self.budget = MAX_PARTITIONS
        self.proofs = MAX_PROOFS

    def visit_LetStmt(self, s):
        with self.ana.bind_scope(s.var, s.value):
            return self.generic_visit(s)

    def visit_AttrStmt(self, s):
        if s.attr_key == HINT_KEY:
            var = getattr(s.node, "var", s.node)
            if isinstance(var, Var):
                self.hinted.add(var)
        return self.generic_visit(s)

    def visit_For(self, s):
        symbolic = not (_is_int_const(s.min) and _is_int_const(s.extent))
        if s.kind in _PARTITIONED_KINDS and (symbolic or self.const_loops or
                                             s.loop_var in self.hinted):
            out = self._partition(s)
            if out is not None:
                return out
        return self._descend(s)

    def _descend(self, s):
        rng = Range.from_min_extent(s.min, s.extent)
        self.loops.append((s.loop_var, rng))
        try:
            with self.ana.bind_scope(s.loop_var, rng):
                body = self.visit(s.body)
        finally:
            self.loops.pop()
        return s.replace(body=body)

    @staticmethod
    def _inner(stmt):
        """``({Var: Range} of every loop inside stmt, set of every variable stmt binds)``:
        loop variables are relaxed over their ranges; let variables are not (a bound that
        reads one cannot be placed outside the loop)."""
        loops, local = {}, set()

        class _Loops(Mutator):
            def visit_For(self, f):
                loops[f.loop_var] = Range.from_min_extent(f.min, f.extent)
                local.add(f.loop_var)
                return self.generic_visit(f)

            def visit_LetStmt(self, ls):
                local.add(ls.var)
                return self.generic_visit(ls)

            def visit_Let(self, le):
                local.add(le.var)
                return self.generic_visit(le)
        _Loops().visit(stmt)
        return loops, local

    def _partition(self, s):
        v = s.loop_var
        if self.budget <= 0:
            return None
        seen, conds = set(), []
        for node, cond in _conditions(s.body, v in self.hinted):
            if id(node) not in seen and v in collect_vars(cond):
                seen.add(id(node))
                conds.append((node, cond))
        if not conds:
            return None
        inner, local = self._inner(s.body)
        analyzed, middle = [], _Interval()
        with self.ana.bind_scope(v, Range.from_min_extent(s.min, s.extent)):
            for node, cond in conds:
                on_v, rest = _split_on(cond, v)
                got = _intervals(on_v, v, inner, local, self.ana)
                if got is not None:
                    analyzed.append((node, got, _holding(node, rest)))
                    middle = middle.meet(got[0])
        if not analyzed:
            return None
        ana = self.ana
        begin, end = s.min, ana.simplify(s.min + s.extent)
        raw_lo = None if middle.lo is None else ana.simplify(middle.lo)
        raw_hi = None if middle.hi is None else ana.simplify(middle.hi)
        if any(x is not None and _size(x) > MAX_BOUND_NODES for x in (raw_lo, raw_hi)):
            return None                 # bounds this involved would bloat every piece's code
        mid_b = begin if raw_lo is None else self._clamp(raw_lo, begin, end)
        mid_e = end if raw_hi is None else self._clamp(raw_hi, mid_b, end)
        if self._prove(mid_e <= mid_b):
            return None                 # the conditions hold nowhere as a whole: nothing to gain
        self.budget -= 1
        # When a piece runs, the clamps give more than its bounds say: the piece before the
        # middle ends at or below raw_lo, the piece after starts at or above raw_hi.
        spans = ((begin, mid_b, [begin], [mid_b] + ([raw_lo] if raw_lo is not None else [])),
                 (mid_b, mid_e, None, None),
                 (mid_e, end, [mid_e] + ([raw_hi] if raw_hi is not None else []), [end]))
        pieces = []
        for lo, hi, los, his in spans:
            ext = ana.simplify(hi - lo)
            if self._prove(ext <= 0):
                continue
            values = {}
            # the replacements run only when the piece does: its extent is positive there
            with ana.constraint_scope(lo < hi):
                for c, (true, false_sets), holding in analyzed:
                    if los is None or self._covers(true, los, his):
                        values[id(c)] = holding
                    elif any(self._covers(f, los, his) for f in false_sets):
                        values[id(c)] = False
            body = _Replace(values).visit(s.body) if values else s.body
            pieces.append(self._piece(s, lo, ext, body))
        return seq(*pieces)

    def _covers(self, interval, los, his) -> bool:
        """Whether a piece starting at or above every expression of ``los`` and ending at or
        below every one of ``his`` lies inside ``interval``."""
        ok_lo = interval.lo is None or any(self._prove(interval.lo <= x) for x in los)
        return ok_lo and (interval.hi is None or
                          any(self._prove(x <= interval.hi) for x in his))

    def _piece(self, s, lo, ext, body):
        """The loop ``s`` over ``[lo, lo + ext)`` with ``body``, its inside partitioned in
        turn; None when nothing is left of it."""
        v = s.loop_var
        if _is_int_const(ext) and ext.value == 1:
            out = self.visit(substitute(body, {v: lo}))
            if self.keep_extent_one and not is_no_op(out):
                out = For(Var(v.name, v.dtype), const(0, v.dtype), const(1, v.dtype), s.kind,
                          out, s.thread_binding, s.annotations)
        else:
            nv = Var(v.name, v.dtype)
            # the piece keeps the variable's values (min lo): indices inside stay as written
            out = self._descend(For(nv, lo, ext, s.kind, substitute(body, {v: nv}),
                                    s.thread_binding, s.annotations))
            if _empty(out.body):
                return None
        return None if _empty(out) else out

    def _prove(self, cond) -> bool:
        """``can_prove`` within the function's proof budget (past it: not proven, which only
        keeps code: a guard, a clamp or a piece that may be empty)."""
        if self.proofs <= 0:
            return False
        self.proofs -= 1
        return self.ana.can_prove(cond)

    def _clamp(self, x, lo, hi):
        """``min(max(x, lo), hi)`` without the sides the analyzer proves unneeded."""
        if not self._prove(x >= lo):
            x = E.max_expr(x, lo)
        if not self._prove(x <= hi):
            x = E.min_expr(x, hi)
        return self.ana.simplify(x)


def _loop_partition_from_context(func):
    """TVM's LoopPartition(): its options come from the PassContext config."""
    config = current_config().get(CONFIG_KEY)
    return loop_partition(func, **loop_partition_config(config))


@register_pass("LoopPartition", run=_loop_partition_from_context)
def loop_partition(func: PrimFunc, partition_const_loop=False,
                   no_unroll_loop_with_extent_one=False,
                   unroll_loop_with_partition_hint_no_interval=False) -> PrimFunc:
    """``func`` with its candidate loops partitioned (see the module docstring), then
    simplified; the same object when no loop was partitioned.
    ``unroll_loop_with_partition_hint_no_interval`` is accepted for TVM configs and changes
    nothing (a hinted loop whose conditions give no interval is left as it is)."""
    if not isinstance(func, PrimFunc):
        raise TepadError(f"loop_partition runs on a PrimFunc, got {type(func).__name__}")
    body = _Partitioner(bool(partition_const_loop),
                        bool(no_unroll_loop_with_extent_one)).visit(func.body)
    if body is func.body:
        return func
    # the pieces copy the loops inside: convert_ssa gives each copy its own variables
    out = convert_ssa(func.with_body(body))
    if no_unroll_loop_with_extent_one:
        return out
    return simplify(out)


__all__ = ["loop_partition", "loop_partition_config", "comparisons", "CONFIG_KEY", "OPTIONS"]
