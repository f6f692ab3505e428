"""ScheduleOps for ``te.scan`` (TVM's ScanOp ``BuildProvide`` / ``BuildRealize`` and the scan
steps of ScheduleOps).

A scan stage becomes::

    realize S[0 : T0 + steps, <spatial ranges>] {
      <init stages>                    -- injected at the scan_init_scope marker
      for t in [T0, T0 + steps):       -- the scan's time loop (its rebased leaf)
        <body stages, producers first> -- injected at the scan_update_scope marker
      <consumers of S>
    }

and then the state is one buffer: every store to and load from an ``init``, an ``update`` or a
state placeholder of the scan is a store to / load from ``S`` itself (their own realizes are
dropped), so ``update`` writes row ``t`` of ``S`` and reads of the state at ``t - 1`` read the
row written one step earlier (TVM's SchedulePostProc replacements).
"""
from __future__ import annotations

from ..errors import InternalError, TepadError
from ..schedule.stage import AttachType
from ..tensor.scan import ScanOp
from ..tir.expr import IntImm, ProducerLoad, Range, Var
from ..tir.functor import Mutator
from ..tir.stmt import (AttrStmt, Evaluate, For, ForKind, LetStmt, ProducerRealize,
                        ProducerStore, is_no_op, seq)
from ..bound.message_passing import pass_up_index

SCAN_INIT_SCOPE = "scan_init_scope"
SCAN_UPDATE_SCOPE = "scan_update_scope"


def scan_inits(s) -> dict:
    """``{id(init op): scan stage}`` for every init tensor of every scan of ``s``; an init
    shared by two scans is a TepadError."""
    owner = {}
    for st in s.stages:
        if not isinstance(st.op, ScanOp):
            continue
        for t in st.op.init:
            other = owner.get(id(t.op))
            if other is not None and other is not st:
                raise TepadError(f"{t.name} is the init of two scans ({other.name} and "
                                 f"{st.name}); give each scan its own init")
            owner[id(t.op)] = st
    return owner


def scan_state_outputs(s) -> dict:
    """``{state placeholder tensor: the scan's (current) output tensor}`` over the scans of
    ``s``: the tensors that stand for the same buffer."""
    out = {}
    for st in s.stages:
        if isinstance(st.op, ScanOp):
            for k, ph in enumerate(st.op.state_placeholder):
                out[ph] = st.op.output(k)
    return out


def make_scan_pipeline(stage, rmap, consumer, ana):
    """The realize of the scan's states around its init marker, time loop and ``consumer``."""
    op = stage.op
    value = {iv: iv.var for iv in stage.leaf_iter_vars}
    pass_up_index(stage, rmap, value, ana)
    step = AttrStmt(op, SCAN_UPDATE_SCOPE, op.scan_axis.var, Evaluate(0))
    if value[op.scan_axis] is not op.scan_axis.var:
        step = LetStmt(op.scan_axis.var, value[op.scan_axis], step)
    loops = step
    for iv in reversed(stage.leaf_iter_vars):
        r = rmap[iv]
        if isinstance(r.min, IntImm) and r.min.value == 0:
            loops = For(iv.var, r.min, r.extent, ForKind.SERIAL, loops)
        else:
            idx = Var(iv.name + ".idx", iv.var.dtype)
            loops = For(idx, IntImm(0, r.extent.dtype), r.extent, ForKind.SERIAL,
                        LetStmt(iv.var, r.min + idx, loops))
    provide = AttrStmt(op, SCAN_INIT_SCOPE, IntImm(0, "int32"), loops)
    body = provide if consumer is None else seq(provide, consumer)
    sdom = rmap[op.scan_axis]
    rows = Range.from_min_extent(IntImm(0, sdom.min.dtype), ana.simplify(sdom.min + sdom.extent))
    for k in reversed(range(op.num_outputs)):
        bounds = [rows] + [rmap[sp] for sp in op.spatial_axes_of(k)]
        body = ProducerRealize(op.output(k), bounds, IntImm(1, "bool"), body,
                               stage.scope or "")
    return body


