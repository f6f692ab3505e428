"""InferBound for ``te.scan`` (TVM's ScanOp ``PropBoundToInputs`` / ``GatherBound``).

A scan ``S`` over time ``t`` in ``[T0, T)`` stores its ``init`` at rows ``[0, T0)`` and its
``update`` at row ``t`` of every time step. Its stages relate to the rest as follows:

* the stages of its body (``AttachType.ScanUpdate``) sit inside the scan's time loop: their
  attach path is the scan's loops, so the scan asks its ``update`` for the single row ``t``
  (the time loop is not relaxed) and, along every spatial axis, for the scan's own range of
  that axis (below);
  body stages reading one another are bounded relative to that same step;
* the ``init`` stages sit outside the time loop: the scan asks them for rows ``[0, T0)``;
* the scan's own root ranges: the time axis runs from ``T0`` to the last row its consumers
  need (``scan_axis`` keeps its min); a spatial axis is sliced to what consumers need only
  where ``scan_fix_point_analysis`` proves it a fix point of the recurrence, else it is whole.

Exact (ISL) mode does not model the scan (its state is one buffer written by three tensors,
``init``, ``update`` and the state placeholder, at different rows), so ``infer_bound`` falls
back to interval mode for a schedule that holds a scan.
"""
from __future__ import annotations

from ..arith import Analyzer, IntSet, union
from ..schedule.scan_analysis import scan_fix_point_analysis, scan_get_body
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp
from ..tir.expr import IntImm, ProducerLoad, Range
from ..tir.functor import post_order_visit
from ..tir.op import max as max_expr, min as min_expr


def has_scan(s) -> bool:
    """Whether some stage of ``s`` is a scan."""
    return any(isinstance(st.op, ScanOp) for st in s.stages)


def scan_time_ranges(ops) -> dict:
    """``{body op: (min, extent)}``: the time steps (axis 0) at which each stage of a scan's
    body among ``ops`` is computed, for the read check.

    An ``update`` runs at the scan's steps ``[T0, T)``; another body stage at the steps of
    its consumers in the body shifted by the constant offset of their read (``up[t - 1]``:
    one step earlier). A body stage read by anything else, or at a time index that is not the
    reader's time plus a constant, gets no entry (its whole domain is checked)."""
    ana = Analyzer()
    out = {}
    for scan in ops:
        if not isinstance(scan, ScanOp):
            continue
        body = scan_get_body(scan)
        in_body = {id(op) for op in body}
        spans = {}          # id(op) -> [lo, hi) or None (unrestricted)
        for t in scan.update:
            spans[id(t.op)] = (scan.scan_axis.dom.min,
                               scan.scan_axis.dom.min + scan.scan_axis.dom.extent)
        dead = _unread(ops)
        readers = {}
        for op in ops:
            if id(op) in dead:
                continue        # inlined: its reads are checked where they were substituted
            for t in op.input_tensors:
                if id(t.op) in in_body:
                    readers.setdefault(id(t.op), []).append(op)
        for op in reversed(body):
            if not isinstance(op, ComputeOp) or not op.axis:
                continue
            if id(op) not in spans:
                spans[id(op)] = _span_from_readers(op, readers.get(id(op), []), in_body,
                                                   spans, scan, ana)
            span = spans[id(op)]
            if span is not None:
                lo, hi = ana.simplify(span[0]), ana.simplify(span[1])
                out[op] = (lo, ana.simplify(hi - lo))
        steps = (scan.scan_axis.dom.min, scan.scan_axis.dom.extent)
        for op in _inlined_state_readers(ops, scan, dead):
            out.setdefault(op, steps)
    return out


def _inlined_state_readers(ops, scan, dead):
    """Operations of ``dead`` (stages inlined into the scan's body: their reads now sit in
    the body stages, which are checked themselves) that read a state of ``scan``, directly or
    through other such operations: checked at the scan's steps, where their reads were
    substituted. (An output outside the scan that reads its state placeholder directly is
    counted here too: nothing reads it either.)"""
    states = {id(t.op) for t in scan.state_placeholder}
    found, changed = [], True
    while changed:
        changed = False
        for op in ops:
            if id(op) in dead and op not in found and any(
                    id(t.op) in states or t.op in found for t in op.input_tensors):
                found.append(op)
                changed = True
    return found


