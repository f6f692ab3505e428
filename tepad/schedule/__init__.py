"""Schedules: stages, IterVar relations, attachment and dataflow rewrites (TVM TE semantics)."""
from .relations import Relation, Split, Fuse, Rebase, Singleton, Transform
from .stage import Stage, AttachType, IterVarAttr
from .schedule import Schedule, create_schedule, read_graph
from .group import GroupStage
from ..errors import warn_deprecated
from ..tir.buffer import AXIS_SEPARATOR, Buffer as _Buffer
from ..tir.itervar import IterVar as _IterVar

# TVM 0.6 kept these classes in tvm.schedule; now tvm.tir.Buffer / tvm.tir.IterVar
_OLD_NAMES = {"Buffer": ("tvm.tir.Buffer", _Buffer), "IterVar": ("tvm.tir.IterVar", _IterVar)}


def __getattr__(name):
    if name in _OLD_NAMES:
        new, obj = _OLD_NAMES[name]
        warn_deprecated(f"tvm.schedule.{name}", new)
        return obj
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Relation", "Split", "Fuse", "Rebase", "Singleton", "Transform", "Stage", "AttachType",
           "IterVarAttr", "GroupStage", "Schedule", "create_schedule", "read_graph", "AXIS_SEPARATOR"]
