"""``te.schedule``: TVM's module of that name: ``InferBound``, ``ScheduleOps``, the read-graph
helpers (``CreateReadGraph``, ``PostDFSOrder``, ``CreateAttachPath``, ``AutoInlineElemWise`` /
``Broadcast`` / ``Injective``, ``SchedulePostProcToPrimFunc``), the scan analyses
(``ScanGetBody``, ``ScanFixPointAnalysis``) and the IterVar relation classes (``Split``,
``Fuse``, ``Singleton``, ...)."""
from ..bound import infer_bound
from ..lower.schedule_ops import schedule_ops
from ..lower.to_primfunc import postproc_to_primfunc
from ..runtime.container import Map
from ..schedule import (Fuse, Rebase, Relation, Schedule, Singleton, Split,  # noqa: F401
                        Stage, Transform, create_schedule)
from ..schedule.schedule import dataflow_graph, post_dfs_order
from ..schedule.scan_analysis import scan_fix_point_analysis, scan_get_body
from ..bound.attach_path import attach_paths
from ..schedule.stage import AttachType
from ..tensor import ComputeOp
from ..tir.buffer import Buffer  # noqa: F401 - TVM name (te.schedule.Buffer)
from ..tir.buffer import AXIS_SEPARATOR  # noqa: F401 - TVM name
from ..tir.expr import ProducerLoad
from ..tir.functor import post_order_visit
from ..tir.itervar import IterVar  # noqa: F401 - TVM name
from ..tensor.tensor_intrin import TensorIntrin  # noqa: F401 - TVM name


def InferBound(s):  # noqa: N802 - TVM name
    """A ``Map`` (a dict) IterVar -> tir.Range for every IterVar of every stage (interval
    mode).

    Like TVM, call it on a normalized schedule (``s = s.normalize()``)."""
    return Map(infer_bound(s))


def ScheduleOps(s, bounds):  # noqa: N802 - TVM name
    """The loop-nest statement of the schedule for the given bounds."""
    return schedule_ops(s, bounds)


def SchedulePostProcToPrimFunc(arg_list, body, bindings):  # noqa: N802 - TVM name
    """A PrimFunc of the statement ``body`` (ScheduleOps' output or a hand-built statement):
    tensors become the Buffers ``bindings`` gives them; ``arg_list`` (Buffers, Tensors, Vars)
    are its parameters."""
    return postproc_to_primfunc(arg_list, body, bindings)


def CreateReadGraph(roots):  # noqa: N802 - TVM name
    """A ``Map`` operation -> the tensors it reads, for every operation ``roots`` reach."""
    g = dataflow_graph([getattr(r, "op", r) for r in roots])
    return Map({op: list(op.input_tensors) for op in g.nodes})


def PostDFSOrder(roots, g=None):  # noqa: N802 - TVM name
    """The operations ``roots`` reach, every producer before its consumers."""
    return post_dfs_order([getattr(r, "op", r) for r in roots])


def ScanGetBody(scan_op):  # noqa: N802 - TVM name
    """The operations of a scan's body (between its state placeholders / inputs and its
    updates), producers first."""
    return list(scan_get_body(scan_op))


def ScanFixPointAnalysis(scan_op):  # noqa: N802 - TVM name
    """A ``Map`` spatial IterVar of the scan -> IntImm 1 (a fix point of the recurrence: it
    may be sliced) or 0."""
    return Map(scan_fix_point_analysis(scan_op))


def CreateAttachPath(s):  # noqa: N802 - TVM name
    """A ``Map`` operation -> the leaf IterVars of the loops enclosing its stage, innermost
    first (a stage of a scan's body is inside the scan's time loop)."""
    return Map(attach_paths(s))


def _is_elementwise(op) -> bool:
    """Every read indexes its tensor with exactly this op's axes, in order, and no reduce."""
    if not isinstance(op, ComputeOp) or op.reduce_axis:
        return False
    axes = [iv.var for iv in op.axis]
    ok = [True]

    def visit(n):
        if isinstance(n, ProducerLoad) and (
                len(n.indices) != len(axes) or
                any(i is not v for i, v in zip(n.indices, axes))):
            ok[0] = False
    for b in op.body:
        post_order_visit(b, visit)
    return ok[0]


def _inlinable(st) -> bool:
    """A single-output, non-output compute stage nobody has scheduled yet (TVM's
    ``!is_scheduled()``: at the root, no split/fuse/...), without a reduction."""
    return (not st.is_output and isinstance(st.op, ComputeOp) and st.op.num_outputs == 1 and
            not st.op.reduce_axis and st.attach_type == AttachType.GroupRoot and
            not st.relations)


def AutoInlineElemWise(s):  # noqa: N802 - TVM name
    """Inline every non-output elementwise stage into its consumers (TVM's helper)."""
    for st in s.stages:
        if _inlinable(st) and _is_elementwise(st.op):
            st.compute_inline()


def AutoInlineBroadcast(s):  # noqa: N802 - TVM name
    """Inline every unscheduled non-output stage without a reduction (TVM: elementwise or
    broadcast; TVM's broadcast test accepts every such compute, and so does tepad)."""
    for st in s.stages:
        if _inlinable(st):
            st.compute_inline()


def AutoInlineInjective(s):  # noqa: N802 - TVM name
    """Inline every unscheduled non-output injective stage (a compute without a
    reduction)."""
    for st in s.stages:
        if _inlinable(st):
            st.compute_inline()
