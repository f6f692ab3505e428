"""Interval InferBound (TVM's algorithm) and the ``BoundMap`` both bound modes fill.

Exact mode (``tepad.bound.exact``) reuses the pieces here: the schedule facts
(``BoundContext``), one consumer's interval request (``consumer_request``, its per-dimension
fallback), whole-stage interval bounds (``infer_root_bound``) and ``finalize_ranges``.

One pass over the stages from outputs to inputs. For each stage, InferRootBound (phases 1-4)
computes the ranges of its root IterVars from what its consumers need, then PassDownDomain
derives the ranges of split/fused/rebased IterVars.

Phase 1: an IntSet per consumer leaf -- a single point for loops the producer sits inside
(its attach path), the whole range for loops inside the attach point (relaxed).
Phase 2: PassUpDomain turns the leaf sets into sets of the consumer's root IterVars, relaxed
over the consumer's own enclosing loops that the producer is not inside.
Phase 3: PropBoundToInputs evaluates every access of the producer in the consumer's body.
Phase 4: GatherBound unions the requests per dimension into the producer's root ranges.
"""
from __future__ import annotations

from ..arith import Analyzer, IntSet, union
from ..arith.int_set import union_with
from ..errors import TepadError
from ..schedule.stage import AttachType
from ..tensor.extern import ExternOp
from ..tensor.scan import ScanOp
from ..tensor.tensor import PlaceholderOp
from ..arith.const_bound import is_inf
from ..tir.expr import Add, Div, FloorDiv, FloorMod, IntImm, Mod, Max, Min, ProducerLoad, Range, Sub, Var, cast
from ..tir.op import all as all_expr, max as max_expr, min as min_expr
from ..tir.functor import collect_vars, post_order_visit, substitute
from ..tir.storage_scope import storage_rank as scope_rank_name
from .attach_path import attach_path
from .message_passing import bind_thread_ranges, pass_down_domain, pass_up_domain
from .offset_lets import closed_stages, name_root_offsets
from .scan_bound import scan_gather_bound, scan_prop_bound_to_inputs
from .tensor_compute import prop_region_bounds
from ..tensor.tensor_intrin import TensorComputeOp


class BoundMap(dict):
    """``{IterVar: tir.Range}`` for every IterVar of every stage.

    Extra facts lowering honours (filled by exact mode):
    ``predicates[op]`` -- conditions over ``op``'s root axis vars (and enclosing loop vars) that
    hold exactly at the points that must be computed; ScheduleOps guards the stage's stores with
    them. ``exact_tails`` -- when True, the inner loop of a split that does not divide runs
    ``min(factor, extent - outer*factor)`` iterations instead of a guarded full tile.
    ``local_layouts[rel]`` -- for a layout Transform of a stage computed at an inner loop of
    its consumer, the map's inverse on the realized region (loops over that region's layout).
    ``offset_lets[op]`` -- ``[(Var, value)]``: with ``offset_lets=True`` (lowering), root mins
    of deep stages named by let variables (``tepad.bound.offset_lets``).
    """

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.predicates: dict = {}
        self.exact_tails = False
        # layout Transform -> its inverse on the local region of a stage computed at an inner
        # loop of its consumer (see message_passing._local_layout)
        self.local_layouts: dict = {}
        # op -> [(Var, value)]: root mins named by let variables (``offset_lets``), which
        # ScheduleOps binds around the stage's realize; empty unless asked for
        self.offset_lets: dict = {}

    def __repr__(self):
        return "BoundMap({" + ", ".join(f"{k.name}: {v!r}" for k, v in self.items()) + "})"


# Storage and thread ranks for NeedRelax (TVM's thread_storage_scope.h): a storage of rank r
# is shared by all threads of a thread rank below r ("shared", rank 1, by the threads of a
# block; "local", rank 3, by no one), so its region covers every value of such a thread index.
_STORAGE_RANK = {"global": 0, "": 0, "shared": 1, "warp": 2, "local": 3}


def storage_rank(scope: str) -> int:
    """TVM's StorageRank of a storage scope: global 0, shared 1, warp 2, local 3; a tagged
    scope ranks as its rank (``"shared.dyn"`` 1), a tensor-core fragment as local
    (``tir.storage_scope``)."""
    return _STORAGE_RANK.get(scope_rank_name(scope), 0)


