"""InferBound: a Range for every IterVar of every stage (TVM's "InferBound Pass" write-up).

The entry point of both modes: interval bounds (``tepad.bound.interval``, TVM's algorithm) and
exact ISL regions (``tepad.bound.exact``). ``BoundMap`` and ``infer_root_bound`` live in
``interval`` and are re-exported here.
"""
from __future__ import annotations

from .exact import infer_bound_exact
from .interval import BoundMap, infer_bound_interval, infer_root_bound
from .scan_bound import has_scan


def infer_bound(s, exact: bool = False) -> BoundMap:
    """``{IterVar: Range}`` for every IterVar of every stage of ``s``.

    Interval mode follows TVM's algorithm; ``exact=True`` computes the requested regions with
    ISL instead (see ``tepad.bound.exact``) and is never looser than interval mode. A schedule
    with a ``te.scan`` is bounded in interval mode either way (see ``tepad.bound.scan_bound``).
    """
    if exact and not has_scan(s):
        return infer_bound_exact(s)
    return infer_bound_interval(s)


__all__ = ["BoundMap", "infer_bound", "infer_root_bound"]
