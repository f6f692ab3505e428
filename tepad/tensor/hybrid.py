"""``HybridOp``: the operation a ``te.hybrid.script`` function makes (TVM's HybridOp).

The parser (``tepad.te.hybrid``) turns the function's Python body into a statement over one
Buffer per input tensor and per output, exactly the contract of an extern op, so schedules,
bound inference and lowering treat a HybridOp as an ``ExternOp``: inputs read whole, outputs
written whole; its outermost loops are its axes (see ``HybridOp``).
"""
from __future__ import annotations

from ..tir.expr import IntImm, Range
from ..tir.itervar import IterVar, IterVarType
from ..tir.stmt import For
from .extern import ExternOp


class HybridOp(ExternOp):
    """An ``ExternOp`` whose ``body`` was parsed from a hybrid script; ``source`` is the
    Python source of the function (for messages and printing).

    ``axis``: the loops of the outermost perfect nest of ``body`` (``for i in range(n): for
    j in range(m): ...``) as IterVars whose vars are those loops' vars, as TVM's HybridOp
    gives them: a schedule may split, fuse, reorder and annotate them (lowering rebuilds
    those loops around the rest of the body). An op whose body does not start with a loop
    has none."""

    def __init__(self, name, tag, attrs, inputs, input_placeholders, output_placeholders, body,
                 source="", axis=()):
        super().__init__(name, tag or "HybridOp", attrs, inputs, input_placeholders,
                         output_placeholders, body)
        self.source = source
        self.axis = list(axis)

    @property
    def root_iter_vars(self) -> list:
        return list(self.axis)


def outer_loop_axes(body) -> list:
    """IterVars for the outermost perfect nest of serial-or-annotated For loops of ``body``
    that start at 0 (the loops a HybridOp exposes as its axes)."""
    axes = []
    while isinstance(body, For) and isinstance(body.min, IntImm) and body.min.value == 0:
        axes.append(IterVar(Range.from_min_extent(body.min, body.extent), body.loop_var,
                            IterVarType.DataPar))
        body = body.body
    return axes


__all__ = ["HybridOp", "outer_loop_axes"]
