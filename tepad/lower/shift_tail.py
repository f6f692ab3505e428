"""``split(..., tail="shift")``: Halide's ShiftInwards for the last tile of a split.

A split ``parent = outer * f + inner`` whose factor ``f`` does not divide the parent's extent
``n`` leaves a partial last tile, normally guarded point by point. Shifted, the parent is
``min(outer * f, n - f) + inner``: every tile is whole, the last one overlapping the one
before it, and no guard is needed. Recomputing a point stores the same value again, so this
is only done where that holds and nothing else changes (see ``shiftable``); elsewhere the
split keeps its guard.
"""
from __future__ import annotations

from types import SimpleNamespace

from ..bound.message_passing import pass_up_index
from ..schedule.relations import Fuse, Rebase, Split, Transform
from ..tir import op as tirop
from ..tir.expr import IntImm, cast


def _descendant_leaves(stage, roots) -> set:
    """ids of the leaf IterVars of ``stage`` derived from the IterVars ``roots``."""
    derived = {id(iv) for iv in roots}
    for rel in stage.relations:
        if isinstance(rel, Split) and id(rel.parent) in derived:
            derived |= {id(rel.outer), id(rel.inner)}
        elif isinstance(rel, Fuse) and (id(rel.outer) in derived or id(rel.inner) in derived):
            derived.add(id(rel.fused))
        elif isinstance(rel, Rebase) and id(rel.parent) in derived:
            derived.add(id(rel.rebased))
        elif isinstance(rel, Transform) and any(id(v) in derived for v in rel.original_vars):
            derived |= {id(v) for v in rel.transformed_vars}
    return {id(iv) for iv in stage.leaf_iter_vars if id(iv) in derived}


def _attached_at_or_below(stage, leaves: set) -> bool:
    """Whether another stage is computed at a leaf of ``stage`` at or inside the first of
    ``leaves`` (its region would be inferred from the unshifted loop values)."""
    order = [id(iv) for iv in stage.leaf_iter_vars]
    first = min((order.index(k) for k in leaves), default=len(order))
    sched = stage.schedule
    others = [] if sched is None else list(sched.stages) + list(getattr(sched, "groups", []))
    for st in others:
        if st is stage or st.attach_stage is not stage:
            continue
        iv = st.attach_ivar
        if iv is None or id(iv) not in order or order.index(id(iv)) >= first:
            return True
    return False


def shiftable(stage, rmap) -> list:
    """The Split relations of ``stage`` asking for ``tail="shift"`` that lowering shifts: a
    compute stage without reduction axes (recomputed points store the same values, nothing
    accumulates twice); the parent's range has constant extent ``n >= f`` (the shifted
    parent stays inside it, so what derives from it stays inside the stage's region), ``f`` the constant inner extent, and ``f`` does not
    divide ``n`` (otherwise there is no tail); no stage is computed at a loop the shift moves."""
    op = stage.op
    if getattr(op, "reduce_axis", None) or not hasattr(op, "body"):
        return []
    out = []
    for rel in stage.relations:
        if not isinstance(rel, Split) or getattr(rel, "tail", "guard") != "shift" or \
                rel.factor is None:
            continue
        p, ri = rmap.get(rel.parent), rmap.get(rel.inner)
        if p is None or ri is None or not isinstance(p.extent, IntImm) or \
                not isinstance(ri.extent, IntImm):
            continue
        n, f = int(p.extent.value), int(ri.extent.value)
        if f < 1 or n < f or n % f == 0:
            continue
        if _attached_at_or_below(stage, _descendant_leaves(stage, [rel.outer, rel.inner])):
            continue
        out.append(rel)
    return out


def pass_up_index_shifted(stage, rmap, value: dict, ana, shifted) -> None:
    """``pass_up_index`` (index expressions of every IterVar from the leaves' in ``value``),
    with each split in ``shifted`` giving its parent ``min(outer * f, n - f) + inner + min``
    instead of ``outer * f + inner + min``; what derives from that parent uses the shifted
    value."""
    shifted = {id(r) for r in shifted}
    for rel in reversed(stage.relations):
        if id(rel) not in shifted:
            pass_up_index(SimpleNamespace(relations=[rel]), rmap, value, ana)
            continue
        if rel.outer not in value or rel.inner not in value:
            continue
        p, f = rmap[rel.parent], rmap[rel.inner].extent
        dtype = p.extent.dtype
        last = IntImm(int(p.extent.value) - int(f.value), dtype)
        start = tirop.min(cast(dtype, value[rel.outer]) * cast(dtype, f), last)
        v = start + cast(dtype, value[rel.inner])
        if not (isinstance(p.min, IntImm) and p.min.value == 0):
            v = v + p.min
        value[rel.parent] = ana.simplify(v)
