"""Argument helpers shared by the topi.nn operators."""
from __future__ import annotations

from ...errors import TepadError


def ints(v, n, what):
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    if len(v) != n or not all(isinstance(x, int) for x in v):
        raise TepadError(f"{what} must be an int or {n} ints, got {v!r}")
    return v


__all__ = ["ints"]
