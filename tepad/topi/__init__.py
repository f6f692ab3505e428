"""A small operator library over ``te`` (TVM's ``topi``): broadcasting elementwise operators
(also ``Tensor``'s ``+ - * /``), reductions, ``elemwise_sum``, ``topi.nn`` (pad, pool2d, relu,
conv2d_nchw, dense, softmax) and default CPU schedules in ``topi.generic`` (also reachable as
``topi.x86``)."""
from . import generic, nn
from . import generic as x86
from .broadcast import add, divide, maximum, minimum, multiply, subtract
from .reduction import max, min, sum  # noqa: A004 - TVM names
from .tensor import elemwise_sum

__all__ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "sum", "max", "min",
           "elemwise_sum", "nn", "generic", "x86"]
