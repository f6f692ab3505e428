"""TVM's ``tvm.te`` namespace: the names a TE program uses, gathered from tepad's layers.

This package is part of the face: it only re-exports (definitions from ``tepad.tensor``,
expression helpers from ``tepad.tir``, schedules from ``tepad.schedule``) and holds the
``te.schedule`` aliases TVM scripts call (``InferBound``, ``ScheduleOps``).
"""
from ..tir.op import (if_then_else, max_value, min_value, exp, log, sqrt, tanh, abs, floor,
                      ceil, power, sigmoid, floordiv, floormod, truncdiv, truncmod, indexdiv,
                      indexmod, all, any, round, sin, cos, div, exp2, log2, log10, log1p,
                      erf, tan, atan, rsqrt, trunc, fmod, isnan, isinf, isfinite, popcount)
from ..tir.op_more import (acos, asin, acosh, asinh, atanh, cosh, sinh, nearbyint, add,
                           subtract, multiply)
from ..tir.itervar import IterVar
from ..tir.buffer import AXIS_SEPARATOR
from ..tensor import (Tensor, Operation, PlaceholderOp, ComputeOp, ScanOp, ExternOp, var,
                      size_var, const, placeholder, compute, scan, extern, reduce_axis,
                      thread_axis, comm_reducer, sum, max, min, TensorIntrin, TensorComputeOp,
                      decl_tensor_intrin, tag_scope, HybridOp, gradient)
from ..tensor.tensor import _TensorSlice as TensorSlice
from ..schedule import create_schedule, Schedule, Stage
from ..lower.create_prim_func import create_prim_func
from .prim_func_names import create_prim_func_from_outputs
from . import schedule, tensor, hybrid
from .._lazy import lazy_module
from ..tensor.tensor import register_elementwise as _register_elementwise

# Tensor operators (``A + B``, ``2.0 * A``) are topi's broadcasting ops, as in TVM; topi loads
# on the first such operator (it registers its own functions then)
_topi = lazy_module("tepad.topi")
del lazy_module


def _topi_operator(name):
    def op(lhs, rhs):
        return getattr(_topi, name)(lhs, rhs)
    op.__name__ = name
    return op


for _name in ("add", "subtract", "multiply", "divide", "cast"):
    _register_elementwise(_name, _topi_operator(_name))

__all__ = [n for n in dir() if not n.startswith("_")]
