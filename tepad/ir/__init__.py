"""TVM's ``tvm.ir``: ``IRModule``, the containers (``ir.container.Map``, ``Array``),
``Range``, ``PrimExpr`` and ``assert_structural_equal``, gathered from tepad's layers."""
from ..tir import PrimExpr, Range, IRModule, assert_structural_equal, structural_equal
from ..tir.expr import Op
from . import container, expr, instrument, base
from .. import transform       # TVM's tvm.ir.transform (PassContext, Sequential), as tvm.transform
from .container import Array, Map
from .json_io import load_json, save_json
from .base_names import (GlobalVar, BaseFunc, BaseExpr, CallingConv, PrimType, PointerType,
                         Node, make_node)
from ..tir import structural_hash
from ..target.intrin import register_op_attr, register_intrin_lowering

__all__ = ["transform", "expr", "base", "PrimExpr", "Range", "IRModule", "assert_structural_equal", "structural_equal",
           "container", "instrument", "Array", "Map", "save_json", "load_json", "Op", "GlobalVar", "BaseFunc", "BaseExpr", "CallingConv",
           "PrimType", "PointerType", "Node", "make_node", "structural_hash",
           "register_op_attr", "register_intrin_lowering"]
