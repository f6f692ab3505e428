"""TVM's ``tvm.ir``: ``IRModule``, the containers (``ir.container.Map``, ``Array``),
``Range``, ``PrimExpr`` and ``assert_structural_equal``, gathered from tepad's layers."""
from ..tir import PrimExpr, Range, IRModule, assert_structural_equal, structural_equal
from . import container
from .container import Array, Map

__all__ = ["PrimExpr", "Range", "IRModule", "assert_structural_equal", "structural_equal",
           "container", "Array", "Map"]
