"""Which input may share its memory with an output: ``Module`` refuses every other aliasing.

Passing one array as an input and an output (``mod(a, a)``) is safe only when each output
element is computed from the input element at the same position, before anything else
reads that input element. tepad allows it for the simplest such kernel and refuses the rest:
the schedule has a single compute stage, without a reduction, and every read of the input in
its body is at exactly the stage's own indices (``B[i, j] = f(A[i, j], C[i + 1, j])`` lets
``A``, not ``C``, share memory with ``B``), with the same shape and dtype, and neither has a
``transform_layout``. Modules built from a lowered PrimFunc (no schedule to read) and GPU
modules take no shared memory between an input and an output at all.
"""
from __future__ import annotations

from ..schedule import Schedule
from ..schedule.stage import AttachType
from ..tensor.tensor import ComputeOp, PlaceholderOp
from ..tir.expr import ProducerLoad
from ..tir.functor import post_order_visit


def _reads_only_in_place(op: ComputeOp, tensor) -> bool:
    axes = [iv.var for iv in op.axis]
    ok = [True]

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer == tensor:
            idx = list(n.indices)
            if len(idx) != len(axes) or any(a is not b for a, b in zip(idx, axes)):
                ok[0] = False
    for b in op.body:
        post_order_visit(b, visit)
    return ok[0]


def inplace_pairs(s_or_func, args) -> frozenset:
    """``{(input position, output position)}`` of the arguments that may be one array (see the
    module docstring); empty for anything but a schedule with one elementwise compute stage."""
    if not isinstance(s_or_func, Schedule) or not args:
        return frozenset()
    computes = [st for st in s_or_func.stages if not isinstance(st.op, PlaceholderOp)
                and st.attach_type != AttachType.InlinedAlready]
    if len(computes) != 1 or not isinstance(computes[0].op, ComputeOp):
        return frozenset()
    op = computes[0].op
    if computes[0].layout_transforms or op.reduce_axis or any(not isinstance(t.op, PlaceholderOp) for t in op.input_tensors):
        return frozenset()
    tensors = [a for a in args if hasattr(a, "op")]
    if len(tensors) != len(args):
        return frozenset()
    stages = {st.op: st for st in s_or_func.stages}   # an unread argument has no stage
    out = set()
    for o, t_out in enumerate(args):
        if t_out.op is not op:
            continue
        for i, t_in in enumerate(args):
            if not isinstance(t_in.op, PlaceholderOp) or t_in.dtype != t_out.dtype or \
                    (t_in.op in stages and stages[t_in.op].layout_transforms) or \
                    [str(d) for d in t_in.shape] != [str(d) for d in t_out.shape]:
                continue
            if _reads_only_in_place(op, t_in):
                out.add((i, o))
    return frozenset(out)


__all__ = ["inplace_pairs"]
