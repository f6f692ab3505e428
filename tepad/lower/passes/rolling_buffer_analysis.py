"""InjectRollingBuffer, the analysis: which dimension of a ``rolling_buffer`` realize rolls
along which loop, where the realize is hoisted, its new bounds and which dimensions get the
skip guard (steps 0-3 of ``inject_rolling_buffer``'s algorithm; the rewrite is there)."""
from __future__ import annotations

import math

from ...arith import Analyzer
from ...arith.affine import affine_terms
from ...arith.int_set import eval_set_with
from ...errors import TepadError
from ...tir import expr as E
from ...tir import op as tirop
from ...tir.expr import IntImm, Range
from ...tir.functor import collect_vars
from ...tir.stmt import For, ForKind, LetStmt

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
# the analysis of one realize
# --------------------------------------------------------------------------------------------
class RealizeAnalysis:
    """The analysis of a ``rolling_buffer`` realize ``s`` met under ``stack`` (the enclosing
    For / LetStmt nodes, outermost first): ``analyse(s)`` gives its ``_Info``, None when
    rolling would change nothing, or raises TepadError saying why it cannot roll."""

    def __init__(self, stack, layout_buffers):
        self.stack = stack
        self.layout_buffers = layout_buffers
        self._loops = []

    def analyse(self, s):
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


def analyse_realize(s, stack, layout_buffers):
    """``RealizeAnalysis(stack, layout_buffers).analyse(s)``."""
    return RealizeAnalysis(stack, layout_buffers).analyse(s)


__all__ = ["RealizeAnalysis", "analyse_realize"]
