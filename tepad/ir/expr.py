"""TVM's ``tvm.ir.expr`` module path: the expression base classes and ``Range`` (the objects
are tepad's own, as ``tvm.ir`` exports them)."""
from ..tir import PrimExpr, Range
from .base_names import BaseExpr, GlobalVar

__all__ = ["PrimExpr", "Range", "BaseExpr", "GlobalVar"]
