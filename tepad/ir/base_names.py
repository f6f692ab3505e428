"""``tvm.ir``'s ``GlobalVar`` (a function's name, which IRModule lookups accept),
``BaseFunc``, ``BaseExpr`` and ``CallingConv``."""
from __future__ import annotations

import abc
import enum

from ..errors import TepadError
from ..tir import PrimExpr, PrimFunc


class GlobalVar:
    """The name of a function in an IRModule (``mod[GlobalVar("main")]`` is ``mod["main"]``)."""

    def __init__(self, name_hint: str, type_annot=None):
        if not isinstance(name_hint, str):
            raise TepadError(f"GlobalVar: the name must be a string, got {name_hint!r}")
        self.name_hint = name_hint

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self):
        return hash(self.name_hint)

    def __repr__(self):
        return f"I.GlobalVar({self.name_hint!r})"


class BaseFunc(abc.ABC):
    """TVM's base of functions in an IRModule (``PrimFunc`` is one)."""


BaseFunc.register(PrimFunc)


class BaseExpr(abc.ABC):
    """TVM's base of expressions (``PrimExpr`` is one)."""


BaseExpr.register(PrimExpr)


class CallingConv(enum.IntEnum):
    """How a function is called: TVM's ``DEFAULT`` / ``C_PACKED_FUNC`` /
    ``DEVICE_KERNEL_LAUNCH`` codes."""
    DEFAULT = 0
    C_PACKED_FUNC = 1
    DEVICE_KERNEL_LAUNCH = 2


__all__ = ["GlobalVar", "BaseFunc", "BaseExpr", "CallingConv"]