def thread_rank(tag: str) -> int:
    """TVM's ThreadScope rank of a thread tag: ``blockIdx.*`` 0; ``threadIdx.*``, ``vthread``
    and ``cthread`` 1."""
    if tag.startswith("blockIdx"):
        return 0
    return 1


class BoundContext:
    """Schedule facts InferBound needs: attach paths, thread bindings, the feed graph."""

    def __init__(self, s):
        self.s = s
        self.paths = {id(st): attach_path(st) for st in s.stages}
        self.bind_map = {}
        for st in s.stages:
            for iv, attr in st.iter_var_attrs.items():
                if attr.bind_thread is not None:
                    self.bind_map[iv] = attr.bind_thread
        # feed graph: current output tensor -> consumer stages
        self.feed = {}
        for st in s.stages:
            if st.attach_type == AttachType.InlinedAlready:
                continue
            for t in st.op.input_tensors:
                self.feed.setdefault(t, []).append(st)

    def thread_tag(self, iv):
        b = self.bind_map.get(iv)
        return b.thread_tag if b is not None else iv.thread_tag

    def need_relax(self, iv, found_attach, scope_rank):
        """TVM's NeedRelax: whether a stage of storage rank ``scope_rank`` must cover every
        value of loop ``iv`` of a consumer (``found_attach``: ``iv`` encloses the stage). An
        unbound loop is relaxed unless it encloses the stage; a thread loop by its tag alone:
        when the storage is shared by the threads of that rank (``shared`` and
        ``threadIdx``, ``global`` and anything), and ``threadIdx.x`` for ``warp`` storage."""
        tag = self.thread_tag(iv)
        if tag in ("", "pipeline"):
            return not found_attach
        if scope_rank == _STORAGE_RANK["warp"] and tag == "threadIdx.x":
            return True
        return scope_rank <= thread_rank(tag)

    def storage_rank(self, st):
        """TVM's InferStorageScope: the rank of ``st``'s scope, or without one, global at the
        root, shared under only block loops, local under a thread loop."""
        if st.scope:
            return storage_rank(st.scope)
        ranks = [thread_rank(self.thread_tag(iv)) for iv in self.paths[id(st)]
                 if self.thread_tag(iv) not in ("", "pipeline")]
        if not ranks:
            return 0
        return 1 if max(ranks) == 0 else 3


