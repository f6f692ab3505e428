"""Root offsets of deep stages as let variables (keeps deep compute_at chains linear).

A stage computed inside its consumer's loops, which are inside their consumer's loops, and so
on, starts its region at a sum with one term per enclosing tile loop:
``32*io_1 + 32*io_2 + ... + 32*io_k``. Written out, that sum appears in the stage's loops,
guards, realize bounds and in every bound derived from them, so a chain of N stages makes
O(N^2) expression nodes that the bound inference, the simplifier and LLVM walk again and
again. Halide names such values (``f.s0.y.min``) instead; so does this.

For lowering (``infer_bound(..., offset_lets=True)``), a stage at attach depth
``OFFSET_DEPTH`` or more whose root min is compound gets a fresh variable ``S.y.min`` for it:
the BoundMap's range starts at that variable, ``bmap.offset_lets[op]`` lists ``(var,
value)``, and ScheduleOps binds them by LetStmts around the stage's realize at its attach
point. The producers of the stage see the variable in its consumer's ranges, so their own
offsets are ``S.y.min + 32*io``: O(1) nodes each. The Analyzer knows each variable by the
constant range of its value.

A let variable is only visible inside its stage's attach point. So a stage gets one only
when everything its range can reach is inside: every compute stage read by it, or by a stage
attached (transitively) inside it, must itself be attached inside it (``closed_stages``).
GPU schedules (thread bindings may need relaxing), rolling buffers (their pass reads how the
region moves with the loop), layout transforms, scans, extern and tensorized stages keep
their expressions.
"""
from __future__ import annotations

from ..schedule.relations import Transform
from ..schedule.stage import AttachType
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp
from ..tir.expr import Add, IntImm, Range, Sub, Var
from ..tir.piecewise import is_piecewise

#: a stage with at least this many loops enclosing it may get offset lets (as
#: ``tepad.bound.interval.ABSTRACT_DEPTH``: shallower schedules lower as before)
OFFSET_DEPTH = 3


def enclosing_stages(stage) -> list:
    """The stages whose loops contain ``stage``'s (its compute_at chain), innermost first."""
    out, st = [], stage
    while st.attach_type == AttachType.Scope and st.attach_stage is not None:
        st = st.attach_stage
        out.append(st)
    return out


def closed_stages(s, ctx) -> dict:
    """``{id(stage): deep}`` for the stages of ``s`` that may get offset lets: plain compute
    stages computed at a loop, no rolling buffer or layout transform, whose subtree (the
    stages attached inside them, transitively) reads no compute stage attached outside it.
    ``deep``: ``OFFSET_DEPTH`` or more loops enclose the stage and other stages are attached
    inside it (whose bounds its mins flow into)."""
    if ctx.bind_map or any(isinstance(st.op, ScanOp) for st in s.stages):
        return {}
    by_op = {st.op: st for st in s.stages}
    inside = {}                                   # id(stage) -> stages attached within it
    for st in s.stages:
        for enc in enclosing_stages(st):
            inside.setdefault(id(enc), []).append(st)
    # the compute stages each stage reads (input_tensors walks the body: once per stage)
    reads = {}
    for st in s.stages:
        read = []
        for t in st.op.input_tensors:
            p = by_op.get(t.op)
            if p is not None and p.attach_type != AttachType.InlinedAlready and \
                    isinstance(p.op, ComputeOp):
                read.append(p)
        reads[id(st)] = read
    out = {}
    for st in s.stages:
        if st.attach_type != AttachType.Scope or st.is_rolling or \
                type(st.op) is not ComputeOp or \
                any(isinstance(r, Transform) for r in st.relations):
            continue
        members = [st] + inside.get(id(st), [])
        ids = {id(m) for m in members}
        if all(id(p) in ids for m in members for p in reads[id(m)]):
            # a stage with none inside: its min flows into no other bound
            out[id(st)] = id(st) in inside and len(ctx.paths[id(st)]) >= OFFSET_DEPTH
    return out


def _var_terms(e) -> int:
    """How many summands of ``e``'s top-level ``+``/``-`` are not constants."""
    if isinstance(e, (Add, Sub)):
        return _var_terms(e.a) + _var_terms(e.b)
    return 0 if isinstance(e, IntImm) else 1


def name_root_offsets(stage, rmap, ana, eligible) -> list:
    """Replace each root min of ``stage`` that is piecewise (a select or min/max: exact mode's
    bounds of clipped tiles), or, for a deep stage, sums two or more non-constant terms (if ``eligible`` holds its id) by a let
    variable, as the module docstring says; ``[(var, value, lo, hi)]`` for the new ones
    (``lo``/``hi``: the value's constant range, which ``ana`` now knows the variable by).
    A min whose constant range is unknown keeps its expression."""
    deep = eligible.get(id(stage))
    if deep is None:
        return []
    made = []
    lets = rmap.offset_lets.setdefault(stage.op, [])
    for iv in stage.op.axis:
        r = rmap[iv]
        m = r.min
        if not (is_piecewise(m) or deep and _var_terms(m) >= 2):
            continue
        b = ana.const_int_bound(m)
        lo, hi = b.min_value, b.max_value
        if not (isinstance(lo, int) and isinstance(hi, int)):
            continue
        v = Var(f"{stage.op.name}.{iv.var.name}.min", m.dtype)
        lets.append((v, m))
        rmap[iv] = Range.from_min_extent(v, r.extent)
        ana.bind(v, Range.from_min_extent(IntImm(lo, m.dtype), IntImm(hi - lo + 1, m.dtype)))
        made.append((v, m, lo, hi))
    if not lets:
        del rmap.offset_lets[stage.op]
    return made


__all__ = ["OFFSET_DEPTH", "closed_stages", "enclosing_stages", "name_root_offsets"]
