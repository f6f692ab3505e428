"""Schedules: stages, IterVar relations, attachment and dataflow rewrites (TVM TE semantics)."""
from .relations import Relation, Split, Fuse, Rebase, Singleton, Transform
from .stage import Stage, AttachType, IterVarAttr
from .schedule import Schedule, create_schedule, read_graph


class _AxisSeparator:
    """Marker placed inside a transform_layout mapping's result list (RFC 0039)."""

    def __repr__(self):
        return "te.AXIS_SEPARATOR"


AXIS_SEPARATOR = _AxisSeparator()

__all__ = ["Relation", "Split", "Fuse", "Rebase", "Singleton", "Transform", "Stage", "AttachType",
           "IterVarAttr", "Schedule", "create_schedule", "read_graph", "AXIS_SEPARATOR"]
