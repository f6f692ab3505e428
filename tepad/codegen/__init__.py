"""LLVM code generation: flattened TIR -> LLVM IR -> JIT -> ``tepad.runtime.Module``."""
from __future__ import annotations

from .llvm_ir import emit_llvm_module, shape_vars, default_num_threads
from .jit import JitModule, host_target_machine, have_gomp


def build_module(func, arg_info=None, name=None, num_threads=None):
    """Compile a flattened ``PrimFunc`` for the host CPU and wrap it in a ``Module``.

    ``arg_info``: list of ``ArgInfo``-like records (``name``, ``dtype``, ``logical_shape``,
    ``physical_shape``, ``axis_separators``, ``pad_value``, ``is_output``) in argument order;
    built from ``func.buffer_map`` when None. ``name`` defaults to ``func.attrs["global_symbol"]``
    or "main". ``num_threads`` for parallel loops defaults to ``TEPAD_NUM_THREADS`` or the CPU
    count (read at build time).
    """
    from ..runtime.args import arg_info_from_func
    from ..runtime.module import Module

    name = name or func.attrs.get("global_symbol", "main")
    text, messages, svars = emit_llvm_module(func, name, num_threads, use_gomp=have_gomp())
    jit = JitModule(text)
    if arg_info is None:
        arg_info = arg_info_from_func(func)
    return Module(jit, func, name, list(arg_info), svars, messages, text)


__all__ = ["build_module", "emit_llvm_module", "shape_vars", "JitModule",
           "host_target_machine", "have_gomp", "default_num_threads"]
