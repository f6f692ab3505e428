"""LLVM code generation: flattened TIR -> LLVM IR -> JIT code, as a ``CompiledKernel``.

``compile_kernel(func)`` is the entry point (cached in-process, see ``compiler``);
``tepad.runtime.build_module`` wraps its result in a callable ``Module``.

Modules: ``llvm_ir`` (the kernel's signature, ``emit_llvm_module``), the emitter's parts
(``emitter``, ``statements``, ``memory``, ``expressions``, ``intrinsics``, ``packed``,
``parallel``),
``analysis`` and ``lltypes`` (what they share), ``jit`` (LLVM optimization and MCJIT),
``compiler`` (``compile_kernel`` and its cache); ``nvptx`` / ``nvptx_target``: device kernels
-> PTX for CUDA (``compile_ptx``; ``tepad.backend.cuda.ptx_of`` for a lowered function).
"""
from __future__ import annotations

from .._lazy import lazy_module
from .analysis import shape_vars
from .compiler import (CompiledKernel, cache_disabled, cache_key, clear_cache,
                       compile_cache_enabled, compile_kernel, stats)
from .jit import JitModule, have_gomp, host_target_machine
from .threads import default_num_threads

# The LLVM IR emitter and the PTX code generator load on first use (the first kernel
# compiled, a CUDA build), so that ``import tepad`` does not compile them
# nor import llvmlite.ir.
_LAZY_NAMES = {"emit_llvm_module": lazy_module("tepad.codegen.llvm_ir"),
               "compile_ptx": lazy_module("tepad.codegen.nvptx")}


def __getattr__(name):
    if name in _LAZY_NAMES:
        return getattr(_LAZY_NAMES[name], name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES))


__all__ = ["compile_kernel", "CompiledKernel", "emit_llvm_module", "shape_vars", "JitModule",
           "cache_disabled", "clear_cache", "cache_key", "compile_cache_enabled", "stats",
           "host_target_machine", "have_gomp", "default_num_threads", "compile_ptx"]
