"""InjectRollingBuffer: turn a ``rolling_buffer`` stage's buffer into a circular buffer.

Input (from to_primfunc, before storage_flatten)::

    for yo:                                  # the rolling loop (serial)
      realize B[yo*4 : yo*4+6, jo*4 : jo*4+6]    # per-iteration region, tensor coordinates
        attr B "rolling_buffer_scope" True
          <producer of B>  B[i + yo*4, ...] = ...
          <consumer>       ... B[yo*4 + yi + q, ...] ...

Algorithm (TVM's InjectRollingBuffer, generalised as in its pull request, apache/tvm #13033):

0. Loops outside the innermost parallel/vectorized loop enclosing the realize act as
   parameters: the realize never moves above such a loop (its iterations would share one
   buffer), so a parallel outer loop keeps a private buffer per iteration.
1. Every dimension ``d`` of the realize region is classified from its min: a constant; linear in
   exactly one (sequential) enclosing loop var ``v`` (``v*c + k``; offsets and parameters
   allowed: the stride is ``c``); ``floordiv(v*c + k, q)`` (stride ``ceil(c/q)``, upscaling);
   or another form. The extent may be constant or vary with ``v`` only (exact bounds: a smaller
   last tile); ``ext`` is then its largest value. Overlap = ``ext - stride`` for linear mins;
   for ``floordiv(v*c + k, q)`` the advance alternates between ``floor(c/q)`` and
   ``ceil(c/q)``, the dimension rolls when its largest overlap ``ext - floor(c/q)`` is
   positive, and the skip guard (step 4) uses the exact per-iteration overlap.
   A composite min ``v_o*c_o + v*c_i`` over two adjacent sequential loops (a split axis:
   ``y.outer*8 + y.inner``) rolls along ``v`` when the window never moves backwards
   (``c_o >= (e - 1)*c_i``, ``e`` the inner loop's largest extent): the realize is hoisted above
   ``v_o`` and the previous iteration of ``(v_o, v)`` is ``(v_o, v - 1)``, or
   ``(v_o - 1, last v)`` at the start of the inner loop (TVM refuses this).
2. Rolling axis: the outermost loop that is the single loop var of some dimension with a
   positive overlap; that dimension (the first such one) is folded to ``ext``. No such
   dimension: TepadError naming the buffer, each dim's overlap, and what would be valid.
3. The realize is hoisted above every loop its region depends on (at least above the rolling
   loop). Rolling dim: ``[0, ext)`` and every access index on it becomes
   ``floormod(index, ext)``. Other dims: the union of the per-iteration region over the loops
   inside the hoisted realize (clipped to the tensor's shape; ScheduleOps guards stores outside
   it), so loop-invariant dims keep their per-iteration size (seed examples: ``[6, 10]`` and
   ``[1, 12, 6, 16]``).
4. Producer stores are guarded (inside any guard already there) by, for each dimension with a
   loop var ``v`` of positive overlap that is used by that dimension only::

       v < v_min + 1  or  (index_d - min_d(v)) >= end_d(v - 1) - min_d(v)

   i.e. values already in the buffer from the previous iteration are not recomputed. The local
   index is measured from the region min (TVM substitutes ``v := 0``, which is wrong for
   offsets such as ``v*4 - 1``); the overlap simplifies to ``ext - stride`` for linear mins.

Refused with TepadError: the rolling loop (or a loop between it and the attach point) parallel
or vectorized, a rolling loop var used by two dimensions, composite mins of loops that are not
adjacent or whose window moves back (``v1*8 + v2*4`` with ``v2`` in ``[0, 4)``) and non-affine
mins when they leave no rollable dimension, a negative stride, a guard around a
producer store that selects different coordinates in different iterations of a predicated loop
(non-box exact regions), transform_layout on the rolling buffer itself.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.affine import affine_terms
from ...errors import TepadError
from ...tir import expr as E
from ...tir import op as tirop
from ...tir.expr import BufferLoad, IntImm, Range, Var
from ...tir.function import PrimFunc
from ...tir.ssa import convert_ssa
from ...tir.functor import Mutator, collect_vars, substitute
from ...tir.stmt import AttrStmt, BufferRealize, BufferStore, IfThenElse, LetStmt
from ...tir.transform import register_pass
from .rolling_buffer_analysis import _conjuncts, _const, _fmt, analyse_realize

ROLLING_BUFFER_SCOPE = "rolling_buffer_scope"


# --------------------------------------------------------------------------------------------
# the rewrite (the analysis of each realize: rolling_buffer_analysis)
# --------------------------------------------------------------------------------------------
class _Inject(Mutator):
    """The rewrite: each rolling realize (analysed by ``analyse_realize``) is hoisted above its
    hoist loop with its new bounds, accesses on the rolling dimension are folded modulo its
    extent, and producer stores get the skip guard (step 4)."""

    def __init__(self, func):
        self.func = func
        self.stack = []          # enclosing For / LetStmt nodes, outermost first
        self.guards = []         # enclosing IfThenElse conditions (then-branches)
        self.active = {}         # Buffer -> _Info (accesses being rewritten)
        self.hoist = {}          # id(For) -> [(info, condition, attrs)]
        self.layout_buffers = set(func.attrs.get("layout_transform_map", {}) or {})
        self.done = 0

    # --- scopes --------------------------------------------------------------------------
    def visit_For(self, s):
        self.stack.append(s)
        try:
            body = self.visit(s.body)
        finally:
            self.stack.pop()
        out = s.replace(body=body)
        for info, cond, attrs in self.hoist.pop(id(s), ()):
            out = BufferRealize(info.buffer, info.bounds, cond, out)
            for a in attrs:
                out = AttrStmt(a.node, a.attr_key, a.value, out)
        return out

    def visit_LetStmt(self, s):
        value = self.visit(s.value)
        self.stack.append(s)
        try:
            body = self.visit(s.body)
        finally:
            self.stack.pop()
        if value is s.value and body is s.body:
            return s
        return LetStmt(s.var, value, body)

    def visit_IfThenElse(self, s):
        cond = self.visit(s.condition)
        self.guards.append(cond)
        try:
            then = self.visit(s.then_case)
        finally:
            self.guards.pop()
        els = self.visit(s.else_case) if s.else_case is not None else None
        if cond is s.condition and then is s.then_case and els is s.else_case:
            return s
        return IfThenElse(cond, then, els)

    def visit_AttrStmt(self, s):
        if s.attr_key == ROLLING_BUFFER_SCOPE:
            # a scope attr whose realize was handled is dropped; a stray one is an error
            if s.node in self.active:
                return self.visit(s.body)
            raise TepadError(
                f"rolling_buffer: buffer {getattr(s.node, 'name', s.node)} has a "
                "rolling_buffer_scope but no enclosing realize; the rolling stage must be "
                "computed at a loop of its consumer (s[B].compute_at(s[C], axis))")
        return self.generic_visit(s)

    # --- the realize ---------------------------------------------------------------------
    def visit_BufferRealize(self, s):
        attrs, inner = [], s.body
        while isinstance(inner, AttrStmt) and inner.attr_key != ROLLING_BUFFER_SCOPE:
            attrs.append(inner)
            inner = inner.body
        if not (isinstance(inner, AttrStmt) and inner.node is s.buffer):
            return self.generic_visit(s)
        info = analyse_realize(s, self.stack, self.layout_buffers)
        if info is None:                  # nothing to roll: the realize stays, the scope goes
            out = self.visit(inner.body)
            for a in reversed(attrs):
                out = AttrStmt(a.node, a.attr_key, a.value, out)
            return BufferRealize(s.buffer, s.bounds, s.condition, out)
        self.active[s.buffer] = info
        saved_guards = self.guards
        self.guards = []                  # guards inside the realize are the producer's own
        try:
            body = self.visit(inner.body)
        finally:
            self.guards = saved_guards
            del self.active[s.buffer]
        # the realize (and the buffer's other attrs) move up to wrap the hoist loop
        self.hoist.setdefault(id(info.hoist_loop), []).append((info, s.condition, attrs))
        self.done += 1
        return body

    # --- accesses ------------------------------------------------------------------------
    def _fold(self, info, indices):
        d = info.roll.d
        idx = list(indices)
        idx[d] = E.floormod(idx[d], IntImm(info.roll.ext, idx[d].dtype))
        return idx

    def visit_BufferLoad(self, e):
        idx = self.visit(e.indices)
        info = self.active.get(e.buffer)
        if info is None:
            return e if idx is e.indices else BufferLoad(e.buffer, idx)
        return BufferLoad(e.buffer, self._fold(info, idx))

    def visit_BufferStore(self, s):
        value = self.visit(s.value)
        idx = self.visit(s.indices)
        info = self.active.get(s.buffer)
        if info is None:
            if value is s.value and idx is s.indices:
                return s
            return BufferStore(s.buffer, value, idx)
        conds = []
        ana = Analyzer()
        for x in info.pred_dims:
            local = ana.simplify(E.sub(idx[x.d], x.min))
            self._check_guards(info, x, idx[x.d], local)
            first = E.convert(x.var < E.add(info.loop_min[x.var], 1))
            if x.outer is not None:      # the first iteration of both loops
                first = tirop.all(first, x.outer < E.add(info.loop_min[x.outer], 1))
            conds.append(tirop.any(first, local >= self._overlap_expr(info, x)))
        store = BufferStore(s.buffer, value, self._fold(info, idx))
        if conds:
            return IfThenElse(tirop.likely(tirop.all(*conds)), store)
        return store

    def _overlap_expr(self, info, x):
        """Rows of iteration v already written by iteration v - 1: end(v - 1) - min(v)."""
        if x.outer is not None:
            return self._composite_overlap(info, x)
        ana = Analyzer()
        # the expression is only used when v > its loop's min
        ana.bind(x.var, Range.from_min_extent(E.add(info.loop_min[x.var], 1),
                                              E.sub(info.loop_ext[x.var], 1)))
        prev = {x.var: E.sub(x.var, 1)}
        end_prev = substitute(E.add(x.min, x.extent), prev)
        ov = ana.simplify(E.sub(end_prev, x.min))
        if isinstance(ov, IntImm):
            return ov
        if x.ext is not None and _const(x.extent) is not None and x.div == 1:
            return IntImm(x.overlap, x.min.dtype)       # linear min: constant E - stride
        # a floordiv min (upscaling) overlaps by different amounts in different iterations:
        # the exact end(v - 1) - min(v), never a constant that could skip a new row
        return ov

    def _composite_overlap(self, info, x):
        """end(previous iteration) - min(v): the previous iteration is (v_o, v - 1) inside the
        inner loop and (v_o - 1, last v) at its start."""
        ana = Analyzer()
        v, vo = x.var, x.outer
        lo = info.loop_min[v]
        last = E.sub(E.add(lo, substitute(x.inner_extent, {vo: E.sub(vo, 1)})), 1)
        end = E.add(x.min, x.extent)
        inside = substitute(end, {v: E.sub(v, 1)})
        across = substitute(end, {v: last, vo: E.sub(vo, 1)})
        a = ana.simplify(E.sub(inside, x.min))
        b = ana.simplify(substitute(E.sub(across, x.min), {v: lo}))    # taken where v == lo
        if isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value:
            return a          # the window slides by the same rows across the outer loop
        return tirop.if_then_else(v > lo, a, b)

    def _check_guards(self, info, x, index, local):
        """Guards around the store must not change with ``x.var`` at a fixed coordinate."""
        v = x.var
        conj = [c for g in self.guards for c in _conjuncts(g)]
        if not conj:
            return
        lin = affine_terms(local)
        p = None
        if lin is not None:
            p = next((u for u, c in lin[0].items() if c == 1 and u is not v), None)
        for c in conj:
            if v not in collect_vars(c) and (p is None or p not in collect_vars(c)):
                continue
            if p is not None:
                t = Var("coord", index.dtype)
                # index = p + rest  ->  p = t - rest
                rest = E.sub(index, p)
                ct = Analyzer().simplify(substitute(c, {p: E.sub(t, rest)}))
                if v not in collect_vars(ct):
                    continue
            if _bounds_the_coordinate(c, index, v):
                continue
            if not (collect_vars(c) & set(info.loop_min)):
                # only the producer's own loops: a split-tail guard (i.o * 2 + i.i < 3), the
                # same local positions in every iteration of the enclosing loops
                continue
            # a bound of the local position within the window [0, extent) is harmless
            ana = Analyzer()
            with ana.constraint_scope(tirop.all(local >= 0, local < x.ext)):
                if ana.can_prove(c):
                    continue
            raise TepadError(
                f"rolling_buffer: buffer {info.buffer.name}: the producer store is guarded by "
                f"{_fmt(c)}, which selects different points of dim {x.d} in different "
                f"iterations of loop {v.name} (a non-box region, e.g. from exact bounds); "
                "values skipped as already computed might not have been; use interval bounds "
                "(exact_bounds=False) or a schedule whose regions are boxes")


def _bounds_the_coordinate(c, index, v) -> bool:
    """``c`` compares the stored coordinate ``index`` with something ``v`` does not change
    (``index < 5``: the tensor's shape clipping a tile). Such a guard selects the same
    coordinates in every iteration, so skipping what the previous iteration stored is sound."""
    if not isinstance(c, E.CmpOp):
        return False
    ana = Analyzer()
    rest = ana.simplify(E.sub(E.sub(c.a, c.b), index))
    if v not in collect_vars(rest) and not (collect_vars(rest) & collect_vars(index)):
        return True
    rest = ana.simplify(E.add(E.sub(c.a, c.b), index))     # -index op ...
    return v not in collect_vars(rest) and not (collect_vars(rest) & collect_vars(index))


@register_pass("InjectRollingBuffer")
def inject_rolling_buffer(func: PrimFunc) -> PrimFunc:
    """Fold every ``rolling_buffer_scope`` buffer into a circular buffer (see module doc)."""
    m = _Inject(func)
    body = m.visit(func.body)
    if m.hoist:
        raise TepadError("rolling_buffer: internal error, a hoisted realize lost its loop")
    if body is func.body:
        return func
    return convert_ssa(func.with_body(body))


__all__ = ["inject_rolling_buffer"]
