"""InferBound: a Range for every IterVar of every stage (TVM's "InferBound Pass" write-up).

The entry point of both modes: interval bounds (``tepad.bound.interval``, TVM's algorithm) and
exact ISL regions (``tepad.bound.exact``). ``BoundMap`` and ``infer_root_bound`` live in
``interval`` and are re-exported here.
"""
from __future__ import annotations

from .._lazy import lazy_module
from ..errors import TepadError
from .interval import BoundMap, infer_bound_interval, infer_root_bound
from .scan_bound import has_scan

# ISL's exact bounds load with the first exact=True query, so that ``import tepad`` skips them
_exact = lazy_module("tepad.bound.exact")


def check_attachments(s) -> None:
    """Raise the refusal of a ``compute_at`` that can never lower (``Stage.attach_error``)."""
    for st in s.stages:
        err = getattr(st, "attach_error", None)
        if err is not None:
            raise TepadError(f"invalid schedule: {err}")


def infer_bound(s, exact: bool = False, offset_lets: bool = False) -> BoundMap:
    """``{IterVar: Range}`` for every IterVar of every stage of ``s``.

    Interval mode follows TVM's algorithm; ``exact=True`` computes the requested regions with
    ISL instead (see ``tepad.bound.exact``) and is never looser than interval mode. A schedule
    with a ``te.scan`` is bounded in interval mode either way (see ``tepad.bound.scan_bound``).
    ``offset_lets`` (what lowering asks for): the root mins of deep stages become let
    variables listed in ``bmap.offset_lets`` (``tepad.bound.offset_lets``); without it every
    range is written out over the loop variables.
    """
    check_attachments(s)
    if exact and not has_scan(s):
        return _exact.infer_bound_exact(s, offset_lets)
    return infer_bound_interval(s, offset_lets)


__all__ = ["BoundMap", "infer_bound", "infer_root_bound"]
