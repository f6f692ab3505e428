"""Passing domains and indices along a stage's IterVar relations (split/fuse/rebase).

``pass_down_domain`` derives leaf ranges from root ranges; ``pass_up_domain`` turns IntSets
of leaves into IntSets of roots; ``pass_up_index`` turns loop values into root indices;
``pass_up_bound_check`` says which IterVars need an upper-bound guard (non-divisible splits);
``bind_thread_ranges`` gives thread axes the ranges of the loops bound to them.
"""
from __future__ import annotations

from ..arith import IntSet
from ..errors import InternalError, TepadError
from ..schedule.index_flow import needs_bound_check
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tir.functor import collect_vars, substitute
from ..tir.expr import IntImm, Range, cast, const, floordiv, floormod, convert


def _is_one(e):
    return isinstance(e, IntImm) and e.value == 1


def ceil_div(ana, a, b):
    if ana.can_prove(floormod(a, b) == 0):
        return ana.simplify(floordiv(a, b))
    return ana.simplify(floordiv(a + b - 1, b))


def _tight(ana, parent_extent, v, allow_missing):
    """min(parent extent, split amount) when provable (the split cannot exceed its parent)."""
    if allow_missing:
        return v
    if ana.can_prove(parent_extent < v):
        return parent_extent
    return v


def _update(ana, rmap, iv, r):
    if iv not in rmap:
        rmap[iv] = r
        ana.bind(iv.var, r)
        return
    old = rmap[iv]
    if not ana.can_prove_equal(old.extent, r.extent):
        raise TepadError(f"IterVar {iv.name}: domain already inferred as extent "
                         f"{old.extent!r}, cannot prove it equals {r.extent!r}")


def _is_virtual(tag) -> bool:
    return tag.startswith("vthread") or tag == "cthread"


def _thread_dominated(stage) -> set:
    """``id``s of the IterVars of ``stage`` from which a leaf bound to a GPU thread derives
    (TVM's PassUpThreadBinding). Virtual threads are left out: TVM does not tighten their
    pieces either, but its lowering unrolls them (InjectVirtualThread) and folds the guards
    that the wider loop needs; tepad's CPU pipeline keeps them, so a vthread piece keeps the
    tightened extent (each virtual_thread attribute is unrolled on its own anyway)."""
    out = {id(iv) for iv, a in stage.iter_var_attrs.items()
           if a.bind_thread is not None and not _is_virtual(a.bind_thread.thread_tag)}
    if not out:
        return out
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            if id(rel.inner) in out or id(rel.outer) in out:
                out.add(id(rel.parent))
        elif isinstance(rel, Fuse):
            if id(rel.fused) in out:
                out.update((id(rel.outer), id(rel.inner)))
        elif isinstance(rel, Rebase):
            if id(rel.rebased) in out:
                out.add(id(rel.parent))
        elif isinstance(rel, Transform):
            if any(id(tv) in out for tv in rel.transformed_vars):
                out.update(id(ov) for ov in rel.original_vars)
    return out


