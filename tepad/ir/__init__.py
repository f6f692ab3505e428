"""TVM's ``tvm.ir``: the containers (``ir.container.Map``, ``Array``), ``Range`` and
``PrimExpr``, gathered from tepad's layers."""
from ..tir import PrimExpr, Range
from . import container
from .container import Array, Map

__all__ = ["PrimExpr", "Range", "container", "Array", "Map"]
