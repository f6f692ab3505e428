"""TVM's containers and ``convert``: ``Array`` (a list), ``Map`` (a dict), and
``convert(value)`` turning Python values into IR values the way ``tvm.runtime.convert`` does.
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from .. import tir
from ..errors import TepadTypeError


class Array(list):
    """TVM's ``Array``: a list (of IR values, after ``convert``)."""

    __slots__ = ()


class Map(dict):
    """TVM's ``Map``: a dict (``te.schedule.InferBound`` returns one, IterVar -> Range).

    Besides the dict methods it has TVM's ``items()`` (a list of pairs, indexable as in
    TVM) / ``keys()`` / ``values()`` / ``get``."""

    __slots__ = ()

    def items(self):
        """The ``(key, value)`` pairs as a list, as TVM's ``Map.items()`` (indexable)."""
        return list(super().items())


def convert(value):
    """A Python value as an IR value, as ``tvm.runtime.convert``: an int becomes an ``IntImm``
    (int32, int64 when it does not fit), a float a ``FloatImm`` (float32), a bool a bool
    ``IntImm``, a list or tuple an ``Array`` of converted items, a dict a ``Map`` of converted
    keys and values; strings, ``None``, tepad's IR objects (expressions, IterVars, tensors,
    ranges, ...) and callables are returned as they are."""
    if value is None or isinstance(value, (tir.Node, str, Array, Map)):
        return value
    if isinstance(value, (bool, np.bool_)):
        return tir.const(bool(value))
    if isinstance(value, (Number, np.generic)):
        if isinstance(value, complex):
            raise TepadTypeError(f"cannot convert the complex number {value!r} to an IR value")
        return tir.const(value)
    if isinstance(value, (list, tuple)):
        return Array(convert(v) for v in value)
    if isinstance(value, dict):
        return Map((convert(k), convert(v)) for k, v in value.items())
    if hasattr(value, "as_expr") or type(value).__module__.split(".")[0] == "tepad":
        return value                   # IterVars, Tensors, Operations, ... are IR objects
    if callable(value):
        return value
    raise TepadTypeError(f"cannot convert {type(value).__name__} {value!r} to an IR value; "
                         f"convert takes numbers, strings, lists, tuples, dicts and tepad "
                         f"IR objects")


def const(value, dtype: str | None = None):
    """``tvm.runtime.const``: ``tir.const``."""
    return tir.const(value, dtype)


__all__ = ["Array", "Map", "convert", "const"]
