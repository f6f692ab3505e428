"""Runtime: the callable ``Module`` and argument checking."""
from .args import ArgInfo, ArgChecker, arg_info_from_func
from .module import Module

__all__ = ["ArgInfo", "ArgChecker", "arg_info_from_func", "Module"]
