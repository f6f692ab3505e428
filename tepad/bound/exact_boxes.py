"""Exact bounds, boxes and predicates: a requested region made root ranges (a box, or a
tile) and, when the box wastes work, a store predicate (see ``tepad.bound.exact``)."""
from __future__ import annotations

from __future__ import annotations

import logging

from ..arith.isl_bridge import (NotAffine, dim_type as dt, isl, params_set, params_to_dims,
                                plus_constant)
from ..schedule.relations import Fuse, Split
from ..tir import op as tirop
from ..tir.expr import IntImm, Range, logical_and
from .interval import BoundMap, infer_root_bound
from .exact_abstraction import record_range
from .exact_encoding import (MAX_MIN_PIECES, _min_of_pieces, _tir_size, _to_tir_pw, _to_tir_set,
                             pw_max_val)
from .exact_requests import _thread_context

log = logging.getLogger("tepad.bound.exact")

#: a non-box region gets store predicates when the box would compute at least this fraction
#: more points than the region (concrete shapes); with symbolic shapes any waste counts.
PREDICATE_MIN_SAVING = 0.1
#: skip counting (and predicate anyway) above this many points in the context box
COUNT_LIMIT = 2_000_000
#: a root range whose extent has more pieces than this (or whose min has several) becomes
#: a tile: affine min + the largest extent (keeps chains of compute_at linear)
MAX_EXTENT_PIECES = 1
PREDICATE_MAX_NODES = 400


def _region_context(ex, apath, region, absn) -> isl.Set:
    """What is known about the region's parameters: the attach-path loop ranges and shape
    vars >= 1; with an abstraction only the loops the region depends on, plus the constant
    ranges of the abbreviations it uses."""
    present = {region.get_dim_name(dt.param, k) for k in range(region.dim(dt.param))}
    lets = sorted(present & ex.let_ranges.keys())
    if lets:
        lets = params_set([f"{ex.let_ranges[n][0]} <= {n} <= {ex.let_ranges[n][1]}"
                           for n in lets], lets)
    if absn is None:
        ctx_set = ex.context(apath)
        tctx = _thread_context(ex, region) if ex.bind else None
        ctx_set = ctx_set if tctx is None else (ctx_set & tctx).coalesce()
        return (ctx_set & lets).coalesce() if lets else ctx_set
    ctx_set = ex.context([iv for iv in apath if ex.names.name(iv.var) in present])
    ab = sorted(present & set(absn.bounds))
    if ab:
        ctx_set = (ctx_set & params_set(absn.context_constraints(ab), ab)).coalesce()
    return (ctx_set & lets).coalesce() if lets else ctx_set


def _set_root_ranges(ex, ctx, stage, rmap, ana, region, ctx_set, absn):
    """``rmap`` ranges of ``stage``'s root vars from the region's bounding box; returns
    ``(box, padded)``: the box the ranges describe (as an ISL set in the region's space) and
    whether a tile made it larger than the bounding box on purpose.

    Fuse and nparts-split multiply by an extent: those extents stay constant (the largest over
    the attach iterations, offset exact) so the loop structure stays affine; the region
    predicate then removes the padding. Piecewise bounds become tiles too (see
    ``_tile_lower_bound``)."""
    op = stage.op
    tile = any(isinstance(r, Fuse) or (isinstance(r, Split) and r.factor is None)
               for r in stage.relations)
    sp = region.get_space()
    ls = isl.LocalSpace.from_space(sp)
    box = isl.Set.universe(sp)
    padded = False
    imap = []

    def interval_map():
        if not imap:
            imap.append(BoundMap(rmap))
            imap[0].local_layouts = getattr(rmap, "local_layouts", {})
            infer_root_bound(ctx, stage, imap[0], ana)
        return imap[0]

    for d, iv in enumerate(op.axis):
        lo, hi, const_ext, ext = _dim_bounds(ex, region, d, iv, ctx_set, absn, tile,
                                             interval_map)
        dtype = iv.var.dtype
        v = isl.PwAff.var_on_domain(ls, dt.set, d)
        box = box & v.ge_set(lo.insert_domain(sp)) & v.le_set(hi.insert_domain(sp))
        if const_ext is not None:
            padded = padded or tile
            ext_t = IntImm(const_ext, dtype)
        else:
            ext_t = _to_tir_pw(ext, ctx_set, ex.names, dtype)
        lo_t = _to_tir_pw(lo, ctx_set, ex.names, dtype)
        if absn is not None:
            record_range(ex.names, lo_t, lo, ctx_set)
        rmap[iv] = Range.from_min_extent(lo_t, ext_t)
    for iv in op.reduce_axis:
        rmap[iv] = iv.dom
    return box.coalesce(), padded