def consumer_request(ctx, stage, consumer, rmap, ana, tmap, offsets_out=None):
    """Phases 1-3 for one consumer: append its requests on ``stage``'s outputs to ``tmap``.

    With ``offsets_out`` (a dict), requests over tile offsets (``_tile_offsets``) keep the
    offset Vars, which are added to it (``{Var: (expression, Range)}``); the caller puts the
    expressions back."""
    if isinstance(consumer.op, ExternOp):
        whole_tensor_request(consumer.op, tmap)
        return
    apath = ctx.paths[id(stage)]
    scope_rank = ctx.storage_rank(stage)
    found = False
    up = {}
    for iv in reversed(consumer.leaf_iter_vars):
        if apath and iv is apath[0]:
            found = True
        r = rmap[iv]
        if isinstance(r.extent, IntImm) and r.extent.value == 1:
            up[iv] = IntSet.single_point(r.min)
        elif not ctx.need_relax(iv, found, scope_rank):
            b = ctx.bind_map.get(iv)
            up[iv] = IntSet.single_point(b.var if b is not None else iv.var)
        else:
            up[iv] = IntSet.from_range(r)
    relaxed = []
    for iv in ctx.paths[id(consumer)]:
        if apath and iv is apath[0]:
            found = True
        if ctx.need_relax(iv, found, scope_rank):
            relaxed.append(iv)
    # outermost first: a loop's range may mention loops further out (a stage attached inside
    # a stage whose region depends on the outer loops), which must be relaxed inside it too
    relax = {}
    for iv in reversed(relaxed):
        r = rmap[iv]
        rs = IntSet.from_range(r)
        if relax and collect_vars(r.min + r.extent) & relax.keys():
            rs = IntSet.interval(ana.int_set(r.min, relax).min(),
                                 ana.int_set(r.min + r.extent - 1, relax).max())
        relax[iv.var] = rs
        b = ctx.bind_map.get(iv)
        if b is not None:
            relax[b.var] = rs
    if apath and not found:
        raise TepadError(
            f"invalid schedule: stage {stage.name} is computed at "
            f"{stage.attach_stage.name}.{stage.attach_ivar.name}, but its consumer "
            f"{consumer.name} is not inside that loop; compute {stage.name} at a loop that "
            f"encloses every consumer (or at root)")
    pass_up_domain(consumer, rmap, up, ana)
    roots = {iv: up[iv].cover_range(iv.dom) if iv in up else iv.dom
             for iv in consumer.op.root_iter_vars}
    if ctx.bind_map:
        _relax_free_threads(ctx, roots.values(), scope_rank, rmap, relax)
    dom = {}
    for iv in consumer.op.root_iter_vars:
        r = roots[iv]
        if relax:
            lo = ana.int_set(r.min, relax).min()
            hi = ana.int_set(r.min + r.extent - 1, relax).max()
            dom[iv.var] = IntSet.interval(lo, hi)
        else:
            dom[iv.var] = IntSet.from_range(r)
    if isinstance(consumer.op, ScanOp):
        scan_prop_bound_to_inputs(consumer.op, dom, tmap, rmap)
        return
    if isinstance(consumer.op, TensorComputeOp):
        prop_region_bounds(consumer.op, ana, dom, tmap)
        return
    offsets = _tile_offsets(ctx, apath, dom, ana) \
        if not consumer.is_rolling and not _reads_through_divmod(consumer.op, tmap) else {}
    if not offsets:
        _compute_request(consumer, dom, ana, tmap)
        return
    # the request over offset + tile (see _tile_offsets), the offsets put back afterwards
    local = {t: [[] for _ in dims] for t, dims in tmap.items()}
    with ana.bind_scope_many({t: rng for t, (_, rng) in offsets.items()}):
        _compute_request(consumer, dom, ana, local)
    if offsets_out is not None:
        offsets_out.update(offsets)
        for t, dims in local.items():
            for k, sets in enumerate(dims):
                tmap[t][k].extend(sets)
        return
    back = {t: e for t, (e, _) in offsets.items()}
    for t, dims in local.items():
        for k, sets in enumerate(dims):
            tmap[t][k].extend(_put_back(s, back, ana) for s in sets)


def _compute_request(consumer, dom, ana, tmap):
    """Phase 3 for a compute consumer whose root vars range over ``dom``."""
    facts = [] if consumer.is_rolling or not _clamped_reads(consumer.op, tmap) else \
        _inside_domain(consumer, dom, ana)
    if not facts:
        _prop_bound_to_inputs(consumer.op, ana, dom, tmap)
        return
    # the requests hold where the consumer runs: inside its tensor's domain
    local = {t: [[] for _ in dims] for t, dims in tmap.items()}
    with ana.constraint_scope(all_expr(*facts)):
        _prop_bound_to_inputs(consumer.op, ana, dom, local)
        merged = {t: [union_with(ana, sets) if len(sets) > 1 else sets for sets in dims]
                  for t, dims in local.items()}
    for t, dims in merged.items():
        for k, sets in enumerate(dims):
            if isinstance(sets, list):
                tmap[t][k].extend(sets)
            else:
                tmap[t][k].append(sets)


def _relax_free_threads(ctx, ranges, scope_rank, rmap, relax):
    """Add to ``relax`` the thread variables the stage is relaxed over that the consumer's
    ranges use although no loop of the consumer binds them: a consumer whose own region is
    per thread (a ``local`` stage at a block loop starts at ``threadIdx_x``). TVM relaxes
    only the consumer's loops and leaves such a variable free, which gives a ``shared``
    producer a per-thread region that the threads of a block overwrite in each other's
    place; exact mode projects it out, and so does this (over the thread's range)."""
    used = set()
    for r in ranges:
        used |= collect_vars(r.min + r.extent)
    for iv, b in ctx.bind_map.items():
        if b.var in used and b.var not in relax and b in rmap and \
                ctx.need_relax(iv, True, scope_rank):
            relax[b.var] = IntSet.from_range(rmap[b])


#: from this attach depth on (loops enclosing the producer), a consumer's root ranges are
#: handed to the request as offset + tile (``_tile_offsets``), as exact mode abbreviates them
ABSTRACT_DEPTH = 3


