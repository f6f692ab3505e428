"""Front end (TVM's ``tvm.te``): placeholders, computes, reductions, schedules."""
from ..tir.op import (if_then_else, max_value, min_value, exp, log, sqrt, tanh, abs, floor,
                      ceil, power, sigmoid, floordiv, floormod, truncdiv, truncmod, indexdiv,
                      indexmod, all, any, round, sin, cos)
from ..tir.itervar import IterVar
from .tensor import Tensor, Operation, PlaceholderOp, ComputeOp
from .operation import (var, size_var, const, placeholder, compute, reduce_axis, thread_axis,
                        comm_reducer, sum, max, min)
from ..schedule import create_schedule, Schedule, Stage, AXIS_SEPARATOR
from . import schedule_compat as schedule

__all__ = [n for n in dir() if not n.startswith("_")]
