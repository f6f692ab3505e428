"""Domains and indices along a stage's Split/Fuse/Rebase relations, for the schedule rewrites.

rfactor and cache_write turn loops of a stage (leaves of its relations) into axes of a new
operation, so they need what InferBound's message passing does, at definition level and over
the declared domains: leaf ranges from root ranges (``pass_down_domain``), root indices from
leaf values (``pass_up_index``) and leaf indices from root values (``pass_down_index``).
"""
from __future__ import annotations

from ..arith import IntSet
from ..errors import TepadError
from ..tir.expr import IntImm, Range, cast, const, floordiv, floormod
from ..tir.functor import substitute
from .relations import Fuse, Rebase, Singleton, Split, Transform


def _ceil_div(ana, a, b):
    if ana.can_prove(floormod(a, b) == 0):
        return ana.simplify(floordiv(a, b))
    return ana.simplify(floordiv(a + b - 1, b))


def pass_down_domain(stage, dom, ana, what):
    """Fill ``dom`` ({IterVar: Range}) for every relation output whose inputs are in ``dom``;
    binds each new leaf var in ``ana``. An unknown relation is a TepadError naming ``what``
    (the rewrite that cannot follow it)."""
    for rel in stage.relations:
        if isinstance(rel, Split):
            if rel.parent not in dom:
                continue
            p = dom[rel.parent]
            zero = const(0, p.extent.dtype)
            amount = cast(p.extent.dtype, rel.factor if rel.factor is not None else rel.nparts)
            other = _ceil_div(ana, p.extent, amount)
            inner_ext, outer_ext = (amount, other) if rel.factor is not None else (other, amount)
            dom[rel.outer] = Range.from_min_extent(zero, outer_ext)
            dom[rel.inner] = Range.from_min_extent(zero, inner_ext)
        elif isinstance(rel, Fuse):
            if rel.outer not in dom or rel.inner not in dom:
                continue
            d = rel.fused.var.dtype
            ext = ana.simplify(cast(d, dom[rel.outer].extent) * cast(d, dom[rel.inner].extent))
            dom[rel.fused] = Range.from_min_extent(const(0, d), ext)
        elif isinstance(rel, Rebase):
            if rel.parent not in dom:
                continue
            p = dom[rel.parent]
            dom[rel.rebased] = Range.from_min_extent(const(0, p.extent.dtype), p.extent)
        elif isinstance(rel, Singleton):
            dom[rel.iter] = Range.from_min_extent(0, 1)
        elif isinstance(rel, Transform):
            if not all(ov in dom for ov in rel.original_vars):
                continue
            for tv in rel.transformed_vars:
                dom[tv] = tv.dom            # the layout's (padded) shape
        else:
            raise TepadError(f"stage {stage.name}: {what} cannot follow the relation {rel!r} "
                             "(only split, fuse and reorder)")
        for iv in rel.outputs():
            if iv in dom:
                ana.bind(iv.var, dom[iv])


def _is_zero(e):
    return isinstance(e, IntImm) and e.value == 0


def pass_up_index(stage, dom, value, ana):
    """Fill ``value`` ({IterVar: index expr}) for relation inputs from their outputs' values,
    innermost relation first (each parent = outer * factor + inner + parent min, ...)."""
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            if rel.outer not in value or rel.inner not in value or rel.parent in value:
                continue
            f = dom[rel.inner].extent
            v = value[rel.outer] * f + value[rel.inner]
            pmin = dom[rel.parent].min
            value[rel.parent] = ana.simplify(v if _is_zero(pmin) else v + pmin)
        elif isinstance(rel, Fuse):
            if rel.fused not in value:
                continue
            f = value[rel.fused]
            n = dom[rel.inner].extent
            value[rel.outer] = ana.simplify(floordiv(f, n))
            value[rel.inner] = ana.simplify(floormod(f, n))
        elif isinstance(rel, Rebase):
            if rel.rebased not in value:
                continue
            pmin = dom[rel.parent].min
            v = value[rel.rebased]
            value[rel.parent] = v if _is_zero(pmin) else ana.simplify(v + pmin)
        elif isinstance(rel, Transform):
            if not all(tv in value for tv in rel.transformed_vars):
                continue
            vmap = {tv.var: value[tv] for tv in rel.transformed_vars}
            for ov, inv in zip(rel.original_vars, rel.inverse):
                value[ov] = ana.simplify(substitute(inv, vmap))


