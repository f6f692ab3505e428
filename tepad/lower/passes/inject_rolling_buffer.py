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

import math

from ...arith import Analyzer
from ...arith.affine import affine_terms
from ...arith.int_set import eval_set_with
from ...errors import TepadError
from ...tir import expr as E
from ...tir import op as tirop
from ...tir.expr import BufferLoad, IntImm, Range, Var
from ...tir.function import PrimFunc
from ...tir.ssa import convert_ssa
from ...tir.functor import Mutator, collect_vars, substitute
from ...tir.stmt import (AttrStmt, BufferRealize, BufferStore, For, ForKind, IfThenElse,
                         LetStmt)
from ...tir.transform import register_pass

ROLLING_BUFFER_SCOPE = "rolling_buffer_scope"
_SEQUENTIAL = (ForKind.SERIAL, ForKind.UNROLLED)


# --------------------------------------------------------------------------------------------
# small expression helpers
# --------------------------------------------------------------------------------------------
def _const(e):
    return e.value if isinstance(e, IntImm) else None


def _conjuncts(c):
    if isinstance(c, E.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    if isinstance(c, E.Call) and tirop.is_call(c, "tir.likely"):
        return _conjuncts(c.args[0])
    return [c]


def _fmt(e):
    return e.script() if hasattr(e, "script") else repr(e)



def _degenerate(dims, loops) -> bool:
    """A rolling buffer that would change nothing: the region is empty (a consumer reads the
    stage under a guard that never holds), or every loop it could roll along runs once."""
    if any(isinstance(x.extent, IntImm) and x.extent.value <= 0 for x in dims):
        return True
    return all(isinstance(f.extent, IntImm) and f.extent.value == 1 for f in loops)


class _Dim:
    """What the rolling analysis knows about one dimension of the realize region."""

    def __init__(self, d, rng):
        self.d = d
        self.min = rng.min
        self.extent = rng.extent
        self.loop_vars = []      # enclosing loop vars used by min/extent, outermost first
        self.var = None          # the single loop var of a supported form
        self.stride = None       # the largest advance per iteration (ceil(c / q))
        self.div = 1             # q of a floordiv(v*c + k, q) min
        self.coef = None         # c
        self.outer = None        # composite min v_o*c_o + v*c: the outer loop var v_o
        self.outer_coef = None   # c_o
        self.inner_extent = None  # the extent of v's loop (may change with v_o: a last tile)
        self.ext = None          # constant extent, or None
        self.form_error = None   # why the min is not of a supported form

    @property
    def overlap(self):
        """The largest overlap between consecutive iterations: ``ext - floor(|c| / q)`` (for
        ``q = 1`` the overlap of every pair). A floordiv min advances by ``floor(c/q)`` or
        ``ceil(c/q)``, so with ``q > 1`` some pairs may overlap by less."""
        if self.var is None or self.ext is None or self.stride is None:
            return 0
        return self.ext - abs(self.coef) // self.div


class _Info:
    def __init__(self, buffer, dims, roll, hoist_loop, bounds):
        self.buffer = buffer
        self.dims = dims
        self.roll = roll                 # _Dim
        self.hoist_loop = hoist_loop     # For node to wrap
        self.bounds = bounds             # new realize bounds
        self.pred_dims = []              # dims that get the skip predicate
        self.loop_min = {}               # Var -> loop min expression
        self.loop_ext = {}               # Var -> loop extent expression


# --------------------------------------------------------------------------------------------
# the pass
# --------------------------------------------------------------------------------------------
class _Inject(Mutator):
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
        info = self._analyse(s)
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

    def _analyse(self, s):
        buf = s.buffer
        name = buf.name
        if buf in self.layout_buffers:
            raise TepadError(
                f"rolling_buffer: buffer {name} also has a transform_layout; a rolling buffer "
                "must keep its logical layout (transform other buffers, or drop "
                "rolling_buffer on this one)")
        loops = [n for n in self.stack if isinstance(n, For)]
        self._loops = loops
        loop_vars = [f.loop_var for f in loops]
        let_vars = {n.var for n in self.stack if isinstance(n, LetStmt)}
        ana = Analyzer()
        for f in loops:
            ana.bind(f.loop_var, Range.from_min_extent(f.min, f.extent))
        # The realize never moves above a parallel/vectorized loop (its iterations would share
        # one buffer): loops outside the innermost such loop act as parameters here.
        par = max((k + 1 for k, f in enumerate(loops) if f.kind not in _SEQUENTIAL), default=0)
        pos = {u: k for k, u in enumerate(loop_vars) if k >= par}
        dims = self._dims(s, pos, let_vars, ana)
        roll = self._pick(dims, loop_vars[par:])
        if roll is None:
            all_pos = {u: k for k, u in enumerate(loop_vars)}
            all_dims = self._dims(s, all_pos, let_vars, ana)
            cand = self._pick(all_dims, loop_vars)
            if cand is not None and all_pos[cand.var] < par:
                f = loops[par - 1]
                v = cand.var
                what = f"the rolling loop {v.name}" if f.loop_var is v else \
                    f"loop {f.loop_var.name}, between the rolling loop {v.name} and the " \
                    "attach point,"
                raise TepadError(
                    f"rolling_buffer: buffer {name}: {what} is {f.kind.value}; a rolling "
                    f"buffer reuses values from the previous iteration of {v.name}, so the "
                    f"loops from {v.name} down to the attach point must run in order (serial "
                    f"or unrolled); parallelize/vectorize a loop outside {v.name} (e.g. split "
                    f"{v.name} and parallelize the outer part) or inside the attach point")
            if _degenerate(all_dims, loops[par:]):
                return None
            raise TepadError(self._no_overlap_message(name, all_dims))
        v = roll.var
        if roll.stride < 0:
            raise TepadError(
                f"rolling_buffer: buffer {name} dim {roll.d} moves backwards along loop "
                f"{v.name} (stride {roll.stride}); a rolling buffer needs the region to advance "
                "with the loop (positive stride)")
        others = [x.d for x in dims if x is not roll and
                  (v in x.loop_vars or (roll.outer is not None and roll.outer in x.loop_vars))]
        if others:
            raise TepadError(
                f"rolling_buffer: buffer {name}: the rolling loop {v.name} moves dim {roll.d} "
                f"and also dim(s) {others}; a rolling loop must move exactly one dimension")
        # hoist above every (sequential) loop the region depends on
        hoist_pos = min(pos[u] for x in dims for u in x.loop_vars)
        hoist_loop = loops[hoist_pos]

        # new bounds: rolling dim folded, other dims = union over the loops they depend on
        inside = {f.loop_var: Range.from_min_extent(f.min, f.extent) for f in loops[hoist_pos:]}
        bounds = []
        for x in dims:
            if x is roll:
                bounds.append(Range(IntImm(0, x.min.dtype), IntImm(x.ext, x.extent.dtype)))
                continue
            bounds.append(self._union(x, buf, inside, ana))
        info = _Info(buf, dims, roll, hoist_loop, bounds)
        info.loop_min = {f.loop_var: f.min for f in loops}
        info.loop_ext = {f.loop_var: f.extent for f in loops}
        # predicated dims: a single loop var at/inside the rolling loop, used by this dim only
        for x in dims:
            if x.var is None or x.overlap <= 0 or x.stride <= 0 or pos[x.var] < pos[v]:
                continue
            if any(y is not x and x.var in y.loop_vars for y in dims):
                continue
            info.pred_dims.append(x)
        return info

    def _dims(self, s, pos, let_vars, ana):
        dims = []
        for d, rng in enumerate(s.bounds):
            dim = _Dim(d, rng)
            used = collect_vars(rng.min) | collect_vars(rng.extent)
            if used & let_vars:
                raise TepadError(
                    f"rolling_buffer: the region of buffer {s.buffer.name} (dim {d}: min "
                    f"{_fmt(rng.min)}) uses a let-bound variable; expected loop variables")
            dim.loop_vars = sorted((u for u in used if u in pos), key=pos.get)
            self._classify(dim, pos, ana)
            ext = ana.simplify(rng.extent)
            ext_loops = collect_vars(ext) & set(pos)
            if not ext_loops:
                dim.ext = _const(ext)
            elif dim.var is not None and ext_loops <= {dim.var, dim.outer}:
                # e.g. exact bounds: a smaller last tile; fold to the largest extent
                hi = ana.const_int_bound(ext).max_value
                dim.ext = hi if isinstance(hi, int) else None
            dims.append(dim)
        return dims

    @staticmethod
    def _pick(dims, loop_vars):
        """Outermost loop that is the single var of a dim with positive overlap."""
        for u in loop_vars:
            cands = [x for x in dims if x.var is u and x.overlap > 0]
            if cands:
                return cands[0]
        return None

    def _classify(self, dim, pos, ana):
        mn = ana.simplify(dim.min)
        div = 1
        body = mn
        if isinstance(mn, E.FloorDiv) and _const(mn.b) and _const(mn.b) > 0:
            div, body = _const(mn.b), mn.a
        lin = affine_terms(body)
        if lin is None:
            if dim.loop_vars:
                dim.form_error = (f"region min {_fmt(dim.min)} is not of the form v*c + k")
            return
        loop_terms = {u: c for u, c in lin[0].items() if u in pos}
        if not loop_terms:
            return
        if len(loop_terms) > 1:
            if not self._classify_composite(dim, loop_terms, pos, div, ana):
                dim.form_error = (
                    f"region min {_fmt(dim.min)} combines loops "
                    f"{', '.join(u.name for u in loop_terms)} (composite min; rollable only "
                    "as v_outer*c_outer + v_inner*c_inner with v_inner's loop directly inside "
                    "v_outer's, constant extent e, and c_outer >= (e - 1)*c_inner > 0)")
            return
        (u, c), = loop_terms.items()
        if collect_vars(dim.extent) & (set(pos) - {u}):
            dim.form_error = (f"region extent {_fmt(dim.extent)} changes with other loops")
            return
        dim.var = u
        dim.coef, dim.div = c, div
        dim.stride = int(math.copysign(math.ceil(abs(c) / div), c))

    def _classify_composite(self, dim, loop_terms, pos, div, ana) -> bool:
        """``v_o*c_o + v*c`` over two adjacent sequential loops (a split axis: y.outer*8 +
        y.inner) whose window never moves backwards: c_o >= (e - 1)*c, e the inner loop's
        constant extent. The region then slides along the loops' combined iteration order,
        so it rolls along the inner loop with the realize hoisted above the outer one."""
        if len(loop_terms) != 2 or div != 1:
            return False
        (uo, co), (ui, ci) = sorted(loop_terms.items(), key=lambda t: pos[t[0]])
        if pos[ui] != pos[uo] + 1 or not (isinstance(co, int) and isinstance(ci, int)):
            return False
        inner = self._loops[pos[ui]]
        # the inner loop's largest extent (exact bounds: a shorter last tile)
        e, lo = ana.const_int_bound(inner.extent).max_value, _const(inner.min)
        if not isinstance(e, int) or lo is None or ci <= 0 or co < (e - 1) * ci:
            return False
        if collect_vars(dim.extent) & (set(pos) - {ui, uo}):
            return False
        dim.var, dim.coef, dim.div, dim.stride = ui, ci, 1, ci
        dim.outer, dim.outer_coef, dim.inner_extent = uo, co, inner.extent
        return True

    def _union(self, x, buf, inside, ana):
        """Union of the dim's region over the loops inside the hoisted realize."""
        shape = buf.shape[x.d]
        full = Range(IntImm(0, shape.dtype), shape)
        if not (set(x.loop_vars) & set(inside)):
            return Range.from_min_extent(x.min, x.extent)
        dom = {u: r for u, r in inside.items()}
        lo_set = eval_set_with(ana, x.min, dom)
        hi_set = eval_set_with(ana, E.sub(E.add(x.min, x.extent), 1), dom)
        if not (lo_set.has_lower_bound() and hi_set.has_upper_bound()):
            return full
        lo, hi = ana.simplify(lo_set.min()), ana.simplify(hi_set.max())
        lo_c, hi_c, sh = _const(lo), _const(hi), _const(shape)
        if lo_c is None or hi_c is None:
            if collect_vars(lo) & set(inside) or collect_vars(hi) & set(inside):
                return full
            return Range.from_min_extent(lo, ana.simplify(E.add(E.sub(hi, lo), 1)))
        # stores outside the tensor are guarded by ScheduleOps: clip to the shape
        lo_c = max(lo_c, 0)
        if sh is not None:
            hi_c = min(hi_c, sh - 1)
        if hi_c < lo_c:
            return full
        return Range.from_min_extent(IntImm(lo_c, x.min.dtype),
                                      IntImm(hi_c - lo_c + 1, x.extent.dtype))

    def _no_overlap_message(self, name, dims):
        parts = []
        for x in dims:
            if x.var is not None:
                parts.append(f"dim {x.d}: min {_fmt(x.min)}, extent {_fmt(x.extent)} -> "
                             f"overlap {x.overlap} along {x.var.name}")
            elif x.form_error:
                parts.append(f"dim {x.d}: {x.form_error}")
            else:
                parts.append(f"dim {x.d}: extent {_fmt(x.extent)}, does not move")
        return (f"rolling_buffer: buffer {name} has no dimension whose region overlaps between "
                f"consecutive iterations of an enclosing loop ({'; '.join(parts)}); a rolling "
                "buffer needs a dimension with region min v*c + k and a constant extent larger "
                "than c (e.g. a 3x3 window consumed in tiles of 4 rows needs 6 rows per tile, "
                "overlap 2); compute the stage at a tiled loop of a consumer that reads "
                "overlapping windows, or drop rolling_buffer()")

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
