"""``te.schedule.InferBound`` / ``te.schedule.ScheduleOps``: TVM-compatible aliases."""
from ..schedule import Schedule, Stage, create_schedule  # noqa: F401


def InferBound(s):  # noqa: N802 - TVM name
    """Dict IterVar -> tir.Range for every IterVar of every stage (interval mode).

    Like TVM, call it on a normalized schedule (``s = s.normalize()``)."""
    from ..bound import infer_bound
    return dict(infer_bound(s))


def ScheduleOps(s, bounds):  # noqa: N802 - TVM name
    """The loop-nest statement of the schedule for the given bounds."""
    from ..lower.schedule_ops import schedule_ops
    return schedule_ops(s, bounds)
