"""TVM's ``tvm.te`` namespace: the names a TE program uses, gathered from tepad's layers.

This package is part of the face: it only re-exports (definitions from ``tepad.tensor``,
expression helpers from ``tepad.tir``, schedules from ``tepad.schedule``) and holds the
``te.schedule`` aliases TVM scripts call (``InferBound``, ``ScheduleOps``).
"""
from ..tir.op import (if_then_else, max_value, min_value, exp, log, sqrt, tanh, abs, floor,
                      ceil, power, sigmoid, floordiv, floormod, truncdiv, truncmod, indexdiv,
                      indexmod, all, any, round, sin, cos, div, exp2, log2, log10, log1p,
                      erf, tan, atan, rsqrt, trunc, fmod, isnan, isinf, isfinite, popcount)
from ..tir.itervar import IterVar
from ..tir.buffer import AXIS_SEPARATOR
from ..tensor import (Tensor, Operation, PlaceholderOp, ComputeOp, ScanOp, ExternOp, var,
                      size_var, const, placeholder, compute, scan, extern, reduce_axis,
                      thread_axis, comm_reducer, sum, max, min, TensorIntrin, TensorComputeOp,
                      decl_tensor_intrin, tag_scope)
from ..schedule import create_schedule, Schedule, Stage
from ..lower.create_prim_func import create_prim_func
from . import schedule, tensor

__all__ = [n for n in dir() if not n.startswith("_")]
