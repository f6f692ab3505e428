"""``Module``: a compiled kernel callable with numpy arrays, and ``build_module``."""
from __future__ import annotations

import ctypes
import time

from .. import tir
from ..codegen import CompiledKernel, compile_kernel
from ..errors import TepadError
from .args import ArgChecker, ArgInfo, arg_info_from_func, scalar_ctype


class Module:
    """A compiled kernel. ``mod(*arrays)`` checks every argument, then runs native code.

    Attributes: ``ll`` (optimized LLVM IR), ``unoptimized_ll`` (as emitted), ``arg_info``
    (list of ``ArgInfo``), ``name`` (kernel symbol), ``shape_vars`` (the symbolic vars passed
    after the pointers, in order), ``func`` (the PrimFunc built), ``messages`` (status
    ``k`` means ``messages[k - 1]``), ``kernel`` (the ``CompiledKernel``). The JIT engine lives
    as long as the Module.
    """

    def __init__(self, kernel: CompiledKernel, arg_info: list[ArgInfo] | None = None):
        """``arg_info``: one record per parameter of ``kernel.func`` (names, and which are
        written, for the checks' messages); from ``kernel.func.buffer_map`` when None."""
        func = kernel.func
        if arg_info is None:
            arg_info = arg_info_from_func(func)
        self.kernel = kernel
        self._jit = kernel.jit  # keeps the engine (and so the code) alive
        self.func = func
        self.name = kernel.name
        self.arg_info = list(arg_info)
        self.shape_vars = list(kernel.shape_vars)
        self.messages = list(kernel.messages)
        self.ll = kernel.jit.ll
        self.unoptimized_ll = kernel.source_ll
        self._checker = ArgChecker(func, self.arg_info, self.shape_vars)
        argtypes = [ctypes.c_void_p] * len(func.params) + \
            [scalar_ctype(v.dtype) for v in self.shape_vars]
        self._cfunc = kernel.jit.function(self.name, ctypes.c_int32, *argtypes)

    def __call__(self, *arrays):
        ptrs = self._checker.pointers(arrays)
        if ptrs is not None:                       # static shapes, every argument as expected
            status = self._cfunc(*ptrs)
        else:
            scalars = self._checker.check(arrays)
            status = self._cfunc(*[a.ctypes.data for a in arrays], *scalars)
        if status != 0:
            msg = self.messages[status - 1] if 0 < status <= len(self.messages) else \
                f"kernel {self.name} failed with status {status}"
            raise TepadError(msg)

    def get_source(self, fmt: str = "ll") -> str:
        if fmt in ("ll", "llvm"):
            return self.ll
        if fmt in ("asm", "s"):
            return self._jit.asm
        raise ValueError(f"unknown source format {fmt!r}; use 'll' or 'asm'")

    @property
    def asm(self) -> str:
        return self._jit.asm

    def time_evaluator(self, number: int = 10, repeat: int = 1):
        """``f(*arrays)`` -> object with ``.mean`` / ``.results`` (seconds per call)."""
        mod = self

        class _Result:
            def __init__(self, results):
                self.results = results
                self.mean = sum(results) / len(results)

        def run(*arrays):
            mod(*arrays)
            results = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                for _ in range(number):
                    mod(*arrays)
                results.append((time.perf_counter() - t0) / number)
            return _Result(results)
        return run

    def __repr__(self):
        args = ", ".join(f"{a.name}: {a.dtype}" for a in self.arg_info)
        return f"<tepad.runtime.Module {self.name}({args})>"


def build_module(func: tir.PrimFunc, arg_info: list[ArgInfo] | None = None,
                 name: str | None = None, num_threads: int | None = None) -> Module:
    """Compile a flattened ``PrimFunc`` for the host CPU (``tepad.codegen.compile_kernel``,
    cached) and wrap it in a ``Module``.

    ``arg_info``: list of ``ArgInfo``-like records (``name``, ``dtype``, ``logical_shape``,
    ``physical_shape``, ``axis_separators``, ``pad_value``, ``is_output``) in argument order;
    built from ``func.buffer_map`` when None. ``name`` defaults to
    ``func.attrs["global_symbol"]`` or "main". ``num_threads`` for parallel loops defaults to
    ``TEPAD_NUM_THREADS`` or the CPU count (read at build time).
    """
    return Module(compile_kernel(func, name=name, num_threads=num_threads), arg_info)
