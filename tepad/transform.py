"""TVM's ``tvm.transform`` namespace: ``PassContext`` (see ``tepad.lower.pass_context``),
``Sequential``, ``prim_func_pass`` and ``PassInfo`` (see ``tepad.tir.transform``)."""
from .lower.pass_context import PassContext
from .tir.transform import PassInfo, PrimFuncPass, Sequential, prim_func_pass
from .tir.module_pass import Pass, ModulePass, module_pass, PrintIR

__all__ = ["PassContext", "PassInfo", "PrimFuncPass", "Sequential", "prim_func_pass", "Pass",
           "ModulePass", "module_pass", "PrintIR"]