class _InjectScanStep(Mutator):
    def __init__(self, stage, scan_op, key, rmap, ana, make_pipeline):
        self.stage, self.scan_op, self.key = stage, scan_op, key
        self.rmap, self.ana, self.make_pipeline = rmap, ana, make_pipeline
        self.found = 0

    def visit_AttrStmt(self, s):
        body = self.visit(s.body)
        if s.attr_key == self.key and s.node is self.scan_op:
            self.found += 1
            inner = None if is_no_op(body) else body
            body = self.make_pipeline(self.stage, self.rmap, inner, self.ana)
        if body is s.body:
            return s
        return AttrStmt(s.node, s.attr_key, s.value, body)


def scan_step_owner(stage, inits):
    """``(scan stage, marker key)`` when ``stage`` is computed at a step of a scan (its init,
    or a stage of its body), else None."""
    owner = inits.get(id(stage.op))
    if owner is not None:
        return owner, SCAN_INIT_SCOPE
    if stage.attach_type == AttachType.ScanUpdate:
        return stage.attach_stage, SCAN_UPDATE_SCOPE
    return None


def inject_scan_step(stage, owner, body, rmap, ana, make_pipeline):
    """``body`` with ``stage``'s pipeline (``make_pipeline(stage, rmap, consumer, ana)``) put at
    the init or update marker of its scan."""
    scan_stage, key = owner
    if body is None:
        raise InternalError(f"stage {stage.name}: its scan {scan_stage.name} was not built")
    m = _InjectScanStep(stage, scan_stage.op, key, rmap, ana, make_pipeline)
    body = m.visit(body)
    if m.found != 1:
        where = "init" if key == SCAN_INIT_SCOPE else "time step"
        raise TepadError(f"stage {stage.name}: found its place at the {where} of scan "
                         f"{scan_stage.name} {m.found} times in the loop nest (expected once; "
                         f"is {scan_stage.name} computed?)")
    return body


class _AliasState(Mutator):
    """Loads and stores of a scan's init/update/state tensors go to the scan's output; their
    realizes and the scan markers are dropped."""

    def __init__(self, alias):
        self.alias = alias

    def visit_ProducerRealize(self, s):
        body = self.visit(s.body)
        if s.producer in self.alias:
            return body
        if body is s.body:
            return s
        return ProducerRealize(s.producer, s.bounds, s.condition, body, s.storage_scope)

    def visit_ProducerStore(self, s):
        value, indices = self.visit(s.value), self.visit(s.indices)
        t = self.alias.get(s.producer, s.producer)
        if t is s.producer and value is s.value and indices is s.indices:
            return s
        return ProducerStore(t, value, indices)

    def visit_ProducerLoad(self, e):
        indices = self.visit(e.indices)
        t = self.alias.get(e.producer, e.producer)
        if t is e.producer and indices is e.indices:
            return e
        return ProducerLoad(t, indices)

    def visit_AttrStmt(self, s):
        if s.attr_key in (SCAN_INIT_SCOPE, SCAN_UPDATE_SCOPE):
            return self.visit(s.body)
        body = self.visit(s.body)
        node = self.alias.get(s.node, s.node) if _is_tensor_key(s.node) else s.node
        if body is s.body and node is s.node:
            return s
        return AttrStmt(node, s.attr_key, s.value, body)


def _is_tensor_key(x):
    return hasattr(x, "value_index") and hasattr(x, "op")


def alias_scan_state(body, s):
    """``body`` with every scan's init, update and state tensors replaced by the scan's output
    (one buffer per state) and the scan markers removed; unchanged without scans."""
    alias = {}
    for st in s.stages:
        if isinstance(st.op, ScanOp) and st.attach_type != AttachType.InlinedAlready:
            for k in range(st.op.num_outputs):
                out = st.op.output(k)
                for t in (st.op.init[k], st.op.update[k], st.op.state_placeholder[k]):
                    alias[t] = out
    if not alias:
        return body
    return _AliasState(alias).visit(body)


__all__ = ["SCAN_INIT_SCOPE", "SCAN_UPDATE_SCOPE", "scan_inits", "scan_state_outputs",
           "make_scan_pipeline", "scan_step_owner", "inject_scan_step", "alias_scan_state"]
