"""TVM's ``tvm.ir``: ``IRModule``, the containers (``ir.container.Map``, ``Array``),
``Range``, ``PrimExpr``, ``assert_structural_equal`` and ``save_json`` / ``load_json``, gathered from tepad's layers."""
from ..tir import PrimExpr, Range, IRModule, assert_structural_equal, structural_equal
from . import container
from .container import Array, Map
from .json import load_json, save_json

__all__ = ["PrimExpr", "Range", "IRModule", "assert_structural_equal", "structural_equal",
           "container", "Array", "Map", "save_json", "load_json"]
