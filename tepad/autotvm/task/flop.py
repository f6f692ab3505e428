"""``compute_flop(sch)``: TVM's AutoTVM FLOP count of a schedule's compute definitions.

Each compute op counts its elements times the operations of its body: one per arithmetic,
comparison or logical node, the larger branch of a select, nothing for loads, constants,
variables and casts (only their operands), and a reduction ``iterations x (combiner +
source)``. Ops reachable along several paths are counted once per path, as TVM does. Shapes
must be constant and every op a ``te.compute`` (or a placeholder); otherwise, or when no
operation is found, it is a RuntimeError asking for ``cfg.add_flop``, as in TVM.
"""
from __future__ import annotations

from ...tensor.tensor import ComputeOp, PlaceholderOp
from ...tir.expr import (EQ, GE, GT, LE, LT, NE, Add, And, BufferLoad, Call, Cast, Div, FloorDiv,
                         FloorMod, FloatImm, IntImm, Max, Min, Mod, Mul, Not, Or, ProducerLoad,
                         Select, Sub, Var)
from ...tir.reduce import Reduce

_COUNTED = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Max, Min, EQ, NE, LT, LE, GT, GE, And,
            Or)


class FlopCalculationError(RuntimeError):
    """The FLOP of an operator cannot be counted from its definition."""


def _length(axes) -> int:
    n = 1
    for iv in axes:
        ext = iv.dom.extent
        if not isinstance(ext, IntImm):
            raise FlopCalculationError(f"the length of axis {iv.var.name} is not constant")
        n *= int(ext.value)
    return n


def _count(e) -> int:
    if isinstance(e, Reduce):
        if len(e.combiner.result) != 1 or len(e.source) != 1:
            raise FlopCalculationError("found a reduction with several outputs")
        return _length(e.axis) * (_count(e.combiner.result[0]) + _count(e.source[0]))
    if isinstance(e, (FloatImm, IntImm, Var)):
        return 0
    if isinstance(e, Cast):
        return _count(e.value)
    if isinstance(e, Not):
        return 1 + _count(e.a)
    if isinstance(e, _COUNTED):
        return 1 + _count(e.a) + _count(e.b)
    if isinstance(e, Select):
        return _count(e.condition) + max(_count(e.true_value), _count(e.false_value))
    if isinstance(e, Call):
        return sum(_count(a) for a in e.args)
    if isinstance(e, (ProducerLoad, BufferLoad)):
        return 0         # indexing is not floating-point work
    raise FlopCalculationError(f"found an unsupported expression {type(e).__name__}")


def _traverse(ops) -> int:
    total = 0
    for op in ops:
        if isinstance(op, PlaceholderOp):
            continue
        if not isinstance(op, ComputeOp):
            raise FlopCalculationError(f"{op.name} is not a te.compute (scan, extern and "
                                       "hybrid ops are not counted)")
        if len(op.body) != 1:
            raise FlopCalculationError(f"{op.name} has several outputs")
        total += _length(op.axis) * _count(op.body[0])
        total += _traverse([t.op for t in op.input_tensors])
    return total


def compute_flop(sch) -> int:
    """The FLOP of ``sch``'s output ops and everything they read (see the module doc)."""
    try:
        flop = _traverse(list(sch.outputs))
    except FlopCalculationError as err:
        raise RuntimeError(f"FLOP estimator fails for this operator: {err}. Please use "
                           "`cfg.add_flop` to set the FLOP of this operator") from None
    if flop == 0:
        raise RuntimeError("FLOP estimator fails for this operator: no floating-point "
                           "operation found in its compute definition. Please use "
                           "`cfg.add_flop` to set the FLOP of this operator")
    return flop


__all__ = ["compute_flop", "FlopCalculationError"]