def pass_down_index(stage, dom, value, ana):
    """Fill ``value`` for relation outputs from their inputs' values (outer = parent // f,
    inner = parent % f, fused = outer * n + inner, ...), outermost relation first."""
    for rel in stage.relations:
        if isinstance(rel, Split):
            if rel.parent not in value:
                continue
            p = value[rel.parent]
            pmin = dom[rel.parent].min
            p = p if _is_zero(pmin) else p - pmin
            f = dom[rel.inner].extent
            value[rel.outer] = ana.simplify(floordiv(p, f))
            value[rel.inner] = ana.simplify(floormod(p, f))
        elif isinstance(rel, Fuse):
            if rel.outer not in value or rel.inner not in value:
                continue
            value[rel.fused] = ana.simplify(value[rel.outer] * dom[rel.inner].extent +
                                            value[rel.inner])
        elif isinstance(rel, Rebase):
            if rel.parent not in value:
                continue
            pmin = dom[rel.parent].min
            v = value[rel.parent]
            value[rel.rebased] = v if _is_zero(pmin) else ana.simplify(v - pmin)
        elif isinstance(rel, Singleton):
            value[rel.iter] = const(0, rel.iter.var.dtype)
        elif isinstance(rel, Transform):
            if not all(ov in value for ov in rel.original_vars):
                continue
            mapped = rel.index_map.map_indices([value[ov] for ov in rel.original_vars])
            for tv, e in zip(rel.transformed_vars, mapped):
                value[tv] = ana.simplify(e)


def needs_bound_check(stage, dom, ana, exact_splits=()) -> dict:
    """``{IterVar: bool}``: whether the value of an IterVar of ``stage``, computed from its
    leaves, can leave its range in ``dom`` (TVM's PassUpBoundCheck).

    A split whose outer x inner extents do not provably equal its parent's extent (a tail,
    or a factor larger than the parent) marks its parent, and every IterVar above a marked
    one is marked too: with nested splits the guard belongs at every level that does not
    divide, not only at the root. A layout ``Transform`` marks its original axes (padding
    has no preimage). Splits in ``exact_splits`` iterate exactly their parent (shortened
    tail loops) and mark nothing by themselves."""
    need = {iv: False for iv in stage.leaf_iter_vars}
    for rel in reversed(stage.relations):
        if isinstance(rel, Split):
            p, ro, ri = dom.get(rel.parent), dom.get(rel.outer), dom.get(rel.inner)
            if rel in exact_splits:
                divides = True
            elif p is None or ro is None or ri is None:
                divides = False
            else:
                divides = ana.can_prove_equal(p.extent, ro.extent * ri.extent)
            need[rel.parent] = need.get(rel.outer, False) or need.get(rel.inner, False) or \
                not divides
        elif isinstance(rel, Fuse):
            need[rel.outer] = need[rel.inner] = need.get(rel.fused, False)
        elif isinstance(rel, Rebase):
            need[rel.parent] = need.get(rel.rebased, False)
        elif isinstance(rel, Transform):
            for ov in rel.original_vars:
                need[ov] = True
    return need


def relation_bound_checks(stage, dom, value, ana, skip=(), exact_splits=(), var_ranges=None):
    """The guards that keep every IterVar of ``stage`` inside its range when the stage runs
    its leaf loops: ``value[iv] - min < extent`` for each IterVar that ``needs_bound_check``
    marks (and ``value[iv] - min >= 0`` for the original axes of a layout), leaving out those
    the analyzer proves over ``var_ranges`` ({Var: IntSet}; default: the leaves' ranges in
    ``dom``). IterVars in ``skip`` or without a value are left out.

    This is the one rule for every rewrite that turns a stage's leaf loops into loops of its
    own (lowering, rfactor, cache_write): each non-dividing split on the path from a leaf to
    its root gets its own guard, since an inner piece past its parent's extent lands on the
    next element of the parent's parent."""
    need = needs_bound_check(stage, dom, ana, exact_splits)
    if var_ranges is None:
        var_ranges = {iv.var: IntSet.from_range(dom[iv]) for iv in stage.leaf_iter_vars
                      if iv in dom}
    transformed = {id(ov) for rel in stage.relations if isinstance(rel, Transform)
                   for ov in rel.original_vars}
    order = list(stage.all_iter_vars)
    order += [iv for iv in need if not any(iv is x for x in order)]
    preds = []
    for iv in order:
        if iv in skip or not need.get(iv, False) or iv not in value or iv not in dom:
            continue
        r = dom[iv]
        v = ana.simplify(value[iv] - r.min)
        s = ana.int_set(v, var_ranges)
        if id(iv) in transformed and not (s.has_lower_bound() and ana.can_prove(s.min() >= 0)):
            preds.append(v >= 0)
        if not (s.has_upper_bound() and ana.can_prove(s.max() < r.extent)):
            preds.append(v < r.extent)
    return preds


__all__ = ["pass_down_domain", "pass_up_index", "pass_down_index", "needs_bound_check",
           "relation_bound_checks"]