_DIVMOD = (FloorDiv, FloorMod, Div, Mod)


def _reads_through_divmod(op, tensors) -> bool:
    """Whether ``op`` reads one of ``tensors`` at an index with a division or modulo. The
    interval of ``(m + i) % c`` is exact only while ``m`` keeps the terms that show the range
    stays within one period (``(128*a + 32*b + i) % 128`` over ``i < 32``, ``b < 4``), so such
    requests are not abstracted over a tile offset (``_tile_offsets``)."""
    found = []

    def visit(n):
        if found or not isinstance(n, ProducerLoad) or n.producer not in tensors:
            return
        for idx in n.indices:
            post_order_visit(idx, lambda x: found.append(1) if isinstance(x, _DIVMOD) else None)

    for b in getattr(op, "body", ()):
        post_order_visit(b, visit)
    return bool(found)


def _tile_offsets(ctx, apath, dom, ana):
    """``{offset Var: (expression, Range)}``; ``dom`` rewritten in place over the offsets.

    A producer attached deep inside other stages sees its consumer's root ranges as
    ``[m + a, m + b]`` where ``m`` sums a term per enclosing tile loop (``32*io + 32*io_1 + ...``):
    one value per iteration of the producer's attach path, growing with the depth. Every
    simplification and proof of the request would walk it again, level after level (the
    request cost grew with the square of the depth). Here ``m`` becomes one fresh variable
    ``t`` (the tile's offset, in ``m``'s constant range) and the consumer's range the tile
    ``[t + a, t + b]``; the requests are evaluated over it and ``t := m`` is put back. Only
    for ranges whose ``m`` has two or more terms over the attach path's loop vars."""
    if len(apath) < ABSTRACT_DEPTH:
        return {}
    outer = set()
    for iv in apath:
        outer.add(iv.var)
        b = ctx.bind_map.get(iv)
        if b is not None:
            outer.add(b.var)
    offsets = {}
    for v, st in list(dom.items()):
        if not (st.has_lower_bound() and st.has_upper_bound()):
            continue
        terms = [(sign, x) for sign, x in _summands(st.min(), 1)
                 if not isinstance(x, IntImm) and collect_vars(x) <= outer]
        if len(terms) < 2:
            continue
        m = terms[0][1] if terms[0][0] > 0 else -terms[0][1]
        for sign, x in terms[1:]:
            m = m + x if sign > 0 else m - x
        lo, hi = ana.simplify(st.min() - m), ana.simplify(st.max() - m)
        if (collect_vars(lo) | collect_vars(hi)) & outer:
            continue
        b = ana.const_int_bound(m)
        if not (isinstance(b.min_value, int) and isinstance(b.max_value, int)):
            continue
        t = Var(f"{v.name}.offset", m.dtype)
        offsets[t] = (m, Range.from_min_extent(IntImm(b.min_value, m.dtype),
                                               IntImm(b.max_value - b.min_value + 1, m.dtype)))
        dom[v] = IntSet.interval(ana.simplify(t + lo), ana.simplify(t + hi))
    return offsets


def _summands(e, sign):
    """``[(sign, term)]`` with ``e == sum(sign * term)`` over its top-level ``+``/``-``."""
    if isinstance(e, Add):
        return _summands(e.a, sign) + _summands(e.b, sign)
    if isinstance(e, Sub):
        return _summands(e.a, sign) + _summands(e.b, -sign)
    return [(sign, e)]


def _put_back(st, back, ana):
    """The IntSet ``st`` with the tile offsets replaced by their expressions."""
    def sub(x):
        if is_inf(x) or not (collect_vars(x) & back.keys()):
            return x
        return ana.simplify(substitute(x, back))
    if st.is_single_point():
        p = sub(st.min())
        return IntSet.single_point(p)
    return IntSet.interval(sub(st.min()), sub(st.max()))


def whole_tensor_request(op, tmap):
    """An extern op reads each of its inputs whole: the full range of every dimension."""
    for t in op.input_tensors:
        if t in tmap:
            for k, d in enumerate(t.shape):
                tmap[t][k].append(IntSet.interval(IntImm(0, d.dtype), d - 1))