def _dim_bounds(ex, region, d, iv, ctx_set, absn, tile, interval_map):
    """``(lo, hi, const_ext, ext)`` of root dim ``d``: PwAff bounds in the region's
    parameters with ``lo <= x_d <= hi`` on the whole region. A dim with piecewise bounds, or
    any dim of a ``tile`` stage, gets a constant extent ``const_ext`` (the largest over
    ``ctx_set``) when there is one, ``hi = lo + const_ext - 1``; otherwise ``const_ext`` is
    None and ``hi`` the region's exact upper bound. ``ext``: the PwAff ``hi - lo + 1`` (each
    difference of piecewise bounds costs ISL a product of their pieces: it is made once)."""
    lo, hi = region.dim_min(d), region.dim_max(d)
    multi_lo = lo.gist_params(ctx_set).n_piece() > 1
    ext = None if multi_lo else plus_constant(hi - lo, 1)
    if multi_lo or ext.gist_params(ctx_set).n_piece() > MAX_EXTENT_PIECES:
        lo2 = _tile_lower_bound(ex, region, d, iv, lo, ctx_set, multi_lo and absn is None,
                                interval_map)
        if ext is None or lo2 is not lo:
            ext = plus_constant(hi - lo2, 1)
        lo = lo2
        tile = True
    if tile:
        mv = pw_max_val(ext, ctx_set)
        if mv.is_int():
            k = mv.to_python()
            return lo, plus_constant(lo, k - 1), k, ext
    return lo, hi, None, ext


def _tile_lower_bound(ex, region, d, iv, lo, ctx_set, try_interval, interval_map):
    """The lower bound of a tile on dim ``d`` whose exact bounds are piecewise (boundary
    tiles would multiply pieces from hop to hop): the interval lower bound when
    ``try_interval``, it is affine and the region lies above it; else ``lo``, relaxed to
    ``_min_of_pieces`` when it has more than MAX_MIN_PIECES pieces."""
    if try_interval:
        try:
            lo_i = _pw_of(ex, interval_map()[iv].min)
            if lo_i.n_piece() == 1 and region.is_subset(_ge_set(region.get_space(), d, lo_i)):
                lo = lo_i
        except (NotAffine, isl.Error):
            pass
    if lo.gist_params(ctx_set).n_piece() > MAX_MIN_PIECES:
        lo = _min_of_pieces(lo.gist_params(ctx_set), ctx_set)
    return lo


def _clip_to_declared_shape(ex, op, box) -> isl.Set:
    """``box`` within the tensor's declared domain: ScheduleOps never stores outside the
    shape, so that part of the box is no waste (``box`` unchanged when not expressible)."""
    cs = ex.conv()
    onames = [ex.names.name(iv.var) for iv in op.axis]
    try:
        dcons = [cs.wrap(f"{cs.expr(iv.dom.min)} <= {onames[k]} < "
                         f"{cs.expr(iv.dom.min + iv.dom.extent)}") for k, iv in enumerate(op.axis)]
        return (box & isl.Set(f"[{', '.join(sorted(cs.used))}] -> {{ [{', '.join(onames)}] : "
                              f"{' and '.join(dcons)} }}")).coalesce()
    except (NotAffine, isl.Error):
        return box


def _region_predicate(ex, stage, region, box, ctx_set, absn):
    """The store predicate of ``stage``: a tir condition over its root vars (and attach and
    shape vars) that holds exactly on the region, where the point lies in ``box``; None when
    it would be trivially true or too large to be worth simplifying."""
    op = stage.op
    if absn is not None:
        pred = _box_predicate(ex, op, region, box, ctx_set)
        if pred is not None:
            return pred
    onames = [ex.names.name(iv.var) for iv in op.axis]
    known = _dims_as_params(box, onames).params().intersect_params(ctx_set).coalesce()
    rp = _dims_as_params(region, onames)
    pred = _to_tir_set(rp.params().compute_divs().coalesce(), known, ex.names)
    if _tir_size(pred) > PREDICATE_MAX_NODES:
        log.debug("exact bounds: stage %s: region predicate too large, computing the box",
                  stage.name)
        return None
    if isinstance(pred, IntImm) and pred.value:
        return None
    return pred


def _dims_as_params(st, names) -> isl.Set:
    """``st`` with its set dims moved behind its parameters, named ``names``."""
    nd = st.dim(dt.set)
    out = st.move_dims(dt.param, st.dim(dt.param), dt.set, 0, nd)
    for k, n in enumerate(names):
        out = out.set_dim_name(dt.param, out.dim(dt.param) - nd + k, n)
    return out


