"""When ``rolling_buffer()`` is legal: a producer read through a window along one axis of its
only consumer, computed at a loop between the outer and inner parts of that axis' split."""
from __future__ import annotations

from ..arith.affine import affine_terms
from ..tir.expr import ProducerLoad
from ..tir.functor import collect_vars, post_order_visit
from .attach_points import consumers, effective_consumers, is_compute


def leaves_of(st, iv):
    """The leaf IterVars of ``st`` derived from ``iv`` through its relations."""
    out, todo, seen = [], [iv], set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if any(leaf is x for leaf in st.leaf_iter_vars):
            out.append(x)
            continue
        for r in st.relations:
            name = type(r).__name__
            if name == "Split" and r.parent is x:
                todo += [r.outer, r.inner]
            elif name == "Fuse" and (r.outer is x or r.inner is x):
                todo.append(r.fused)
            elif name == "Transform" and any(v is x for v in r.original_vars):
                todo += list(r.transformed_vars)
    return out


def alias_through_layouts(st, iv):
    """``iv`` itself, or the transformed IterVar that equals it (a permuting layout)."""
    x = iv
    while True:
        rel = next((r for r in st.relations if type(r).__name__ == "Transform" and
                    any(v is x for v in r.original_vars)), None)
        if rel is None:
            return x
        k = next(k for k, v in enumerate(rel.original_vars) if v is x)
        inv = rel.inverse[k]
        y = next((tv for tv in rel.transformed_vars if tv.var is inv), None)
        if y is None:
            return None
        x = y


def window_axes(c, p_op, inside_vars=None):
    """Data axes ``a`` of stage ``c`` such that ``c`` reads ``p_op`` with index ``a + offsets``
    on exactly one dimension (the offsets: constants and constant-extent reduction axes, in
    ``inside_vars`` when given, spanning more than one value) and ``a`` in no other one."""
    loads = []
    for b in c.op.body:
        post_order_visit(b, lambda n: loads.append(n) if isinstance(n, ProducerLoad) and
                         n.producer.op is p_op else None)
    if not loads:
        return []
    ndim = len(loads[0].indices)
    out = []
    for a in c.op.axis:
        dims = [d for d in range(ndim) if any(a.var in collect_vars(ld.indices[d])
                                              for ld in loads)]
        if len(dims) != 1:
            continue
        d = dims[0]
        # the region must be a box (exact bounds give non-box regions for stencils that
        # move along two dims at once, which rolling_buffer refuses by design)
        if len({tuple(str(e) for k, e in enumerate(ld.indices) if k != d)
                for ld in loads}) != 1:
            continue
        lo, hi, ok = None, None, True
        for ld in loads:
            f = affine_terms(ld.indices[d])
            if f is None or f[0].get(a.var) != 1:
                ok = False
                break
            l_, h_ = f[1], f[1]
            for v, coef in f[0].items():
                if v is a.var:
                    continue
                rv = next((r for r in c.op.reduce_axis if r.var is v), None)
                if rv is None or type(rv.dom.extent).__name__ != "IntImm" or \
                        (inside_vars is not None and v not in inside_vars):
                    ok = False
                    break
                span = coef * (int(rv.dom.extent.value) - 1)
                l_, h_ = l_ + min(0, span), h_ + max(0, span)
            if not ok:
                break
            lo = l_ if lo is None else min(lo, l_)
            hi = h_ if hi is None else max(hi, h_)
        if ok and hi > lo:
            out.append(a)
    return out


def rolling_producers(s, c):
    """Stages that could roll inside ``c``: ``(stage, axes of c it is read along)``."""
    out = []
    for p in s.stages:
        if not is_compute(p) or p.is_output or p.layout_transforms or p is c:
            continue
        if consumers(s, p) != [c]:
            continue
        axes = window_axes(c, p.op)
        if axes:
            out.append((p, axes))
    return out


def rolling_applicable(s, st, c=None, L=None):
    """Will ``st.rolling_buffer()`` be accepted (interval and exact bounds) when ``st`` is
    computed at ``c``'s loop ``L`` (default: where it is now)?

    Conservative: ``c`` is ``st``'s only consumer and is at the root; ``c`` reads ``st`` with
    index ``a + offsets`` on one dimension only (``window_axes``: a stencil or a window) where
    ``a`` is split once by a constant factor (or nparts of a constant extent), its outer loop
    at or outside ``L`` and its inner loop inside ``L``; the other variables of that dimension
    only have loops inside ``L``; the loops from the outer one down to ``L`` are serial or
    unrolled; ``st`` keeps its logical layout. Consecutive iterations of the outer loop then
    overlap by the offset span (the region min is ``outer * factor + k``). ``L`` may also be
    the inner loop itself when it sits right inside the outer one (min ``outer * factor +
    inner + k``: the window slides across both loops)."""
    if c is None:
        if st.attach_type.name != "Scope":
            return False
        c, L = st.attach_stage, st.attach_ivar
    if st.is_output or st.layout_transforms:
        return False
    if consumers(s, st) != [c] or effective_consumers(s, st) != [c]:
        return False
    if c.attach_type.name != "GroupRoot" or not is_compute(c):
        return False
    leaves = list(c.leaf_iter_vars)
    pos = {id(v): k for k, v in enumerate(leaves)}
    if id(L) not in pos:
        return False
    lpos = pos[id(L)]
    inside_vars = set()
    for iv in list(c.op.axis) + list(c.op.reduce_axis):
        ls = leaves_of(c, iv)
        if ls and all(pos[id(x)] > lpos for x in ls):
            inside_vars.add(iv.var)
    for a in window_axes(c, st.op, inside_vars):
        alias = alias_through_layouts(c, a)
        if alias is None:
            continue
        split = next((r for r in c.relations if type(r).__name__ == "Split" and
                      r.parent is alias), None)
        if split is None or id(split.outer) not in pos or id(split.inner) not in pos:
            continue
        at_inner = lpos == pos[id(split.inner)] == pos[id(split.outer)] + 1
        if not (pos[id(split.outer)] <= lpos < pos[id(split.inner)] or at_inner):
            # at the inner loop itself, right inside the outer one: the region min is
            # outer * factor + inner + k and rolls across both loops
            continue
        ext = alias.dom.extent if alias.dom is not None else None
        ext = int(ext.value) if type(ext).__name__ == "IntImm" else None
        if split.factor is None:
            if ext is None:
                continue
            n_outer = min(int(getattr(split.nparts, "value", split.nparts)), ext)
        else:
            f = int(getattr(split.factor, "value", split.factor))
            n_outer = None if ext is None else -(-ext // f)
        if n_outer is not None and n_outer < 2:
            # one iteration: the loop disappears and nothing rolls; tepad refuses that
            # ("no dimension overlaps"), a degenerate case reported, not drawn
            continue
        if any(c.leaf_kind(x) is not None and c.leaf_kind(x).name in
               ("Vectorized", "Parallelized")
               for x in leaves[pos[id(split.outer)]:lpos + 1]):
            continue
        return True
    return False


__all__ = ["leaves_of", "alias_through_layouts", "window_axes", "rolling_producers",
           "rolling_applicable"]