def pass_down_domain(stage, rmap, ana, allow_missing=False):
    """Fill ``rmap`` for every derived IterVar of ``stage`` from its parents' ranges.

    A split's factor (or nparts) is tightened to the parent's extent when that is provably
    smaller, except where a thread-bound leaf derives from the piece (TVM: a split is often
    how a stage's loop is made to match the block's thread count, e.g. a one-row local stage
    split by the 3 threads of its consumer keeps a 3-thread loop)."""
    threads = _thread_dominated(stage)
    for rel in stage.relations:
        if isinstance(rel, Split):
            if rel.parent not in rmap:
                if allow_missing:
                    continue
                raise InternalError(f"split parent {rel.parent.name} has no range")
            p = rmap[rel.parent]
            if rel.factor is not None:
                f = cast(p.extent.dtype, rel.factor)
                _update(ana, rmap, rel.inner,
                        Range.from_min_extent(const(0, p.extent.dtype),
                                              _tight(ana, p.extent, f, allow_missing or
                                                     id(rel.inner) in threads)))
                _update(ana, rmap, rel.outer,
                        Range.from_min_extent(const(0, p.extent.dtype), ceil_div(ana, p.extent, f)))
            else:
                n = cast(p.extent.dtype, rel.nparts)
                _update(ana, rmap, rel.outer,
                        Range.from_min_extent(const(0, p.extent.dtype),
                                              _tight(ana, p.extent, n, allow_missing or
                                                     id(rel.outer) in threads)))
                _update(ana, rmap, rel.inner,
                        Range.from_min_extent(const(0, p.extent.dtype), ceil_div(ana, p.extent, n)))
        elif isinstance(rel, Fuse):
            if rel.outer not in rmap or rel.inner not in rmap:
                if allow_missing:
                    continue
                raise InternalError(f"fuse inputs of {rel.fused.name} have no range")
            o, i = rmap[rel.outer], rmap[rel.inner]
            ext = ana.simplify(cast(rel.fused.var.dtype, o.extent) * cast(rel.fused.var.dtype,
                                                                          i.extent))
            _update(ana, rmap, rel.fused, Range.from_min_extent(const(0, ext.dtype), ext))
        elif isinstance(rel, Rebase):
            if rel.parent not in rmap:
                if allow_missing:
                    continue
                raise InternalError(f"rebase parent {rel.parent.name} has no range")
            p = rmap[rel.parent]
            _update(ana, rmap, rel.rebased, Range.from_min_extent(const(0, p.extent.dtype),
                                                                  p.extent))
        elif isinstance(rel, Singleton):
            _update(ana, rmap, rel.iter, Range.from_min_extent(0, 1))
        elif isinstance(rel, Transform):
            missing = [ov for ov in rel.original_vars if rmap.get(ov) is None]
            if missing:
                if allow_missing:
                    continue
                raise InternalError(f"transform input {missing[0].name} has no range")
            whole = all(ana.can_prove_equal(rmap[ov].min, ov.dom.min) and
                        ana.can_prove_equal(rmap[ov].extent, ov.dom.extent)
                        for ov in rel.original_vars)
            if whole:
                for tv in rel.transformed_vars:
                    _update(ana, rmap, tv, tv.dom)
            elif getattr(stage, "attach_type", None) != AttachType.Scope:
                # a stage at the root computes its whole tensor in the layout's loops,
                # whatever the (interval) request says: a guarded read such as
                # if_then_else(i >= 1, B[i - 1], 0) asks for [-1, N - 1), and
                # read_check has proven that nothing reads outside [0, N)
                for ov in rel.original_vars:
                    rmap[ov] = ov.dom
                for tv in rel.transformed_vars:
                    _update(ana, rmap, tv, tv.dom)
            else:
                _local_layout(stage, rel, rmap, ana)
        else:
            raise InternalError(f"unknown relation {rel!r}")


def bind_thread_ranges(stage, rmap, ana):
    """The end of TVM's PassDownDomain: each GPU thread axis a leaf of ``stage`` is bound to
    gets the leaf's range (its variable is then known to lie in ``[0, extent)``). One thread
    axis bound to loops of different extents is a TepadError naming the stage and the axis
    (TVM: "domain already inferred"). Virtual threads are skipped (see
    ``_thread_dominated``)."""
    for iv in stage.leaf_iter_vars:
        attr = stage.iter_var_attrs.get(iv)
        b = attr.bind_thread if attr is not None else None
        if b is None or iv not in rmap or _is_virtual(b.thread_tag):
            continue
        r = rmap[iv]
        old = rmap.get(b)
        if old is None:
            rmap[b] = r
            ana.bind(b.var, r)
        elif not ana.can_prove_equal(old.extent, r.extent):
            raise TepadError(
                f"stage {stage.name}: axis {iv.name} is bound to {b.thread_tag} "
                f"({b.var.name}) with extent {r.extent}, but another loop bound to the same "
                f"thread axis has extent {old.extent}; every loop bound to one thread axis "
                f"must have the same extent (split to equal extents, or bind a new "
                f"te.thread_axis)")


