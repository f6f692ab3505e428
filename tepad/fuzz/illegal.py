"""Deliberately illegal schedule steps: each must be refused with a ``TepadError`` (when the
step is taken or at lower/build); ``Case.run(line, illegal=kind)`` records it.

Each ``_<kind>(d, s, st, se, stages)`` draws one step of its kind for the drawn stage ``st``
(code text ``se``) and may draw nothing when the schedule offers no such step.
"""
from __future__ import annotations

from .attach_points import attached_inside, effective_consumers, is_compute
from .tensorize import candidates


def illegal_step(d, s):
    """Draw one illegal step; if it was accepted (not refused at once), freeze the schedule
    (``d.frozen``) so that no later attachment can make it legal again."""
    n_refused = len(d.case.refused)
    n_illegal = len(d.case.illegal)
    _draw_one(d, s)
    if len(d.case.illegal) > n_illegal and len(d.case.refused) == n_refused:
        d.frozen = True


def _draw_one(d, s):
    src = d.src
    stages = [st for st in s.stages if is_compute(st)]
    kind = src.pick(KINDS)
    st = src.pick(stages)
    KINDS[kind](d, s, st, d.stage_expr(st), stages)


def _split_twice(d, s, st, se, stages):
    case = d.case
    rel = [r for r in st.relations if type(r).__name__ in ("Split", "Fuse")]
    if rel:
        r = rel[0]
        parent = getattr(r, "parent", None) or getattr(r, "outer", None)
        case.run(f"{se}.split({d.any_iv(st, parent)}, factor=2)", illegal="split_twice")
    elif st.leaf_iter_vars:
        iv = st.leaf_iter_vars[0]
        name = d.iv(st, iv)
        o, i = d.new_ivs(st, ("o", "i"))
        case.run(f"{o}, {i} = {se}.split({name}, factor=2)")
        d.bind_names(o, i)
        case.run(f"{se}.split({name}, factor=3)", illegal="split_twice")


def _compute_at_nonleaf(d, s, st, se, stages):
    src, case = d.src, d.case
    targets = [p for p in stages if p is not st and p.relations and
               any(type(r).__name__ == "Split" for r in p.relations)]
    if targets and not st.is_output:
        p = src.pick(targets)
        r = next(r for r in p.relations if type(r).__name__ == "Split")
        case.run(f"{se}.compute_at({d.stage_expr(p)}, {d.any_iv(p, r.parent)})",
                 illegal="compute_at_nonleaf")


def _compute_at_not_enclosing(d, s, st, se, stages):
    src, case = d.src, d.case
    if st.is_output:
        return
    cons = effective_consumers(s, st)
    roots = [c for c in cons if c.attach_type.name == "GroupRoot"]
    targets = [p for p in stages if p is not st and p.leaf_iter_vars and
               p.attach_type.name != "Inline" and any(c is not p for c in roots)
               and not attached_inside(p, st)]
    if targets:
        p = src.pick(targets)
        iv = src.pick(p.leaf_iter_vars)
        case.run(f"{se}.compute_at({d.stage_expr(p)}, {d.iv(p, iv)})",
                 illegal="compute_at_not_enclosing")


def _compute_at_cycle(d, s, st, se, stages):
    src, case = d.src, d.case
    inner = [x for x in stages if x.attach_type.name == "Scope"]
    if inner:
        x = src.pick(inner)
        p = x.attach_stage
        if p.is_output or not x.leaf_iter_vars:
            return
        case.run(f"{d.stage_expr(p)}.compute_at({d.stage_expr(x)}, "
                 f"{d.iv(x, x.leaf_iter_vars[0])})", illegal="compute_at_cycle")


def _reorder_foreign(d, s, st, se, stages):
    src, case = d.src, d.case
    others = [p for p in stages if p is not st and p.leaf_iter_vars]
    if others and st.leaf_iter_vars:
        p = src.pick(others)
        case.run(f"{se}.reorder({d.iv(p, p.leaf_iter_vars[0])}, "
                 f"{d.iv(st, st.leaf_iter_vars[0])})", illegal="reorder_foreign")


