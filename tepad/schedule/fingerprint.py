"""A schedule's fingerprint: a hashable value that changes whenever lowering could change.

It is built generically from every attribute of every Stage (and of the relations and loop
annotations they hold), so a field added to Stage later is part of the fingerprint without
anyone remembering to add it. Objects that are immutable once made (operations, IterVars,
expressions, index maps, callables) count by identity; plain values by value. Two
fingerprints are equal only when both schedules would lower to the same code; the converse
need not hold (an equal schedule built from fresh objects has another fingerprint), which
costs a rebuild, never a wrong result.
"""
from __future__ import annotations

import enum

from .relations import Relation
from .stage import IterVarAttr

# Attributes that point back up (the owning schedule) rather than describe the stage.
_BACK_REFERENCES = ("schedule",)


def _value(x):
    if x is None or isinstance(x, (bool, int, float, str, bytes)):
        return x
    if isinstance(x, enum.Enum):
        return (type(x).__name__, x.value)
    if isinstance(x, (list, tuple)):
        return ("seq",) + tuple(_value(v) for v in x)
    if isinstance(x, dict):
        return ("map",) + tuple((_value(k), _value(v)) for k, v in x.items())
    if isinstance(x, (Relation, IterVarAttr)):
        return (type(x).__name__,) + tuple((k, _value(v)) for k, v in vars(x).items())
    return ("id", id(x))


def stage_fingerprint(st) -> tuple:
    """Every attribute of ``st``, a Stage or GroupStage (stages and groups it refers to, by
    identity)."""
    return tuple((k, _value(v)) for k, v in vars(st).items() if k not in _BACK_REFERENCES)


def schedule_fingerprint(s) -> tuple:
    """The outputs, the stage order, every stage's fingerprint and every group's."""
    return (tuple(id(op) for op in s.outputs),
            tuple((id(st),) + stage_fingerprint(st) for st in s.stages),
            tuple((id(g),) + stage_fingerprint(g) for g in getattr(s, "groups", ())))


__all__ = ["schedule_fingerprint", "stage_fingerprint"]
