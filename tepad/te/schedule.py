"""``te.schedule``: TVM's module of that name, with its ``InferBound`` and ``ScheduleOps``."""
from ..schedule import Schedule, Stage, create_schedule  # noqa: F401 - TVM names
from ..bound import infer_bound
from ..lower.schedule_ops import schedule_ops
from ..runtime.container import Map


def InferBound(s):  # noqa: N802 - TVM name
    """A ``Map`` (a dict) IterVar -> tir.Range for every IterVar of every stage (interval
    mode).

    Like TVM, call it on a normalized schedule (``s = s.normalize()``)."""
    return Map(infer_bound(s))


def ScheduleOps(s, bounds):  # noqa: N802 - TVM name
    """The loop-nest statement of the schedule for the given bounds."""
    return schedule_ops(s, bounds)
