"""``te.hybrid``: TVM's hybrid script front end.

``@te.hybrid.script`` marks a Python function written in the hybrid subset (see
``tepad.te.hybrid.parser``). Called with te.Tensors (and expressions or numbers), it returns
the output tensor(s) of a ``HybridOp`` whose body is the function parsed to TIR: a stage
that schedules, lowers and builds like an extern stage. Called with numpy arrays, it runs as
Python with numpy versions of the intrinsics (``output_tensor``, ``allocate``, ``unroll``,
``parallel``, ``sqrt``, ...), TVM's software emulation, so the two can be compared.

``build(sch, inputs, outputs)`` writes a schedule's loop nest back as hybrid script source, a
``HybridModule`` that behaves as the script it holds (``tepad.te.hybrid.module``).
"""
from __future__ import annotations

from ...tensor.hybrid import HybridOp
from .decorate import script
from .module import HybridModule, build

__all__ = ["script", "build", "HybridModule", "HybridOp"]
