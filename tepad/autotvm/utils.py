"""TVM's ``autotvm.utils`` (``autotvm.util`` before TVM 0.8): the small helpers templates
import from it (``get_const_int``, ``get_const_tuple``, ``get_func_name``, ``sample_ints``,
``EmptyContext``)."""
from __future__ import annotations

import random

from ..errors import TepadError
from ..tir.expr import IntImm, convert


class EmptyContext:
    """A ``with`` block that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def get_func_name(func) -> str:
    """The name of a function (or of the function a ``functools.partial`` wraps)."""
    return getattr(func, "__name__", None) or get_func_name(func.func)


def get_const_int(exp) -> int:
    """The value of a constant integer expression (an ``int`` or an ``IntImm``)."""
    if isinstance(exp, int):
        return exp
    e = convert(exp)
    if not isinstance(e, IntImm):
        raise TepadError(f"autotvm.utils.get_const_int: {exp!r} is not a constant integer")
    return int(e.value)


def get_const_tuple(in_tuple) -> tuple:
    """The values of a shape (constant entries as ints; symbolic ones kept)."""
    out = []
    for x in in_tuple:
        e = convert(x)
        out.append(int(e.value) if isinstance(e, IntImm) else e)
    return tuple(out)


def sample_ints(low: int, high: int, m: int) -> list:
    """``m`` distinct integers drawn from ``[low, high)``."""
    if m > high - low:
        raise TepadError(f"sample_ints: {m} distinct values do not fit in [{low}, {high})")
    return random.sample(range(low, high), m)


__all__ = ["EmptyContext", "get_func_name", "get_const_int", "get_const_tuple", "sample_ints"]
