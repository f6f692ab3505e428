"""TVM's ``tvm.tir.generic`` (0.6: ``tvm.generic``): the arithmetic the expression operators
use, as functions (``add``, ``subtract``, ``multiply``, ``divide``, ``floordiv``, ``cast``).
TVM lets a downstream library override them; in tepad they are the PrimExpr operators."""
from __future__ import annotations

from .expr import cast as _cast, convert, floordiv as _floordiv
from .op_more import add, multiply, subtract


def divide(lhs, rhs):
    """``lhs / rhs``: true division for floats, TVM's ``/`` rules for integers."""
    return convert(lhs) / rhs


def floordiv(lhs, rhs):
    """``floor(lhs / rhs)`` (``tir.floordiv``)."""
    return _floordiv(lhs, rhs)


def cast(src, dtype):
    """``src`` cast to ``dtype`` (note the argument order: value first, as TVM's
    ``generic.cast``)."""
    return _cast(dtype, src)


__all__ = ["add", "subtract", "multiply", "divide", "floordiv", "cast"]
