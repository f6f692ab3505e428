"""Attach paths: the loops enclosing each stage, innermost first (InferBound's CreateAttachPath)."""
from __future__ import annotations

from ..errors import TepadError
from ..schedule.stage import AttachType


def attach_path(stage) -> list:
    """Leaf IterVars of every loop that encloses ``stage``, innermost first.

    For a stage computed at ``D.dk`` where D loops ``(di, dj, dk)`` this is ``[dk, dj, di]``;
    when D is itself attached inside E, E's enclosing loops follow. A stage of a scan's body
    (``ScanUpdate``) is inside all of the scan's loops.
    """
    path, s, seen = [], stage, set()
    while s.attach_type in (AttachType.Scope, AttachType.ScanUpdate):
        if id(s) in seen:
            raise TepadError(f"compute_at cycle through stage {s.name}")
        seen.add(id(s))
        # a stage of a scan's body sits inside every loop of the scan (its time loop)
        started = s.attach_type == AttachType.ScanUpdate
        target, s = s.attach_ivar, s.attach_stage
        for iv in reversed(s.leaf_iter_vars):
            if not started and iv is target:
                started = True
            if started:
                path.append(iv)
        if not started:
            raise TepadError(f"stage {stage.name}: its compute_at axis {target.name} is not a "
                             f"loop of {s.name} (leaf axes: "
                             f"{[iv.name for iv in s.leaf_iter_vars]})")
    return path


def attach_paths(s) -> dict:
    """``{Operation: [IterVar, ...]}`` for every stage of ``s``, innermost scope first."""
    return {st.op: attach_path(st) for st in s.stages}