def _unread(ops) -> set:
    """ids of the compute operations of ``ops`` that nothing in ``ops`` reads, directly or
    through other such operations (inlined stages, and outputs)."""
    all_readers = {}
    for op in ops:
        for t in op.input_tensors:
            all_readers.setdefault(id(t.op), []).append(op)
    dead = set()
    changed = True
    while changed:
        changed = False
        for op in ops:
            if id(op) in dead or not isinstance(op, ComputeOp) or not op.axis:
                continue
            if all(id(r) in dead for r in all_readers.get(id(op), [])):
                dead.add(id(op))
                changed = True
    return dead


def _span_from_readers(op, readers, in_body, spans, scan, ana):
    """The hull of the steps at which ``readers`` read ``op`` (None: not a shifted step)."""
    lo = hi = None
    for r in readers:
        if r is scan:
            continue            # an init/update read by the scan itself: rows of the state
        if id(r) not in in_body or not isinstance(r, ComputeOp) or not r.axis or \
                spans.get(id(r)) is None:
            return None
        t = r.axis[0].var
        for idx in _time_indices(r, op):
            c = ana.simplify(idx - t)
            if not isinstance(c, IntImm):
                return None
            a, b = spans[id(r)][0] + c, spans[id(r)][1] + c
            lo = a if lo is None else min_expr(lo, a)
            hi = b if hi is None else max_expr(hi, b)
    if lo is None:
        return None
    return lo, hi


def _time_indices(reader, op):
    found = []

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer.op is op and n.indices:
            found.append(n.indices[0])
    for b in reader.body:
        post_order_visit(b, visit)
    return found


def scan_prop_bound_to_inputs(op: ScanOp, dom: dict, tmap: dict, rmap):
    """Phase 3 for a scan consumer: what it needs of its ``init`` and ``update`` tensors, given
    the IntSets ``dom`` of its root vars (``scan_axis`` and the spatial axes).

    Along a spatial axis the scan asks for its own range (``rmap``): the whole axis, or the
    slice its consumers need where the axis is a fix point, so what is computed is exactly
    what the state's realize holds."""
    dom = dict(dom)
    for sp in op.spatial_axis_:
        if sp in rmap:
            dom[sp.var] = IntSet.from_range(rmap[sp])
    for i in range(op.num_outputs):
        ini, up = op.init[i], op.update[i]
        spatial = op.spatial_axes_of(i)
        if ini in tmap:
            t0 = ini.shape[0]
            tmap[ini][0].append(IntSet.interval(IntImm(0, t0.dtype), t0 - 1))
        if up in tmap:
            tmap[up][0].append(dom[op.scan_axis.var])
        for k, sp in enumerate(spatial, start=1):
            for t in (ini, up):
                if t in tmap:
                    tmap[t][k].append(dom[sp.var])


def scan_gather_bound(stage, tmap: dict, rmap, ana):
    """Phase 4 for a scan stage: its time and spatial ranges from its consumers' requests."""
    op = stage.op
    outs = [op.output(k) for k in range(op.num_outputs)]
    sdom = op.scan_axis.dom
    times = [s for t in outs for s in tmap[t][0]]
    if times:
        r = union(times).cover_range(sdom)
        _, end = _clip(ana, sdom.min, r.min + r.extent, sdom)
        rmap[op.scan_axis] = Range.from_min_extent(sdom.min, ana.simplify(end - sdom.min))
    else:
        rmap[op.scan_axis] = sdom
    fix = scan_fix_point_analysis(op)
    for i, t in enumerate(outs):
        for k, sp in enumerate(op.spatial_axes_of(i), start=1):
            sets = tmap[t][k]
            if fix[sp].value and sets:
                r = union(sets).cover_range(sp.dom)
                lo, hi = _clip(ana, r.min, r.min + r.extent, sp.dom)
                rmap[sp] = Range.from_min_extent(ana.simplify(lo), ana.simplify(hi - lo))
            else:
                rmap[sp] = sp.dom


def _clip(ana, lo, hi, dom):
    """``[lo, hi)`` moved inside ``dom`` where it provably leaves it (a read outside the state
    happens only in an untaken branch: read_check refuses the others), so the time loop never
    runs past the end and no region has a negative extent; bounds that may or may not leave
    ``dom`` depending on the sizes are kept (the stages' own guards keep their stores inside
    the shape)."""
    dlo, dhi = dom.min, dom.min + dom.extent
    if ana.can_prove(lo < dlo):
        lo = dlo
    if ana.can_prove(lo > dhi):
        lo = dhi
    if ana.can_prove(hi > dhi):
        hi = dhi
    if ana.can_prove(hi < lo):
        hi = lo
    return lo, hi


__all__ = ["has_scan", "scan_time_ranges", "scan_prop_bound_to_inputs", "scan_gather_bound"]
