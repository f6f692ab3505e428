"""Exact regions with ISL (islpy): InferBound that computes nothing it does not need.

``infer_bound_exact(s)`` answers the same question as the interval InferBound -- "which region
of producer P do its consumers need, for one iteration of P's attach path?" -- with integer
sets instead of per-dimension intervals. It keeps the interval algorithm's structure: stages
are visited from outputs to inputs, a producer's root ranges come from its consumers'
requests, PassDownDomain derives the leaf ranges.

Encoding (one ISL context, every tepad Var gets a unique ISL name, see ``Names``):

* **What a stage executes** (``Exact.own``) is a parameter-only set over all of the stage's
  IterVars, built from the *BoundMap's own tir data*, i.e. from what ScheduleOps will emit:
  root vars in their bound ranges and in their declared domain, split
  ``p = pmin + f*o + i, 0 <= i < f``, fuse ``x = (o - omin)*E + (i - imin)``, rebase, the
  region predicates. Split tails are exact because the parent's range stays a constraint.
  A layout ``Transform`` (``transform_layout``: the loops iterate the physical indices) is
  ``t_k = f_k(orig)`` with the original vars in their ranges, so physical padding points have
  no preimage (ScheduleOps guards them); a non quasi-affine map makes ``own`` raise
  ``NotAffine``, i.e. an interval fallback for the producer (recorded in ``exact_fallbacks``).
  The loop-iteration domain of an enclosing stage (``loops_only``) leaves the Transform out:
  its loops, and the stages attached inside them, also run at padding points.
  Vars of enclosing loops (attach path) and shape vars appear as free names.
* **A consumer's request** on P: the conjunction of ``own`` of the consumer and of every stage
  between it and P's attach point (loops inside the attach point are relaxed = projected out),
  intersected with the access relation ``o_k = index_k`` of every load of P; then every name
  except P's attach-path loop vars and shape vars is projected out. floordiv/floormod by
  constants are native; a non quasi-affine index dimension falls back to the interval request
  of that dimension (logged, and recorded in ``bmap.exact_fallbacks`` / ``explain``).
* The region is the union over all loads and consumers; it is not intersected with the
  interval box (whose consumer loops may start elsewhere), and is never looser anyway. Its bounding box (``dim_min``/``dim_max``, piecewise affine in
  the attach vars and shape vars) becomes the root ranges through isl's AST expression builder
  (``min``/``max``/``floordiv`` tir expressions). When the region is not a box and the box
  wastes at least ``PREDICATE_MIN_SAVING`` of the work, the region itself, written as a
  condition over P's root vars, goes to ``bmap.predicates[P.op]`` (ScheduleOps guards the
  stores). ``bmap.exact_tails`` is set so non-divisible splits run shortened tail loops.

Producers get boxes (plus an optional predicate) rather than exact sets; the consumer's set is
rebuilt from the tir ranges, which keeps long chains linear in the number of stages. ISL
objects are cached per stage (``own``) and per (consumer, tensor) (access relations).

Deep attach chains (``ABSTRACT_DEPTH`` or more enclosing loops): a consumer's ranges and
predicates are tir expressions over *every* loop enclosing it, so without care the producer's
region would be parametric in all of them, and its piecewise bounds multiply from hop to hop
(a 50-stage chain took minutes). There, every sub-expression over loops further out than the
consumers (a root min such as ``8*io_1 + ... + 8*io_k``, a predicate bound) becomes one fresh
ISL parameter (``Abstraction``), bounded in the context by its constant range (recorded when
exact mode built the expression). The region is then exact as a function of those parameters
and of the consumers' own loop vars only, and converting back substitutes the expressions.
The region's predicate is written per dimension as ``x <= min(...)`` / ``x >= max(...)`` of the
region's own bounds that the stored tile does not imply (``_box_predicate``), so the next hop
abbreviates it by a single parameter again: a constant amount of ISL work per stage.

The modules, by job: ``exact_encoding`` (tir <-> ISL), ``exact_requests`` (the per-schedule
state and what the consumers request), ``exact_boxes`` (regions made root ranges and
predicates), ``exact_abstraction`` (deep chains); this one runs InferBound with them, and
keeps the limits that decide between exact and interval bounds for a stage. Each limit lives
in the module that reads it (this module re-exports them).
"""
from __future__ import annotations

from __future__ import annotations

import logging

from ..arith import Analyzer
from ..arith.isl_bridge import NotAffine, isl, operation_budget
from ..errors import TepadError
from ..schedule.stage import AttachType
from ..tensor.extern import ExternOp
from ..tensor.tensor import PlaceholderOp
from ..tensor.tensor_intrin import TensorComputeOp
from ..tir.expr import IntImm, Range
from .interval import (BoundContext, BoundMap, finalize_ranges, infer_bound_interval,
                       infer_root_bound, storage_rank)
from .message_passing import bind_thread_ranges, pass_down_domain
from .offset_lets import closed_stages, name_root_offsets
from .exact_abstraction import Abstraction, record_range
from .exact_boxes import (COUNT_LIMIT, MAX_EXTENT_PIECES, PREDICATE_MAX_NODES,
                          PREDICATE_MIN_SAVING, _clip_to_declared_shape, _region_context,
                          _region_predicate, _set_root_ranges, _worth_predicating)