def _fuse_nonadjacent(d, s, st, se, stages):
    case = d.case
    if len(st.leaf_iter_vars) >= 3:
        a, b = st.leaf_iter_vars[0], st.leaf_iter_vars[2]
        case.run(f"{se}.fuse({d.iv(st, a)}, {d.iv(st, b)})", illegal="fuse_nonadjacent")


def _vectorize_reduce(d, s, st, se, stages):
    src, case = d.src, d.case
    reds = [iv for iv in st.leaf_iter_vars if iv.iter_type.name == "CommReduce"]
    if reds:
        what = src.pick(["vectorize", "parallel"])
        case.run(f"{se}.{what}({d.iv(st, reds[0])})", illegal="vectorize_reduce")


def _inline_output(d, s, st, se, stages):
    src, case = d.src, d.case
    outs = [x for x in stages if x.is_output]
    if not outs:
        return              # the outputs are scans, not compute stages
    x = src.pick(outs)
    case.run(f"{d.stage_expr(x)}.compute_inline()", illegal="inline_output")


def _inline_reduce(d, s, st, se, stages):
    src, case = d.src, d.case
    reds = [x for x in stages if x.op.reduce_axis and not x.is_output]
    if reds:
        case.run(f"{d.stage_expr(src.pick(reds))}.compute_inline()", illegal="inline_reduce")


def _cache_write_after_reduce_split(d, s, st, se, stages):
    # cache_write follows loop transforms of the data axes only
    case = d.case
    tname = d.tnames[id(st.origin_op)]
    reduce = set(st.op.reduce_axis)
    split = [iv for iv in st.leaf_iter_vars if iv not in reduce and
             iv.iter_type.name == "CommReduce"]
    if not split:
        roots = [iv for iv in st.leaf_iter_vars if iv in reduce]
        if not roots:
            return
        o, i = d.new_ivs(st, ("o", "i"))
        case.run(f"{o}, {i} = {se}.split({d.iv(st, roots[0])}, factor=2)")
        d.bind_names(o, i)
    case.run(f"{tname}_bad = s.cache_write({tname}, 'local')",
             illegal="cache_write_after_reduce_split")


def _rfactor_data_axis(d, s, st, se, stages):
    case = d.case
    data = [iv for iv in st.leaf_iter_vars if iv.iter_type.name == "DataPar"]
    if st.op.reduce_axis and data:
        tname = d.tnames[id(st.origin_op)]
        case.run(f"{tname}_badrf = s.rfactor({tname}, {d.iv(st, d.src.pick(data))})",
                 illegal="rfactor_data_axis")


def _compute_at_self(d, s, st, se, stages):
    case = d.case
    if st.leaf_iter_vars and not st.is_output:
        case.run(f"{se}.compute_at({se}, {d.iv(st, st.leaf_iter_vars[0])})",
                 illegal="compute_at_self")


def _attach_output(d, s, st, se, stages):
    src, case = d.src, d.case
    outs = [x for x in stages if x.is_output]
    if not outs:
        return              # the outputs are scans, not compute stages
    x = src.pick(outs)
    others = [p for p in stages if p is not x and p.leaf_iter_vars]
    if others:
        p = src.pick(others)
        case.run(f"{d.stage_expr(x)}.compute_at({d.stage_expr(p)}, "
                 f"{d.iv(p, p.leaf_iter_vars[0])})", illegal="attach_output")


def _rolling_root(d, s, st, se, stages):
    src, case = d.src, d.case
    # a rolling buffer needs a compute_at; at the root lower() refuses it (no later
    # attachment happens: the accepted step freezes the schedule)
    # (a member of a create_group is attached where its group is, not at the root)
    roots = [x for x in stages if not x.is_output and x.attach_type.name == "GroupRoot"
             and getattr(x, "group", None) is None]
    if roots:
        case.run(f"{d.stage_expr(src.pick(roots))}.rolling_buffer()", illegal="rolling_root")


def _rolling_output(d, s, st, se, stages):
    src, case = d.src, d.case
    outs = [x for x in stages if x.is_output]
    if outs:                 # (none when the only output is a te.scan)
        case.run(f"{d.stage_expr(src.pick(outs))}.rolling_buffer()", illegal="rolling_output")


