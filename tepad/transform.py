"""TVM's ``tvm.transform`` namespace: ``PassContext`` (see ``tepad.lower.pass_context``),
``Sequential`` and ``prim_func_pass`` (see ``tepad.tir.transform``)."""
from .lower.pass_context import PassContext
from .tir.transform import PrimFuncPass, Sequential, prim_func_pass

__all__ = ["PassContext", "PrimFuncPass", "Sequential", "prim_func_pass"]