def _local_layout(stage, rel, rmap, ana):
    """Loops of a layout ``Transform`` on a stage computed at an inner loop of its consumer.

    The stage realizes only its region ``[m, m + e)`` there (a local buffer), and the layout
    map applies to that buffer's own coordinates ``i - m``: the transformed loops range over
    ``map_shape(e)`` and ``rmap.local_layouts[rel]`` holds the map's inverse on that shape
    (``pass_up_index`` adds ``m`` back). An extent that varies with the enclosing loops (a
    tail) is widened to its constant upper bound, and an empty one to one element, so the
    local buffer has one non-empty shape; the stage's guards keep it inside the tensor.
    Where no constant bound exists (symbolic sizes) or the map has no exact layout on the
    region, the stage computes its whole tensor at the attach point, in the tensor's layout
    (always correct, never refused). ``apply_buffer_transforms`` maps the realized buffer the
    same way (its realize bounds are these ranges)."""
    loop_vars = {iv.var for iv in rmap}
    extents, ranges = [], {}
    for ov in rel.original_vars:
        r = rmap[ov]
        ext = ana.simplify(r.extent)
        hi = ana.const_int_bound(ext).max_value
        if collect_vars(ext) & loop_vars or (isinstance(hi, int) and hi < 1):
            if not isinstance(hi, int) or hi > 2 ** 31:
                return _whole_tensor_layout(rel, rmap, ana)
            # an empty region (nothing needed) gets one element: the layout needs a shape
            ext = IntImm(max(int(hi), 1), r.extent.dtype)
            ranges[ov] = Range.from_min_extent(r.min, ext)
        extents.append(ext)
    try:
        shape = rel.index_map.map_shape(extents, ana)
        inverse = rel.index_map.inverse(extents)
    except TepadError:
        return _whole_tensor_layout(rel, rmap, ana)
    rmap.update(ranges)
    for tv, ext in zip(rel.transformed_vars, shape):
        _update(ana, rmap, tv, Range.from_min_extent(const(0, ext.dtype), ana.simplify(ext)))
    vsub = {v: tv.var for v, tv in zip(inverse.initial_indices, rel.transformed_vars)}
    table = getattr(rmap, "local_layouts", None)
    if table is not None:
        table[rel] = [substitute(e, vsub) for e in inverse.final_indices]


def _whole_tensor_layout(rel, rmap, ana):
    """The stage computes its whole tensor (in the tensor's layout) where it is attached."""
    for ov in rel.original_vars:
        rmap[ov] = ov.dom
    for tv in rel.transformed_vars:
        _update(ana, rmap, tv, tv.dom)


def transform_inverse(rel, rmap):
    """Original (root) values of a layout ``Transform`` in terms of its transformed vars: the
    map's inverse, on the local region plus its min when the stage realizes only a region
    (``_local_layout``)."""
    local = getattr(rmap, "local_layouts", {}).get(rel)
    if local is None:
        return list(rel.inverse)
    out = []
    for ov, inv in zip(rel.original_vars, local):
        m = rmap[ov].min
        out.append(inv if _is_zero(m) else inv + m)
    return out


def _match_range(ana, s: IntSet, r: Range) -> bool:
    if not (s.has_lower_bound() and s.has_upper_bound()):
        return False
    return ana.can_prove_equal(s.min(), r.min) and \
        ana.can_prove_equal(s.max(), r.min + r.extent - 1)


