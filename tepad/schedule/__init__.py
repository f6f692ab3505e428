"""Schedules: stages, IterVar relations, attachment and dataflow rewrites (TVM TE semantics)."""
from .relations import Relation, Split, Fuse, Rebase, Singleton, Transform
from .stage import Stage, AttachType, IterVarAttr
from .schedule import Schedule, create_schedule, read_graph
from ..tir.buffer import AXIS_SEPARATOR

__all__ = ["Relation", "Split", "Fuse", "Rebase", "Singleton", "Transform", "Stage", "AttachType",
           "IterVarAttr", "Schedule", "create_schedule", "read_graph", "AXIS_SEPARATOR"]
