"""Graph facts about a scan: its body and which of its spatial axes are fix points.

The body of a scan (TVM's ``ScanGetBody``) is every operation on a path from a state
placeholder (or one of the scan's ``inputs``) to an ``update`` tensor: the operations that
must be recomputed at every time step. ``scan_fix_point_analysis`` (TVM's
``ScanFixPointAnalysis``) says, per spatial axis of the state, whether element ``i`` of the
state at step ``t`` depends only on element ``i`` at earlier steps: only then may a consumer's
request slice that axis.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp
from ..tir.expr import IntImm, ProducerLoad, Var
from ..tir.functor import post_order_visit
from .group import GroupStage
from .stage import AttachType


def sub_graph(outputs, boundary_tensors, include_boundary=False) -> list:
    """Operations on a path from a boundary tensor's op to an output, producers first (the
    order of a post-order walk from the outputs, inputs in the order each op reads them)."""
    boundary = {id(t.op) for t in boundary_tensors}
    state: dict = {}            # id(op) -> whether it reaches the boundary
    result = []
    for out in outputs:
        stack = [(out.op, 0, False)]
        while stack:
            op, k, reach = stack.pop()
            if k == 0:
                if id(op) in state:
                    continue
                if id(op) in boundary:
                    state[id(op)] = True
                    if include_boundary:
                        result.append(op)
                    continue
                state[id(op)] = False      # visiting: a cycle cannot reach through itself
            ins = op.input_tensors
            if k < len(ins):
                stack.append((op, k + 1, reach))
                child = ins[k].op
                if id(child) not in state:
                    stack.append((child, 0, False))
                else:
                    stack[-1] = (op, k + 1, reach or state[id(child)])
                continue
            reach = reach or any(state.get(id(t.op), False) for t in ins)
            state[id(op)] = reach
            if reach:
                result.append(op)
    return result


def _check_scan(scan_op, what):
    op = getattr(scan_op, "op", scan_op)
    if not isinstance(op, ScanOp):
        raise TepadError(f"{what} expects a te.scan operation, got {scan_op!r}")
    return op


def scan_get_body(scan_op) -> list:
    """The operations of the scan's body (its updates and every operation between them and
    the state placeholders or ``inputs``), producers first; the scan itself and the
    placeholders are not included."""
    op = _check_scan(scan_op, "ScanGetBody")
    return sub_graph(op.update, op.state_placeholder + op.inputs, False)


def mark_scan_bodies(s):
    """Attach the stages of every scan's body at that scan (``AttachType.ScanUpdate``): they
    are computed inside its time loop, one step at a time. As in TVM, they form a group of
    ``s.groups`` (``s[update].group``) attached to the scan. Called when the
    schedule is made and after each dataflow rewrite (a stage it adds to a body joins it); a
    body stage the user attached elsewhere (compute_at, inline) keeps that attachment.

    TepadError: a scan inside another scan's body (nested scans are not supported); a body
    stage claimed by two scans; an operation outside a scan that reads the
    scan's state placeholder, init, update or another stage of its body (those hold values
    only inside the scan: read the scan's output instead); an init or update that is an
    output."""
    for st in s.stages:
        if not isinstance(st.op, ScanOp) or st.attach_type == AttachType.InlinedAlready:
            continue
        scan = st.op
        body = scan_get_body(scan)
        nested = [op for op in body if isinstance(op, ScanOp)]
        if nested:
            raise TepadError(f"scan {nested[0].name} is in the body of scan {st.name} (it reads "
                             f"{st.name}'s state); nested scans are not supported: write the "
                             "inner recurrence as stages of the outer scan's body")
        group = _scan_group(s, st)
        for op in body:
            body_st = s.stage_map.get(op)
            if body_st is None:
                continue
            if body_st.scan_stage is not None and body_st.scan_stage is not st:
                raise TepadError(f"stage {body_st.name} is in the body of two scans "
                                 f"({body_st.scan_stage.name} and {st.name}); a tensor that "
                                 "reads a scan's state belongs to that scan only")
            body_st.scan_stage = st
            if body_st.group is None:
                body_st.group = group
                group.num_child_stages += 1
            if body_st.attach_type == AttachType.GroupRoot:
                body_st.attach_type = AttachType.ScanUpdate
                body_st.attach_stage = st
        _check_scan_reads(s, st, body)


def _scan_group(s, scan_stage):
    """The group of the scan's body (TVM's create_schedule makes one per scan, attached to
    the scan with ``AttachType.ScanUpdate``); made on first use, in ``s.groups``."""
    for g in s.groups:
        if g.attach_type == AttachType.ScanUpdate and g.attach_stage is scan_stage:
            return g
    g = GroupStage(s, None, name=f"{scan_stage.name}.body")
    g.attach_type = AttachType.ScanUpdate
    g.attach_stage = scan_stage
    s.groups.append(g)
    return g


def _check_scan_reads(s, scan_stage, body):
    scan = scan_stage.op
    inside = {id(op) for op in body} | {id(scan)}
    private = {}
    for t in scan.state_placeholder:
        private[t] = "its state placeholder"
    for t in scan.init:
        private[t] = "its init"
    for op in body:
        for k in range(op.num_outputs):
            private[op.output(k)] = "a stage of its body"
    for t in scan.update:
        private[t] = "its update"
    for st in s.stages:
        if st.is_output and any(st.op.output(k) in private for k in range(st.op.num_outputs)):
            raise TepadError(f"stage {st.name} is an output but is stored in the state of scan "
                             f"{scan_stage.name}; make the scan's output the output instead")
        if id(st.op) in inside or st.attach_type == AttachType.InlinedAlready:
            continue
        for t in st.op.input_tensors:
            what = private.get(t)
            if what is not None:
                raise TepadError(
                    f"stage {st.name} reads {t.name}, {what} of scan {scan_stage.name}, from "
                    f"outside the scan; those values exist only inside the scan's time loop: "
                    f"read the scan's output {scan_stage.name} instead")


def _key(t, k):
    return (t, k)


def scan_fix_point_analysis(scan_op) -> dict:
    """``{spatial IterVar: IntImm(1 or 0)}``: 1 where the axis is a fix point of the
    recurrence (element ``i`` of the state at step ``t`` reads only element ``i`` of the
    states along that axis, through every body operation), 0 otherwise."""
    scan = _check_scan(scan_op, "ScanFixPointAnalysis")
    body = scan_get_body(scan)
    exact: dict = {}          # (tensor, dim) -> the spatial IterVar it provably follows
    failed: set = set()       # ids of spatial IterVars that do not
    for i, st in enumerate(scan.state_placeholder):
        for k, sp in enumerate(scan.spatial_axes_of(i), start=1):
            exact[_key(st, k)] = sp

    def merge(dst, src):
        if src not in exact:
            return
        if dst not in exact:
            exact[dst] = exact[src]
        elif exact[dst] is not exact[src]:
            failed.add(id(exact[dst]))
            failed.add(id(exact[src]))

    for op in body:
        if isinstance(op, ScanOp):
            for i in range(op.num_outputs):
                t = op.output(i)
                for k in range(1, len(op.update[i].shape)):
                    merge(_key(t, k), _key(op.update[i], k))
                    merge(_key(t, k), _key(op.init[i], k))
        elif isinstance(op, ComputeOp):
            axis_of = {id(iv.var): d for d, iv in enumerate(op.axis)}

            def visit(n, op=op, axis_of=axis_of):
                if not isinstance(n, ProducerLoad):
                    return
                for d, idx in enumerate(n.indices):
                    src = _key(n.producer, d)
                    if isinstance(idx, Var) and id(idx) in axis_of:
                        for j in range(op.num_outputs):
                            merge(_key(op.output(j), axis_of[id(idx)]), src)
                    elif src in exact:
                        failed.add(id(exact[src]))
            for b in op.body:
                post_order_visit(b, visit)

    reach = None
    holder_dims = {_key(st, k) for st in scan.state_placeholder for k in range(len(st.shape))}
    out = {}
    for i, (up, st) in enumerate(zip(scan.update, scan.state_placeholder)):
        for k, sp in enumerate(scan.spatial_axes_of(i), start=1):
            key, target = _key(up, k), _key(st, k)
            ok = id(sp) not in failed and exact.get(key) is sp
            if ok:
                if reach is None:
                    reach = _reach_graph(body)
                ok = _no_interference(reach, key, target, holder_dims)
            out[sp] = IntImm(1 if ok else 0, "int32")
    return out


def _reach_graph(ops) -> dict:
    """(tensor, dim) -> the (tensor, dim)s of body tensors its index expressions read."""
    in_body = {id(op) for op in ops}
    reach: dict = {}
    for op in ops:
        if isinstance(op, ScanOp):
            for i in range(op.num_outputs):
                t = op.output(i)
                for k in range(1, len(op.update[i].shape)):
                    reach.setdefault(_key(t, k), []).extend(
                        [_key(op.update[i], k), _key(op.init[i], k)])
        elif isinstance(op, ComputeOp):
            t = op.output(0)
            dim_of = {}
            for d, iv in enumerate(op.axis):
                dim_of[id(iv.var)] = _key(t, d)
                reach[_key(t, d)] = []

            def visit(n, dim_of=dim_of):
                if not isinstance(n, ProducerLoad) or id(n.producer.op) not in in_body:
                    return
                for d, idx in enumerate(n.indices):
                    dst = _key(n.producer, d)

                    def push(v, dst=dst):
                        if isinstance(v, Var) and id(v) in dim_of:
                            reach[dim_of[id(v)]].append(dst)
                    post_order_visit(idx, push)
            for b in op.body:
                post_order_visit(b, visit)
    return reach


def _no_interference(reach, key, target, holder_dims) -> bool:
    """Whether the dimensions reachable from ``key`` reach no state dimension but
    ``target``."""
    seen, stack = {key}, [key]
    while stack:
        k = stack[-1]
        if k != target and k in holder_dims:
            return False
        stack.pop()
        for kk in reach.get(k, ()):
            if kk not in seen:
                seen.add(kk)
                stack.append(kk)
    return True


__all__ = ["sub_graph", "scan_get_body", "scan_fix_point_analysis", "mark_scan_bodies"]
