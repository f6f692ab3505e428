"""``is_piecewise``: whether an integer expression changes form across its domain."""
from __future__ import annotations

from .expr import Call, Max, Min, Select
from .functor import post_order_visit


def is_piecewise(e) -> bool:
    """Whether ``e`` has a min, max, select or ``if_then_else`` inside (a value that a
    simplifier must split into cases to reason about)."""
    found = []
    post_order_visit(e, lambda n: found.append(n) if isinstance(n, (Min, Max, Select)) or
                     (isinstance(n, Call) and n.op == "tir.if_then_else") else None)
    return bool(found)


__all__ = ["is_piecewise"]
