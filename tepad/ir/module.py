"""TVM's ``tvm.ir.module``: where ``IRModule`` is defined in TVM (tepad's is ``tir.module``)."""
from ..tir.module import IRModule

__all__ = ["IRModule"]