def pass_up_domain(stage, rmap, up: dict, ana):
    """Given IntSets for leaves in ``up``, add IntSets for every parent IterVar."""
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            if rel.outer not in up or rel.inner not in up:
                continue
            uo, ui = up[rel.outer], up[rel.inner]
            if rel.parent in rmap and _match_range(ana, uo, rmap[rel.outer]) and \
                    _match_range(ana, ui, rmap[rel.inner]):
                up[rel.parent] = IntSet.from_range(rmap[rel.parent])
            else:
                f = rmap[rel.inner].extent
                pmin = rmap[rel.parent].min
                e = rel.outer.var * f + rel.inner.var + pmin
                up[rel.parent] = ana.int_set(e, {rel.outer.var: uo, rel.inner.var: ui})
        elif isinstance(rel, Fuse):
            if rel.fused not in up:
                continue
            uf = up[rel.fused]
            ro, ri = rmap[rel.outer], rmap[rel.inner]
            if _match_range(ana, uf, rmap[rel.fused]) or not (
                    uf.has_lower_bound() and uf.has_upper_bound()):
                # (an unbounded fused set covers whole rows: the parents' full ranges)
                up[rel.outer] = IntSet.from_range(ro)
                up[rel.inner] = IntSet.from_range(ri)
            elif uf.is_single_point():
                v = uf.point_value()
                up[rel.outer] = IntSet.single_point(
                    ana.simplify(floordiv(v, ri.extent) + ro.min))
                up[rel.inner] = IntSet.single_point(
                    ana.simplify(floormod(v, ri.extent) + ri.min))
            else:
                lo, hi = uf.min(), uf.max()
                ext_i = ri.extent
                up[rel.outer] = IntSet.interval(ana.simplify(ro.min + floordiv(lo, ext_i)),
                                                ana.simplify(ro.min + floordiv(hi, ext_i)))
                span = ana.simplify(hi - lo + 1)
                if ana.can_prove(floormod(ext_i, span) == 0) and \
                        ana.can_prove(floormod(lo, span) == 0):
                    up[rel.inner] = IntSet.interval(ana.simplify(ri.min + floormod(lo, ext_i)),
                                                    ana.simplify(ri.min + floormod(hi, ext_i)))
                else:
                    up[rel.inner] = IntSet.from_range(ri)
        elif isinstance(rel, Rebase):
            if rel.rebased not in up:
                continue
            ur = up[rel.rebased]
            if _match_range(ana, ur, rmap[rel.rebased]):
                up[rel.parent] = IntSet.from_range(rmap[rel.parent])
            else:
                up[rel.parent] = ana.int_set(rel.rebased.var + rmap[rel.parent].min,
                                             {rel.rebased.var: ur})
        elif isinstance(rel, Singleton):
            continue
        elif isinstance(rel, Transform):
            if any(tv not in up for tv in rel.transformed_vars):
                continue
            if all(_match_range(ana, up[tv], rmap[tv]) for tv in rel.transformed_vars):
                for ov in rel.original_vars:
                    up[ov] = IntSet.from_range(rmap[ov])
            else:
                dom = {tv.var: up[tv] for tv in rel.transformed_vars}
                for ov, inv in zip(rel.original_vars, transform_inverse(rel, rmap)):
                    up[ov] = ana.int_set(inv, dom)


def pass_up_index(stage, rmap, value: dict, ana):
    """Given index expressions of leaves in ``value``, add those of every parent IterVar."""
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            if rel.outer not in value or rel.inner not in value:
                continue
            f = rmap[rel.inner].extent
            pmin = rmap[rel.parent].min
            v = value[rel.outer] * f + value[rel.inner]
            value[rel.parent] = ana.simplify(v if _is_zero(pmin) else v + pmin)
        elif isinstance(rel, Fuse):
            if rel.fused not in value:
                continue
            ro, ri = rmap[rel.outer], rmap[rel.inner]
            fv = value[rel.fused]
            if isinstance(ri.extent, IntImm) and ri.extent.value == 0:
                o = i = IntImm(0, fv.dtype)      # an empty region: the loop never runs
            else:
                o = floordiv(fv, ri.extent)
                i = floormod(fv, ri.extent)
            value[rel.outer] = ana.simplify(cast(rel.outer.var.dtype, o if _is_zero(ro.min)
                                                 else o + ro.min))
            value[rel.inner] = ana.simplify(cast(rel.inner.var.dtype, i if _is_zero(ri.min)
                                                 else i + ri.min))
        elif isinstance(rel, Rebase):
            if rel.rebased not in value:
                continue
            pmin = rmap[rel.parent].min
            v = value[rel.rebased]
            value[rel.parent] = ana.simplify(v if _is_zero(pmin) else v + pmin)
        elif isinstance(rel, Transform):
            if any(tv not in value for tv in rel.transformed_vars):
                continue
            vsub = {tv.var: value[tv] for tv in rel.transformed_vars}
            for ov, inv in zip(rel.original_vars, transform_inverse(rel, rmap)):
                value[ov] = ana.simplify(substitute(inv, vsub))


def _is_zero(e):
    return isinstance(e, IntImm) and e.value == 0


def pass_up_bound_check(stage, rmap, ana, exact_splits=()) -> dict:
    """``{IterVar: bool}``: whether the IterVar's value can exceed its range (needs a guard);
    the rule is ``tepad.schedule.index_flow.needs_bound_check``, shared with the schedule
    rewrites. Splits in ``exact_splits`` iterate exactly their parent's extent (tail loops
    shortened)."""
    return needs_bound_check(stage, rmap, ana, exact_splits)


__all__ = ["pass_down_domain", "bind_thread_ranges", "pass_up_domain", "pass_up_index", "pass_up_bound_check",
           "transform_inverse",
           "ceil_div", "convert"]