def _layout_not_injective(d, s, st, se, stages):
    src, case = d.src, d.case
    cands = []
    for x in s.stages:
        if id(x.origin_op) not in d.tnames or x.attach_type.name == "Inline":
            continue
        shape = d.ns[d.tnames[id(x.origin_op)]].shape
        for dim, e in enumerate(shape):
            if type(e).__name__ == "IntImm" and int(e.value) >= 3:
                cands.append((x, dim, len(shape)))
    if cands:
        x, dim, nd = src.pick(cands)
        names = ["i", "j", "k", "l"][:nd]
        outs = [f"{v} % 2" if k == dim else v for k, v in enumerate(names)]
        case.run(f"{d.stage_expr(x)}.transform_layout(lambda {', '.join(names)}: "
                 f"[{', '.join(outs)}])", illegal="layout_not_injective")


def _layout_pad_reads_other(d, s, st, se, stages):
    src, case = d.src, d.case
    a = case.placeholders[0].name if case.placeholders else None
    cands = [x for x in stages if x.attach_type.name != "Inline"]
    if a is not None and cands:
        x = src.pick(cands)
        nd = len(d.ns[d.tnames[id(x.origin_op)]].shape)
        names = ["i", "j", "k", "l"][:nd]
        zeros = ", ".join("0" for _ in d.ns[a].shape)
        case.run(f"{d.stage_expr(x)}.transform_layout(lambda {', '.join(names)}: "
                 f"[{', '.join(reversed(names))}], pad_value=lambda *ix: {a}[{zeros}])",
                 illegal="layout_pad_reads_other")


def _bind_cpu(d, s, st, se, stages):
    # tepad builds for the CPU only: lowering emits a thread_extent for a bound loop and the
    # llvm build refuses it (an inlined stage emits no loop, so no refusal). Only once the
    # stage's loops are drawn (a later split or fuse of the bound axis is itself refused).
    if st.attach_type.name in ("Inline", "InlinedAlready") or not st.leaf_iter_vars or \
            id(st) not in d.looped:
        return
    iv = d.src.pick(st.leaf_iter_vars)
    tag = d.src.pick(["threadIdx.x", "blockIdx.x"])
    d.case.run(f"{se}.bind({d.iv(st, iv)}, te.thread_axis({tag!r}))", illegal="bind_cpu")


def _scope_unknown(d, s, st, se, stages):
    d.case.run(f"{se}.set_scope('texture')", illegal="scope_unknown")


# the kinds in the order they are drawn (a choice indexes this order)
def _tensorize_mismatch(d, s, st, se, stages):
    # an intrinsic computing the stage's definition plus one: refused when lowering
    cands = [c for c in candidates(s) if id(c) in d.looped]
    if not cands:
        return
    c = d.src.pick(cands)
    ce = d.stage_expr(c)
    leaf = d.iv(c, c.leaf_iter_vars[-1])
    nm = f"{d.tnames[id(c.origin_op)]}_wrong"
    d.case.run("from tepad.fuzz.tensorize import matching_intrinsic")
    d.case.run(f"{nm} = matching_intrinsic({ce}, {d.src.pick([1, 2, 4])}, perturb=True)")
    d.case.run(f"{ce}.tensorize({leaf}, {nm})", illegal="tensorize_mismatch")


KINDS = {
    "split_twice": _split_twice,
    "compute_at_nonleaf": _compute_at_nonleaf,
    "compute_at_not_enclosing": _compute_at_not_enclosing,
    "compute_at_cycle": _compute_at_cycle,
    "reorder_foreign": _reorder_foreign,
    "fuse_nonadjacent": _fuse_nonadjacent,
    "vectorize_reduce": _vectorize_reduce,
    "inline_output": _inline_output,
    "inline_reduce": _inline_reduce,
    "cache_write_after_reduce_split": _cache_write_after_reduce_split,
    "rfactor_data_axis": _rfactor_data_axis,
    "compute_at_self": _compute_at_self,
    "attach_output": _attach_output,
    "rolling_root": _rolling_root,
    "rolling_output": _rolling_output,
    "layout_not_injective": _layout_not_injective,
    "layout_pad_reads_other": _layout_pad_reads_other,
    "bind_cpu": _bind_cpu,
    "scope_unknown": _scope_unknown,
    "tensorize_mismatch": _tensorize_mismatch,
}

__all__ = ["illegal_step", "KINDS"]