def _box_predicate(ex, op, region, box, ctx_set):
    """The region as ``lo_d <= x_d <= hi_d`` conditions, ``lo_d``/``hi_d`` the ``max``/``min``
    of the region's own bounds on ``x_d`` that the stored box does not already imply (None
    when the region is not a single such box). Each side is one tir expression, so a consumer
    further down a chain abbreviates it by one parameter."""
    if region.n_basic_set() != 1:
        return None
    bs = region.get_basic_sets()[0]
    keep = isl.Set.universe(region.get_space())
    box = box.intersect_params(ctx_set)
    conds = []
    for d, iv in enumerate(op.axis):
        found = _new_dim_bounds(bs, region, d, box)
        if found is None:
            return None
        lows, highs, kept = found
        keep = keep & kept
        for bounds, is_hi in ((lows, False), (highs, True)):
            if bounds:
                e = _bound_expr(ex, bounds, is_hi, ctx_set, iv.var.dtype)
                conds.append(iv.var <= e if is_hi else iv.var >= e)
    if not conds or not (box & keep).is_subset(region):
        return None
    out = conds[0]
    for c in conds[1:]:
        out = logical_and(out, c)
    return out


def _new_dim_bounds(bs, region, d, box):
    """``(lows, highs, kept)``: the affine lower and upper bounds on set dim ``d`` among the
    constraints of the basic set ``bs`` that ``box`` does not already imply, and the set
    they cut out; None when a constraint on ``d`` involves another dim, a div, or is an
    equality (the region is then not a box of such bounds)."""
    nd = region.dim(dt.set)
    sp = region.get_space()
    v = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), dt.set, d)
    kept = isl.Set.universe(sp)
    lows, highs = [], []
    for c in bs.get_constraints():
        cf = c.get_coefficient_val(dt.set, d).to_python()
        if cf == 0:
            continue
        others = [k for k in range(nd) if k != d and
                  c.get_coefficient_val(dt.set, k).to_python() != 0]
        nd_div = c.dim(dt.div)
        if others or (nd_div and c.involves_dims(dt.div, 0, nd_div)) or c.is_equality():
            return None
        b = c.get_bound(dt.set, d)
        b = b.floor() if cf < 0 else b.ceil()
        pb = isl.PwAff.from_aff(b)
        st = v.le_set(pb) if cf < 0 else v.ge_set(pb)
        if (box - st).is_empty():
            continue                  # the box already implies it
        kept = kept & st
        (highs if cf < 0 else lows).append(b)
    return lows, highs, kept


def _bound_expr(ex, bounds, is_hi, ctx_set, dtype):
    """The ``min`` (``is_hi``) or ``max`` of the affine ``bounds`` as one tir expression, its
    constant range recorded for the next hop's abbreviation."""
    pas = [isl.PwAff.from_aff(b.project_domain_on_params()) for b in bounds]
    es = [_to_tir_pw(pa, ctx_set, ex.names, dtype) for pa in pas]
    e, pa = es[0], pas[0]
    for e2, pa2 in zip(es[1:], pas[1:]):
        e = tirop.min(e, e2) if is_hi else tirop.max(e, e2)
        pa = pa.min(pa2) if is_hi else pa.max(pa2)
    record_range(ex.names, e, pa, ctx_set)
    return e


def _pw_of(ex, e):
    """tir expression (in params) -> isl PwAff."""
    c = ex.conv()
    body = c.wrap(f"val_ = {c.expr(e)}")
    return isl.Set(f"[{', '.join(sorted(c.used))}] -> {{ [val_] : {body} }}").dim_max(0)


def _ge_set(sp, d, lo):
    """``{ x in sp : x_d >= lo }``."""
    v = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), dt.set, d)
    return v.ge_set(lo.insert_domain(sp))


def _worth_predicating(ex, box, waste, ctx_set):
    """Concrete shapes: does the box waste at least PREDICATE_MIN_SAVING of its points?"""
    free = {box.get_dim_name(dt.param, k) for k in range(box.dim(dt.param))}
    if free & (ex.shape_vars | set(ex.names.exprs)):
        return True          # symbolic (or abbreviated): cannot count, any waste counts
    try:
        if ctx_set.dim(dt.param) > 3:
            # deep attach paths: counting every attach iteration is exponential in the depth;
            # judge on one (sampled) attach iteration instead
            ctx_set = isl.Set.from_point(ctx_set.sample_point())
        b = params_to_dims(box.intersect_params(ctx_set).coalesce())
        w = params_to_dims(waste.intersect_params(ctx_set).coalesce())
        nb = b.count_val().to_python()
        nw = w.count_val().to_python()
    except (isl.Error, ValueError):
        return True
    if nb <= 0:
        return True
    return nw >= PREDICATE_MIN_SAVING * nb