from .exact_encoding import MAX_MIN_PIECES, Names, box_of, pw_max_val
from .exact_requests import (Exact, Fallback, _consumers, _IntervalRequests, loads_of,
                             request_region, thread_value_is_var)

log = logging.getLogger("tepad.bound.exact")

_DEBUG_RAISE = False
#: a requested region that is a union of more basic sets than this (after simplifying it in
#: its context) is bounded by interval InferBound instead: its piecewise bounds and predicate
#: cost ISL seconds (a 4-stage chain clamped in both dimensions, tiles 3 x 2 at each
#: consumer's inner tile loop: one region of 14 pieces over 10 parameters took 15 s, for a
#: predicate of 1,000 nodes that PREDICATE_MAX_NODES then dropped)
MAX_REGION_PIECES = 8
#: ISL's elementary operations one stage's exact bounds may take (``operation_budget``);
#: past it the stage gets interval bounds. Parametric bounds of regions with divisions over
#: many parameters can take ISL minutes (a 3-stage chain clamped in both dimensions, tiles
#: 3 x 2 at each consumer's inner tile loop: 30 s for one stage); ordinary stages use a few
#: thousandths of this.
STAGE_ISL_OPERATIONS = 2_000_000
#: from this attach depth on (number of loops enclosing the producer), sub-expressions of the
#: consumers' ranges and predicates that only involve enclosing loop vars are abbreviated by
#: fresh ISL parameters (``Abstraction``): keeps deep compute_at chains linear
ABSTRACT_DEPTH = 3


# ---------------------------------------------------------------------------------------------
# InferBound, exact mode
# ---------------------------------------------------------------------------------------------

def infer_bound_exact(s, offset_lets: bool = False):
    """Exact-mode InferBound: a ``BoundMap`` with exact root ranges, region predicates and
    ``exact_tails``. ``bmap.exact_fallbacks`` lists where intervals were used instead.
    ``offset_lets``: as ``infer_bound_interval``'s (``tepad.bound.offset_lets``); the let
    variables are ISL parameters in their constant ranges, abbreviated like the enclosing
    loops' sub-expressions."""
    ctx = BoundContext(s)
    if any(isinstance(st.op, TensorComputeOp) for st in s.stages):
        bm = infer_bound_interval(s, offset_lets)
        bm.exact_fallbacks = [Fallback("*", None, None, "a TensorComputeOp reads regions, "
                                       "not elements: interval mode used for everything")]
        return bm
    if any(b.thread_tag == "pipeline" for b in ctx.bind_map.values()):
        bm = infer_bound_interval(s, offset_lets)
        bm.exact_fallbacks = [Fallback("*", None, None,
                                       "pipeline-bound loops: interval mode used for everything")]
        return bm
    if any(isinstance(st.op, ExternOp) for st in s.stages):
        bm = infer_bound_interval(s, offset_lets)    # extern ops read and write whole tensors
        bm.exact_fallbacks = [Fallback("*", None, None,
                                       "extern ops: interval mode used for everything")]
        return bm
    rmap = BoundMap()
    rmap.exact_tails = True
    rmap.exact_fallbacks = []
    rmap.exact_regions = {}
    ana = Analyzer()
    ex = Exact(s, rmap)
    ex.bound_ctx = ctx
    # a thread-bound loop's extent is a launch dimension, the same for every block: ScheduleOps
    # would make a shortened tail loop of it a serial loop, so with threads non-divisible
    # splits keep interval mode's guard (``own`` is sound either way: leaf loops in their
    # ranges, the split's parent range bounding the stores)
    rmap.exact_tails = not ex.bind
    eligible = closed_stages(s, ctx) if offset_lets else {}
    for stage in reversed(s.stages):
        if stage.attach_type == AttachType.InlinedAlready or isinstance(stage.op, PlaceholderOp):
            continue
        if stage.attach_type == AttachType.Inline:
            raise TepadError(f"stage {stage.name} is marked compute_inline; call "
                             "s.normalize() (tepad.lower does) before InferBound")
        op = stage.op
        if stage.is_output:
            for iv in op.root_iter_vars:
                rmap[iv] = iv.dom
        else:
            try:
                with operation_budget(STAGE_ISL_OPERATIONS):
                    _exact_root_bound(ex, ctx, stage, rmap, ana)
                msg = _gpu_shape_refused(ctx, stage, rmap) if ex.bind else None
            except (NotAffine, isl.Error) as e:
                if _DEBUG_RAISE:
                    raise
                msg = f"exact region failed ({e}); interval InferBound for the whole stage"
            if msg is not None:
                log.debug("exact bounds: stage %s: %s", stage.name, msg)
                rmap.exact_fallbacks.append(Fallback(stage.name, None, None, msg))
                rmap.predicates.pop(op, None)
                infer_root_bound(ctx, stage, rmap, ana)
        for v, _, lo, hi in name_root_offsets(stage, rmap, ana, eligible):
            ex.add_let(v, lo, hi)
        for iv in op.root_iter_vars:
            ana.bind(iv.var, rmap[iv])
        pass_down_domain(stage, rmap, ana)
        bind_thread_ranges(stage, rmap, ana)
    return finalize_ranges(rmap, ana)


