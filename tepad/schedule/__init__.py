"""Schedules: stages, IterVar relations, attachment and dataflow rewrites (TVM TE semantics)."""
from .relations import Relation, Split, Fuse, Rebase, Singleton, Transform
from .stage import Stage, AttachType, IterVarAttr
from .schedule import Schedule, create_schedule, read_graph
from .group import GroupStage
from ..tir.buffer import AXIS_SEPARATOR

__all__ = ["Relation", "Split", "Fuse", "Rebase", "Singleton", "Transform", "Stage", "AttachType",
           "IterVarAttr", "GroupStage", "Schedule", "create_schedule", "read_graph", "AXIS_SEPARATOR"]
