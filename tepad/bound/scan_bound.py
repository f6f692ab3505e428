"""InferBound for ``te.scan`` (TVM's ScanOp ``PropBoundToInputs`` / ``GatherBound``).

A scan ``S`` over time ``t`` in ``[T0, T)`` stores its ``init`` at rows ``[0, T0)`` and its
``update`` at row ``t`` of every time step. Its stages relate to the rest as follows:

* the stages of its body (``AttachType.ScanUpdate``) sit inside the scan's time loop: their
  attach path is the scan's loops, so the scan asks its ``update`` for the single row ``t``
  (the time loop is not relaxed) and, along every spatial axis, for the whole extent;
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
        readers = {}
        for op in ops:
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
    return out


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


def scan_prop_bound_to_inputs(op: ScanOp, dom: dict, tmap: dict):
    """Phase 3 for a scan consumer: what it needs of its ``init`` and ``update`` tensors, given
    the IntSets ``dom`` of its root vars (``scan_axis`` and the spatial axes)."""
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
        rmap[op.scan_axis] = Range.from_min_extent(
            sdom.min, ana.simplify(r.min + r.extent - sdom.min))
    else:
        rmap[op.scan_axis] = sdom
    fix = scan_fix_point_analysis(op)
    for i, t in enumerate(outs):
        for k, sp in enumerate(op.spatial_axes_of(i), start=1):
            sets = tmap[t][k]
            if fix[sp].value and sets:
                r = union(sets).cover_range(sp.dom)
                rmap[sp] = Range.from_min_extent(ana.simplify(r.min), ana.simplify(r.extent))
            else:
                rmap[sp] = sp.dom


__all__ = ["has_scan", "scan_time_ranges", "scan_prop_bound_to_inputs", "scan_gather_bound"]
