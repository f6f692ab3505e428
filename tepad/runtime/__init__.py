"""Runtime: the callable ``Module`` around a ``codegen.CompiledKernel``, argument checking,
and ``build_module`` (compile + wrap)."""
from .args import ArgInfo, ArgChecker, arg_info_from_func
from .module import Module, build_module

__all__ = ["ArgInfo", "ArgChecker", "arg_info_from_func", "Module", "build_module"]
