"""``HybridOp``: the operation a ``te.hybrid.script`` function makes (TVM's HybridOp).

The parser (``tepad.te.hybrid``) turns the function's Python body into a statement over one
Buffer per input tensor and per output, exactly the contract of an extern op, so schedules,
bound inference and lowering treat a HybridOp as an ``ExternOp``: no iteration axes, inputs
read whole, outputs written whole.
"""
from __future__ import annotations

from .extern import ExternOp


class HybridOp(ExternOp):
    """An ``ExternOp`` whose ``body`` was parsed from a hybrid script; ``source`` is the
    Python source of the function (for messages and printing)."""

    def __init__(self, name, tag, attrs, inputs, input_placeholders, output_placeholders, body,
                 source=""):
        super().__init__(name, tag or "HybridOp", attrs, inputs, input_placeholders,
                         output_placeholders, body)
        self.source = source

    # No ``axis``: TVM's HybridOp exposes its outermost loops as axes; tepad schedules a
    # hybrid stage as a whole, like an extern stage (code that meets an op with ``axis``
    # takes it for a compute).


__all__ = ["HybridOp"]
