"""``te.schedule``: TVM's module of that name, with its ``InferBound`` and ``ScheduleOps``."""
from ..schedule import Schedule, Stage, create_schedule  # noqa: F401 - TVM names
from ..bound import infer_bound
from ..lower.schedule_ops import schedule_ops


def InferBound(s):  # noqa: N802 - TVM name
    """Dict IterVar -> tir.Range for every IterVar of every stage (interval mode).

    Like TVM, call it on a normalized schedule (``s = s.normalize()``)."""
    return dict(infer_bound(s))


def ScheduleOps(s, bounds):  # noqa: N802 - TVM name
    """The loop-nest statement of the schedule for the given bounds."""
    return schedule_ops(s, bounds)
