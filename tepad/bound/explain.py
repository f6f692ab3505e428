"""``explain(s)``: how much each stage computes and allocates, interval vs exact InferBound.

For every compute stage of (a normalized copy of) ``s``:

* **computed** -- number of executions of the stage's element computation over the whole run
  (for a reduction: the number of output elements initialized), counted with ISL over the full
  loop nest the generated code runs: the stage's loops with the BoundMap's ranges, guards and
  region predicates, inside every loop of its attach path, whose own ranges come from the
  enclosing stages the same way. Counted for the interval BoundMap and the exact one.
* **needed** -- size of the union of the points its consumers read when every consumer computes
  exactly what *it* needs (the whole output for outputs): the schedule-independent minimum.
* **bytes** -- buffer size: per dimension the largest realize extent over all executed
  iterations of the attach path, times the element size (and the number of outputs).

A ``rolling_buffer`` stage computes each element once along its rolling loops: an element its
window held in an earlier iteration of the loops that move that dimension is skipped (the
guards ``inject_rolling_buffer`` adds), and ``computed`` counts what remains. Its buffer holds
the folded rolling dimension (one window) and, for every other dimension that moves with a
loop, the union of its windows over those loops.

Counting needs concrete shapes: pass ``shape_env={var: int}`` for symbolic shape vars.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .._lazy import lazy_module
from ..arith.isl_bridge import (NotAffine, dim_type as dt, isl, params_set, params_to_dims,
                                project_params_except)
from ..errors import TepadError
from ..schedule.stage import AttachType
from ..tensor.tensor import PlaceholderOp
from ..tensor.tensor_intrin import TensorComputeOp
from ..tir import dtype as tdt
from ..tir.functor import collect_vars
from ..tir.itervar import IterVarType
from .attach_path import attach_path
from .infer_bound import infer_bound
from .interval import BoundContext
from .scan_bound import has_scan

_exact = lazy_module("tepad.bound.exact")   # the ISL bounds: loaded by the first explain


@dataclass
class StageExplain:
    name: str
    is_output: bool
    computed_interval: int | None
    computed_exact: int | None
    needed: int | None
    bytes_interval: int | None
    bytes_exact: int | None
    predicated: bool = False
    notes: list = field(default_factory=list)

    @property
    def overcompute_interval(self):
        return _ratio(self.computed_interval, self.needed)

    @property
    def overcompute_exact(self):
        return _ratio(self.computed_exact, self.needed)


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def _fmt(x, ratio=False):
    if x is None:
        return "n/a"
    return f"{x:.2f}" if ratio else str(x)


class BoundExplain:
    """Per-stage report (``.stages``, also indexable by stage name); ``str()`` is a table."""

    COLUMNS = ["stage", "needed", "computed (interval)", "computed (exact)",
               "ratio (interval)", "ratio (exact)", "bytes (interval)", "bytes (exact)",
               "exact predicate"]

    def __init__(self, stages, fallbacks):
        self.stages = stages
        self.fallbacks = fallbacks

    def __getitem__(self, name):
        for st in self.stages:
            if st.name == name:
                return st
        raise KeyError(name)

    def rows(self):
        return [[s.name + (" (output)" if s.is_output else ""), _fmt(s.needed),
                 _fmt(s.computed_interval), _fmt(s.computed_exact),
                 _fmt(s.overcompute_interval, True), _fmt(s.overcompute_exact, True),
                 _fmt(s.bytes_interval), _fmt(s.bytes_exact), "yes" if s.predicated else ""]
                for s in self.stages]

    def total(self, attr):
        vals = [getattr(s, attr) for s in self.stages]
        return None if any(v is None for v in vals) else sum(vals)

    def __str__(self):
        rows = [self.COLUMNS] + self.rows()
        w = [max(len(r[k]) for r in rows) for k in range(len(self.COLUMNS))]
        lines = ["  ".join(c.ljust(w[k]) for k, c in enumerate(r)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * x for x in w))
        for f in self.fallbacks:
            lines.append(f"fallback: {f!r}")
        for s in self.stages:
            for n in s.notes:
                lines.append(f"note: {s.name}: {n}")
        return "\n".join(lines)

    def to_markdown(self):
        out = ["| " + " | ".join(self.COLUMNS) + " |",
               "|" + "|".join("---" for _ in self.COLUMNS) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in self.rows()]
        return "\n".join(out)

    __repr__ = __str__


# ---------------------------------------------------------------------------------------------

def _compute_stages(s):
    return [st for st in s.stages if not isinstance(st.op, PlaceholderOp)
            and st.attach_type != AttachType.InlinedAlready]


def _ancestors(st):
    out, x = [st], st
    while x.attach_type == AttachType.Scope:
        x = x.attach_stage
        out.append(x)
    return out


def executed_set(ex: _exact.Exact, st) -> isl.Set:
    """Parameter-only set of (attach-path loop values, data root values) the code executes."""
    dom = None
    for x in _ancestors(st):
        o = ex.own(x, loops_only=x is not st)
        dom = o if dom is None else dom & o
    keep = {ex.names.name(iv.var) for iv in attach_path(st)} | \
        {ex.names.name(iv.var) for iv in st.op.axis} | _private_threads(ex, st)
    return project_params_except(dom, keep).coalesce()


def _private_threads(ex: _exact.Exact, st) -> set:
    """ISL names of the thread variables ``st``'s storage is private to (the threads that
    each compute their own copy: ``threadIdx`` for a ``local`` stage, ``blockIdx`` for a
    ``shared`` one), so each copy counts."""
    if not ex.bind:
        return set()
    ctx = BoundContext(ex.s)
    rank = ctx.storage_rank(st)
    return {ex.names.name(b.var) for iv, b in ex.bind.items()
            if not ctx.need_relax(iv, True, rank)}


def _moving_dims(ex: _exact.Exact, st, bm) -> list:
    """For a rolling_buffer stage: ``[(data var name, [path loop names, outer first])]`` for
    every dimension whose window moves with loops of the attach path, as inject_rolling_buffer
    sees them: only sequential loops inside the innermost parallel/vectorized one count (the
    buffer is private to each iteration of those), and a loop that moves two dimensions
    guards neither."""
    path = list(reversed(attach_path(st)))            # outer first
    kinds = {}
    for x in _ancestors(st)[1:]:
        for iv in x.leaf_iter_vars:
            kinds[iv] = x.leaf_kind(iv)
    par = max((k + 1 for k, iv in enumerate(path)
               if kinds.get(iv) in (IterVarType.Parallelized, IterVarType.Vectorized)),
              default=0)
    order = {iv.var: k for k, iv in enumerate(path) if k >= par}
    dims = []
    for iv in st.op.axis:
        used = sorted((v for v in collect_vars(bm[iv].min) if v in order), key=order.get)
        dims.append((iv, used))
    out = []
    for iv, used in dims:
        if not used or any(o is not iv and set(u) & set(used) for o, u in dims):
            continue
        out.append((ex.names.name(iv.var), [ex.names.name(v) for v in used]))
    return out


def _rolled_away(executed: isl.Set, dims, path) -> isl.Set:
    """The points of ``executed`` a rolling buffer skips: along each moving dimension, a
    coordinate that an earlier iteration of the loops moving it, the other loops of the
    attach path (``path``: their names) being the same, already computed. (Windows advance,
    so "any earlier iteration" is the previous one, as the pass's guard says.)"""
    skip = None
    for d, loops in dims:
        keep = set(path) | {d}
        own = project_params_except(executed, keep)
        for v in loops:
            own = own.set_dim_name(dt.param, own.find_dim_by_name(dt.param, v), v + "__prev")
        earlier = []
        for k, v in enumerate(loops):
            eq = [f"{u}__prev = {u}" for u in loops[:k]]
            earlier.append("(" + " and ".join(eq + [f"{v}__prev < {v}"]) + ")")
        lex = params_set([" or ".join(earlier)], set(loops) | {v + "__prev" for v in loops})
        hit = project_params_except(own & lex, keep)
        skip = hit if skip is None else skip | hit
    return executed & skip if skip is not None else executed.subtract(executed)


def _rolling_bytes(ex: _exact.Exact, st, bm, executed: isl.Set, dims) -> int:
    """Bytes of a rolling buffer as inject_rolling_buffer allocates it: the realize hoisted
    above the outermost loop moving a dimension; the dimension of that loop folded to its
    largest window; every other moving dimension the span of its windows over the loops
    inside the hoisted realize (per iteration of the loops outside it); still dimensions their
    largest window."""
    path = [ex.names.name(iv.var) for iv in reversed(attach_path(st))]     # outer first
    first = min((path.index(loops[0]), d) for d, loops in dims)
    hoist, rolled = first
    outer = set(path[:hoist])
    moving = {d for d, _ in dims}
    pathset = project_params_except(executed, set(path)) if path else isl.Set("{ : }")
    n = 1
    for iv in st.op.axis:
        d = ex.names.name(iv.var)
        if d in moving and d != rolled:
            span = project_params_except(executed, outer | {d})
            span = span.move_dims(dt.set, 0, dt.param, span.find_dim_by_name(dt.param, d), 1)
            v = span.dim_max(0).sub(span.dim_min(0)).max_val()
            if not v.is_int():
                raise NotAffine("unbounded rolling-buffer span")
            n *= v.to_python() + 1
        else:
            n *= _path_max(ex, pathset, bm[iv].extent)
    per = tdt.parse(st.op.output(0).dtype).bytes * tdt.lanes(st.op.output(0).dtype)
    return n * per * st.op.num_outputs


def _count(pset: isl.Set, what: str) -> int:
    free = pset.dim(dt.param)
    s = params_to_dims(pset)
    if not s.is_bounded():
        raise NotAffine(f"{what}: unbounded set (symbolic shape without shape_env?)")
    n = s.count_val().to_python()
    if free == 0 and n == 0 and not pset.is_empty():
        n = 1
    return n


def _path_max(ex: _exact.Exact, pathset: isl.Set, e) -> int:
    """Largest value of ``e`` (an extent) over the attach-path points in ``pathset``."""
    c = ex.conv()
    body = c.wrap(f"ext_val = {c.expr(e)}")
    st = isl.Set(f"[{', '.join(sorted(c.used))}] -> {{ [ext_val] : {body} }}")
    st = params_to_dims(st.intersect_params(pathset))
    if st.is_empty():
        return 0
    v = st.dim_max_val(st.dim(dt.set) - 1)
    if not v.is_int():
        raise NotAffine("unbounded extent")
    return max(v.to_python(), 0)


def _bytes(ex: _exact.Exact, st, rmap) -> int:
    path = attach_path(st)
    keep = {ex.names.name(iv.var) for iv in path}
    pathset = project_params_except(executed_set(ex, st), keep) if path else \
        isl.Set("{ : }")
    n = 1
    for iv in st.op.axis:
        n *= _path_max(ex, pathset, rmap[iv].extent)
    per = tdt.parse(st.op.output(0).dtype).bytes * tdt.lanes(st.op.output(0).dtype)
    return n * per * st.op.num_outputs


def _needed(ex: _exact.Exact, s, stages, notes):
    """Schedule-independent needed sets: stage -> set ``{ [data roots] }`` (no params)."""
    feed = BoundContext(s).feed
    need = {}
    for st in reversed(stages):
        op = st.op
        onames = [ex.names.name(iv.var) for iv in op.axis]
        c = ex.conv()
        if st.is_output:
            cons = []
            for k, iv in enumerate(op.axis):
                lo = c.expr(iv.dom.min)
                cons.append(c.wrap(f"{lo} <= {onames[k]} < {lo} + {c.expr(iv.dom.extent)}"))
            need[st] = isl.Set(f"{{ [{', '.join(onames)}] : {' and '.join(cons) or 'true'} }}")
            continue
        outs = {op.output(k) for k in range(op.num_outputs)}
        consumers = []
        for t in outs:
            for cs in feed.get(t, []):
                if cs not in consumers:
                    consumers.append(cs)
        region = isl.Set(f"{{ [{', '.join(onames)}] : false }}")
        for cs in consumers:
            cn = need.get(cs)
            if cn is None:
                continue
            cnames = [ex.names.name(iv.var) for iv in cs.op.axis]
            cp = cn.move_dims(dt.param, 0, dt.set, 0, len(cnames))
            for k, n in enumerate(cnames):
                cp = cp.set_dim_name(dt.param, k, n)
            cp = cp.params()
            rc, ru = [], set()
            for iv in cs.op.reduce_axis:
                cc = ex.conv()
                lo = cc.expr(iv.dom.min)
                rc.append(cc.wrap(f"{lo} <= {cc.expr(iv.var)} < {lo} + {cc.expr(iv.dom.extent)}"))
                ru |= cc.used
            dom = cp & params_set(rc, ru) if rc else cp
            pieces, used = [], set()
            for ld in _exact.loads_of(cs.op, outs):
                cons = []
                for k, idx in enumerate(ld.indices):
                    cc = ex.conv()
                    try:
                        cons.append(cc.wrap(f"{onames[k]} = {cc.expr(idx)}"))
                        used |= cc.used
                    except NotAffine:
                        notes.setdefault(st.name, []).append(
                            f"needed: index {idx!r} of {cs.name} not affine, whole dim counted")
                        cc = ex.conv()
                        cons.append(cc.wrap(f"0 <= {onames[k]} < {cc.expr(op.output(0).shape[k])}"))
                        used |= cc.used
                pieces.append("(" + (" and ".join(cons) or "true") + ")")
            if not pieces:
                continue
            acc = isl.Set(f"[{', '.join(sorted(used))}] -> {{ [{', '.join(onames)}] : "
                          f"{' or '.join(pieces)} }}")
            img = project_params_except(acc.intersect_params(dom), set()).coalesce()
            region = (region | img).coalesce()
        need[st] = region
    return need


def explain(s, shape_env=None) -> BoundExplain:
    """Per-stage elements computed vs needed and buffer bytes, interval vs exact InferBound."""
    for st in s.stages:
        if isinstance(st.op, TensorComputeOp):
            raise TepadError(f"explain: stage {st.name} calls the tensor intrinsic "
                             f"{st.op.intrin.name}; counting elements needs scalar computes "
                             "(te.compute bodies)")
    s2 = s.copy().normalize()
    if has_scan(s2):
        raise TepadError("explain: the schedule has a te.scan, whose element counts exact mode "
                         "does not model (its state is one buffer for init, update and the "
                         "state placeholder); `tepad bounds` still shows its interval ranges")
    env = dict(shape_env or {})
    stages = _compute_stages(s2)
    bm_i = infer_bound(s2)
    bm_e = infer_bound(s2, exact=True)
    names = _exact.Names()
    ex_i = _exact.Exact(s2, bm_i, names, env)
    ex_e = _exact.Exact(s2, bm_e, names, env)
    missing = ex_e.shape_vars - {names.name(v) for v in env}
    if missing:
        raise TepadError("explain: the schedule has symbolic shapes "
                         f"({', '.join(sorted(names.vars[n].name for n in missing))}); "
                         "pass shape_env={var: int} to count elements")
    notes = {}
    try:
        need = _needed(ex_e, s2, stages, notes)
    except (NotAffine, isl.Error) as e:
        need = {}
        notes.setdefault("*", []).append(f"needed sets failed: {e}")
    out = []
    for st in stages:
        vals = {}
        for mode, ex, bm in (("interval", ex_i, bm_i), ("exact", ex_e, bm_e)):
            dims = []
            try:
                done = executed_set(ex, st)
                if st.is_rolling:
                    dims = _moving_dims(ex, st, bm)
                    path = [ex.names.name(iv.var) for iv in attach_path(st)]
                    done = done.subtract(_rolled_away(done, dims, path))
                vals["computed_" + mode] = _count(done, st.name)
            except (NotAffine, isl.Error) as e:
                vals["computed_" + mode] = None
                notes.setdefault(st.name, []).append(f"computed ({mode}): {e}")
            try:
                vals["bytes_" + mode] = _rolling_bytes(ex, st, bm, executed_set(ex, st), dims) \
                    if dims else _bytes(ex, st, bm)
            except (NotAffine, isl.Error) as e:
                vals["bytes_" + mode] = None
                notes.setdefault(st.name, []).append(f"bytes ({mode}): {e}")
        n = None
        if st in need:
            try:
                n = _count(need[st], st.name)
            except (NotAffine, isl.Error) as e:
                notes.setdefault(st.name, []).append(f"needed: {e}")
        out.append(StageExplain(st.name, st.is_output, vals["computed_interval"],
                                vals["computed_exact"], n, vals["bytes_interval"],
                                vals["bytes_exact"], st.op in bm_e.predicates,
                                notes.get(st.name, [])))
    return BoundExplain(out, list(getattr(bm_e, "exact_fallbacks", [])))


__all__ = ["explain", "BoundExplain", "StageExplain", "executed_set"]
