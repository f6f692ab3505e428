"""``tvm.ir``'s ``GlobalVar`` (a function's name, which IRModule lookups accept),
``BaseFunc``, ``BaseExpr`` and ``CallingConv``."""
from __future__ import annotations

import abc
import enum

from ..errors import TepadError
from ..tir import Buffer, IRModule, IterVar, PrimExpr, PrimFunc
from ..tir.module import GlobalVar
from ..tir.expr import Node as _TirNode
from ..tir import dtype as dt


class PrimType:
    """TVM's type annotation of a scalar: ``PrimType("float32")``; a ``tir.Var`` made with
    it has that dtype."""

    def __init__(self, dtype: str):
        self.dtype = dt.canonical(dtype)
        self.tvm_dtype = self.dtype

    def __eq__(self, other):
        return isinstance(other, PrimType) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("PrimType", self.dtype))

    def __repr__(self):
        return f"T.{self.dtype}"


class PointerType:
    """TVM's type annotation of a pointer: ``PointerType(PrimType("float32"), "shared")``; a
    ``tir.Var`` made with it is a ``handle``."""

    tvm_dtype = "handle"

    def __init__(self, element_type, storage_scope: str = ""):
        self.element_type = element_type if isinstance(element_type, PrimType) \
            else PrimType(element_type)
        self.storage_scope = storage_scope

    def __eq__(self, other):
        return isinstance(other, PointerType) and other.element_type == self.element_type \
            and other.storage_scope == self.storage_scope

    def __hash__(self):
        return hash(("PointerType", self.element_type, self.storage_scope))

    def __repr__(self):
        return f"T.handle({self.element_type.dtype!r}, {self.storage_scope!r})"


class Node(abc.ABC):
    """TVM's base of IR objects (tepad's expression and statement nodes, Buffer, IterVar,
    PrimFunc and IRModule are registered subclasses), and what ``make_node(type_key,
    **fields)`` makes: its fields as attributes."""

    def __init__(self, type_key: str, **fields):
        self.type_key = type_key
        self.__dict__.update(fields)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "type_key")
        return f"{self.type_key}({fields})"


for _cls in (_TirNode, Buffer, IterVar, PrimFunc, IRModule):
    Node.register(_cls)


def make_node(type_key: str, **kwargs):
    """TVM's ``make_node``: ``"DictAttrs"`` gives a dict of the fields, any other type key a
    ``Node`` holding them (``make_node("MemoryInfo", unit_bits=16, ...).unit_bits``)."""
    if not isinstance(type_key, str):
        raise TepadError(f"make_node: the type key must be a string, got {type_key!r}")
    if type_key == "DictAttrs":
        return dict(kwargs)
    return Node(type_key, **kwargs)


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


__all__ = ["GlobalVar", "BaseFunc", "BaseExpr", "CallingConv", "PrimType", "PointerType",
           "Node", "make_node"]