def _clamped_reads(op, tmap):
    """Whether some read of a tensor of ``tmap`` in ``op`` has a min/max in an index (the
    only reads whose requests the domain facts below can simplify)."""
    found = []

    def visit(n):
        if found or not isinstance(n, ProducerLoad) or n.producer not in tmap:
            return
        for idx in n.indices:
            post_order_visit(idx, lambda x: found.append(x) if isinstance(x, (Min, Max))
                             else None)

    for b in op.body:
        post_order_visit(b, visit)
    return bool(found)


def _inside_domain(consumer, dom, ana):
    """Where the consumer's root values may leave its tensor's domain, ScheduleOps guards its
    body (``make_bound_check``): it reads only at points inside the domain. The conditions are
    returned, to be assumed while the reads are evaluated: a single point lies inside the
    domain, a range meets it.

    Without this, a stage whose region passes the end of its tensor (a constant-extent region,
    or a tile that does not divide) asks its producers for rows past the end, clamped reads
    make that ``min(y + 1, 255)``, and every level of a chain adds a min/max to the bounds."""
    facts = []
    for iv in consumer.op.axis:
        s = dom.get(iv.var)
        if s is None or not (s.has_lower_bound() and s.has_upper_bound()):
            continue
        d = iv.dom
        dmin = d.min
        dmax = ana.simplify(d.min + d.extent - 1)
        if s.is_single_point():
            p = s.min()
            if not ana.can_prove(p >= dmin):
                facts.append(p >= dmin)
            if not ana.can_prove(p <= dmax):
                facts.append(p <= dmax)
            continue
        # a range is kept as it is (intersecting it with the domain would turn constant
        # extents into formulas); it reads only where it meets the domain, and where it does
        # not, nothing is read and any region will do
        lo, hi = s.min(), s.max()
        if not ana.can_prove(lo <= dmax):
            facts.append(lo <= dmax)
        if not ana.can_prove(hi >= dmin):
            facts.append(hi >= dmin)
    return facts


def _prop_bound_to_inputs(op, ana, dom, tmap):
    """Phase 3: the IntSet of every index of every access to a tensor in ``tmap``."""

    def visit(n):
        if not isinstance(n, ProducerLoad) or n.producer not in tmap:
            return
        t = n.producer
        for k, idx in enumerate(n.indices):
            s = ana.int_set(idx, dom)
            shape = t.shape[k]
            if not s.is_single_point():
                whole = s.is_everything() or (
                    s.has_lower_bound() and s.has_upper_bound() and
                    ana.can_prove(s.min() <= 0) and ana.can_prove(s.max() >= shape - 1))
                if whole:
                    s = IntSet.interval(IntImm(0, shape.dtype), shape - 1)
            tmap[t][k].append(s)

    for b in op.body:
        post_order_visit(b, visit)


def _gather_bound(stage, tmap, rmap, ana):
    """Phase 4: per-dimension union of the requests; reduce axes keep their domain."""
    op = stage.op
    for k, iv in enumerate(op.axis):
        sets = [s for t in tmap for s in tmap[t][k]]
        if not sets:
            rmap[iv] = iv.dom
            continue
        u = union(sets)
        r = u.cover_range(iv.dom)
        mn, ext = ana.simplify(r.min), ana.simplify(r.extent)
        if not isinstance(ext, IntImm) and not stage.is_rolling:
            ext = constant_extent(ana, mn, ext, iv.dom)
        rmap[iv] = Range.from_min_extent(mn, ext)
    for iv in op.reduce_axis:
        rmap[iv] = iv.dom


def constant_extent(ana, mn, ext, dom):
    """``ext`` bounded by its constant upper bound ``c`` when that adds only points outside
    the tensor's domain ``dom``, else ``ext`` as it is.

    A clamped read such as ``B[min(i + 1, 255), j]`` asks for ``min(256 - y, 2)`` rows from
    row ``y``: two rows, one at the last row. With ``[y, y + 2)`` the rows past the tensor are
    never computed (ScheduleOps guards a region that leaves the tensor's domain, as in exact
    mode), so the stage computes exactly the same points; its loops get a constant extent and
    the bounds of the stages it reads stay small, level after level, instead of growing by a
    min/max at each level of a chain."""
    hi = ana.const_int_bound(ext).max_value
    dom_hi = ana.const_int_bound(dom.extent).max_value
    if not (isinstance(hi, int) and isinstance(dom_hi, int)) or not 0 < hi <= dom_hi:
        return ext
    dom_end = ana.simplify(dom.min + dom.extent)
    c = IntImm(hi, ext.dtype)
    # the points [mn + ext, mn + c) all lie at or past the end of the domain
    # (ext >= min(c, end - mn): proved as max(ext, target) == ext, which the flattened max
    # shows when ext is a max over the target, as the union of a clamped read makes it)
    if ana.can_prove(mn + ext >= min_expr(mn + c, dom_end)):
        return c
    if ana.can_prove_equal(max_expr(ext, min_expr(c, dom_end - mn)), ext):
        return c
    return ext


