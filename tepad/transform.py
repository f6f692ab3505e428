"""TVM's ``tvm.transform`` namespace: ``PassContext`` (see ``tepad.lower.pass_context``),
``Sequential``, ``prim_func_pass`` and ``PassInfo`` (see ``tepad.tir.transform``)."""
from .lower.pass_context import PassContext
from .tir.transform import PassInfo, PrimFuncPass, Sequential, prim_func_pass

__all__ = ["PassContext", "PassInfo", "PrimFuncPass", "Sequential", "prim_func_pass"]