def _gpu_shape_refused(ctx, stage, rmap):
    """Why GPU lowering would refuse ``stage``'s exact root ranges (then interval InferBound
    sizes it), or None. A ``shared``/``local`` tile (its scope, or the default scope of a
    stage attached under a thread-bound loop) is one allocation per block or thread, so its
    size must be a constant: an exact extent that moves with ``blockIdx`` (a tile clipped at
    the tensor's end) or with a serial loop cannot be allocated, while interval mode's
    constant, guarded tile can. A thread-bound leaf needs a positive launch extent, which an
    empty exact region (a stage nobody reads) does not give."""
    op = stage.op
    extents = [rmap[iv].extent for iv in op.axis if iv in rmap]
    scope = stage.scope or ""
    per_block = storage_rank(scope) > 0 or (
        not scope and any(iv in ctx.bind_map for iv in ctx.paths[id(stage)]))
    if per_block and not all(isinstance(e, IntImm) for e in extents):
        return (f"a {scope or 'block- or thread-local'} tile needs a constant size; exact "
                f"extents {[str(e) for e in extents]} are not: interval InferBound for the stage")
    bound_leaf = any(iv in ctx.bind_map for iv in stage.leaf_iter_vars)
    if bound_leaf and any(isinstance(e, IntImm) and e.value == 0 for e in extents):
        return "empty exact region under a thread binding: interval InferBound for the stage"
    return None


def _exact_root_bound(ex, ctx, stage, rmap, ana):
    """Root ranges of a non-output ``stage`` from the exact region its consumers request, and
    a store predicate when the ranges' box wastes enough work (see the module docstring)."""
    op = stage.op
    apath = ctx.paths[id(stage)]
    consumers = _consumers(ctx, op)
    intervals = _IntervalRequests(ex, ctx, stage, rmap, ana)
    # abbreviations of outer sub-expressions would keep relaxed thread loops as parameters
    absn = None if ex.bind else _abstraction_for(ex, apath, consumers)
    region = request_region(ex, stage, consumers, apath, intervals.constraint,
                            rmap.exact_fallbacks, absn)
    # No intersection with the interval-mode box here: that box is expressed in the interval
    # mode's consumer loops, which can start elsewhere than exact mode's (a consumer whose
    # region exact mode shrank), so intersecting could drop points that are needed. The region
    # is a union of exact images of what the consumers execute, hence never looser anyway.
    ctx_set = _region_context(ex, apath, region, absn)
    if region.n_basic_set() > MAX_REGION_PIECES:
        region = region.gist_params(ctx_set).coalesce()
        if region.n_basic_set() > MAX_REGION_PIECES:
            raise NotAffine(f"the exact region of {stage.name} is a union of "
                            f"{region.n_basic_set()} pieces (more than {MAX_REGION_PIECES}): "
                            "its bounds would cost more than they save")
    rmap.exact_regions[op] = region
    if region.is_empty():
        for iv in op.axis:
            rmap[iv] = Range.from_min_extent(iv.dom.min, IntImm(0, iv.var.dtype))
        for iv in op.reduce_axis:
            rmap[iv] = iv.dom
        return
    box, padded = _set_root_ranges(ex, ctx, stage, rmap, ana, region, ctx_set, absn)
    box = _clip_to_declared_shape(ex, op, box)
    waste = (box - region).coalesce()
    if waste.is_empty() or stage.is_rolling:
        # a rolling buffer computes its whole box (ScheduleOps drops region predicates: the
        # skip of what the previous iteration stored needs boxes), so no predicate either
        # here, where its producers' requests are taken from what it executes
        return
    if not padded and not _worth_predicating(ex, box, waste, ctx_set):
        return
    pred = _region_predicate(ex, stage, region, box, ctx_set, absn)
    if pred is not None:
        rmap.predicates[op] = [pred]


def _abstraction_for(ex, apath, consumers):
    """The ``Abstraction`` for a producer at attach depth ``ABSTRACT_DEPTH`` or more (None
    above that depth, or when a consumer's chain to the attach point is broken)."""
    if len(apath) < ABSTRACT_DEPTH:
        return None
    stop = apath[0] if apath else None
    try:
        chain = [x for c in consumers for x in ex.chain(c, stop)]
    except NotAffine:
        return None
    return ex.abstraction(apath, chain)


__all__ = ["infer_bound_exact", "Exact", "Names", "Fallback", "request_region", "loads_of",
           "box_of", "PREDICATE_MIN_SAVING", "Abstraction", "record_range", "pw_max_val",
           "thread_value_is_var", "COUNT_LIMIT", "MAX_EXTENT_PIECES", "MAX_MIN_PIECES",
           "PREDICATE_MAX_NODES", "MAX_REGION_PIECES", "STAGE_ISL_OPERATIONS", "ABSTRACT_DEPTH"]