def infer_root_bound(ctx, stage, rmap, ana):
    """Ranges of ``stage``'s root IterVars (phases 1-4)."""
    if stage.attach_type == AttachType.Inline:
        raise TepadError(f"stage {stage.name} is marked compute_inline; call s.normalize() "
                         "(tepad.lower does) before InferBound")
    if stage.attach_type == AttachType.InlinedAlready:
        return
    op = stage.op
    if isinstance(op, (PlaceholderOp, ExternOp)):   # no iteration axes to bound
        for iv in getattr(op, "root_iter_vars", ()):   # a hybrid script's loops: whole
            rmap[iv] = iv.dom
        return
    if stage.is_output:
        for iv in op.root_iter_vars:
            rmap[iv] = iv.dom
        return
    tmap = {op.output(k): [[] for _ in op.output(k).shape] for k in range(op.num_outputs)}
    consumers = []
    for t in tmap:
        for c in ctx.feed.get(t, []):
            if c not in consumers:
                consumers.append(c)
    if len(consumers) == 1 and not isinstance(op, ScanOp):
        # one consumer: its tile offsets (if any) stay abstract through phase 4 too
        offsets = {}
        consumer_request(ctx, stage, consumers[0], rmap, ana, tmap, offsets)
        if offsets:
            with ana.bind_scope_many({t: rng for t, (_, rng) in offsets.items()}):
                _gather_bound(stage, tmap, rmap, ana)
            back = {t: e for t, (e, _) in offsets.items()}
            for iv in op.axis:
                r = rmap[iv]
                if collect_vars(r.min) & back.keys() or collect_vars(r.extent) & back.keys():
                    rmap[iv] = Range.from_min_extent(ana.simplify(substitute(r.min, back)),
                                                     ana.simplify(substitute(r.extent, back)))
            return
        _gather_bound(stage, tmap, rmap, ana)
        return
    for c in consumers:
        consumer_request(ctx, stage, c, rmap, ana, tmap)
    if isinstance(op, ScanOp):
        scan_gather_bound(stage, tmap, rmap, ana)
    else:
        _gather_bound(stage, tmap, rmap, ana)


def infer_bound_interval(s, offset_lets: bool = False) -> BoundMap:
    """``{IterVar: Range}`` for every IterVar of every stage of ``s``, interval mode.
    ``offset_lets``: name deep stages' root mins by let variables (``bmap.offset_lets``, see
    ``tepad.bound.offset_lets``; for lowering, which binds them)."""
    ctx = BoundContext(s)
    rmap = BoundMap()
    ana = Analyzer()
    eligible = closed_stages(s, ctx) if offset_lets else {}
    for stage in reversed(s.stages):
        infer_root_bound(ctx, stage, rmap, ana)
        if stage.attach_type == AttachType.InlinedAlready or isinstance(stage.op, PlaceholderOp):
            continue
        name_root_offsets(stage, rmap, ana, eligible)
        for iv in stage.op.root_iter_vars:
            ana.bind(iv.var, rmap[iv])
        pass_down_domain(stage, rmap, ana)
        bind_thread_ranges(stage, rmap, ana)
    return finalize_ranges(rmap, ana)


def finalize_ranges(rmap, ana):
    """Every range of ``rmap`` cast to its IterVar's dtype and simplified, in place."""
    for iv, r in list(rmap.items()):
        d = iv.var.dtype
        rmap[iv] = Range.from_min_extent(ana.simplify(cast(d, r.min)),
                                         ana.simplify(cast(d, r.extent)))
    return rmap


__all__ = ["BoundMap", "BoundContext", "storage_rank", "thread_rank", "consumer_request", "infer_root_bound", "constant_extent",
           "infer_bound_interval", "finalize_ranges"]
