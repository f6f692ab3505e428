"""``Module``: a JIT-compiled kernel callable with numpy arrays."""
from __future__ import annotations

import ctypes
import time

from ..errors import TepadError
from .args import ArgChecker, ArgInfo, scalar_ctype


class Module:
    """A compiled kernel. ``mod(*arrays)`` checks every argument, then runs native code.

    Attributes: ``ll`` (optimized LLVM IR), ``arg_info`` (list of ``ArgInfo``), ``name`` (kernel
    symbol), ``shape_vars`` (the symbolic vars passed after the pointers, in order), ``func``
    (the PrimFunc built). The JIT engine lives as long as the Module.
    """

    def __init__(self, jit, func, name: str, arg_info: list[ArgInfo], shape_vars: list,
                 messages: list[str], source_ll: str):
        self._jit = jit  # keeps the engine (and so the code) alive
        self.func = func
        self.name = name
        self.arg_info = arg_info
        self.shape_vars = list(shape_vars)
        self.messages = list(messages)
        self.ll = jit.ll
        self.unoptimized_ll = source_ll
        self._checker = ArgChecker(func, arg_info, shape_vars)
        argtypes = [ctypes.c_void_p] * len(func.params) + \
            [scalar_ctype(v.dtype) for v in shape_vars]
        self._cfunc = jit.function(name, ctypes.c_int32, *argtypes)

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
