"""A native loop that calls a compiled kernel ``n`` times, so that ``time_evaluator`` times
the kernel and not Python's call overhead (TVM's evaluator also runs its ``number`` calls in
a C++ loop and divides).

``NativeRepeat(ll, name, cfunc)`` compiles, beside the kernel's code, a function
``i32 loop(ptr kernel, i64 n, <the kernel's parameters>)`` that calls the kernel through its
address ``n`` times (``n >= 1``) with the same arguments and returns the first non-zero
status (0 when every call succeeded). The kernel is called through a pointer, so the loop
cannot be inlined into it nor hoisted out of the calls.
"""
from __future__ import annotations

import ctypes

from .._lazy import lazy_module
from ..codegen import JitModule

llvm = lazy_module("llvmlite.binding")

LOOP_NAME = "tepad_time_loop"

_CTYPE_OF_LLVM = {"ptr": ctypes.c_void_p, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
                  "i32": ctypes.c_int32, "i64": ctypes.c_int64, "float": ctypes.c_float,
                  "double": ctypes.c_double, "i1": ctypes.c_bool}


def loop_ir(param_types: list[str]) -> str:
    """The LLVM IR text of the loop for a kernel whose parameters have the LLVM types
    ``param_types`` (``"ptr"``, ``"i32"``, ``"float"``, ...) and which returns ``i32``."""
    params = ", ".join(f"{t} %a{k}" for k, t in enumerate(param_types))
    args = ", ".join(f"{t} %a{k}" for k, t in enumerate(param_types))
    head = f"ptr %kernel, i64 %n{', ' + params if params else ''}"
    return f"""
define i32 @{LOOP_NAME}({head}) {{
entry:
  br label %body
body:
  %k = phi i64 [ 0, %entry ], [ %k1, %next ]
  %status = call i32 %kernel({args})
  %failed = icmp ne i32 %status, 0
  br i1 %failed, label %fail, label %next
next:
  %k1 = add i64 %k, 1
  %done = icmp sge i64 %k1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i32 0
fail:
  ret i32 %status
}}
"""


class NativeRepeat:
    """``self(n, *args)`` calls the kernel ``n`` times natively with ``args`` (addresses and
    scalar values, in the kernel's parameter order) and returns the first non-zero status, or
    0. ``ll``: the LLVM IR text defining the kernel ``name`` (its parameter types are read
    there); ``cfunc``: the ctypes function of the loaded kernel (its address is called; the
    caller keeps the code loaded). NotImplementedError for a kernel whose signature the loop
    does not know."""

    def __init__(self, ll: str, name: str, cfunc):
        fn = llvm.parse_assembly(ll).get_function(name)
        types = [str(a.type) for a in fn.arguments]
        unknown = [t for t in types if t not in _CTYPE_OF_LLVM]
        if unknown or not str(fn.global_value_type).startswith("i32 "):
            raise NotImplementedError(f"no native loop for parameters {types}")
        self._kernel = ctypes.cast(cfunc, ctypes.c_void_p).value
        self._loop_jit = JitModule(loop_ir(types), opt_level=2)
        self._loop = self._loop_jit.function(
            LOOP_NAME, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64,
            *[_CTYPE_OF_LLVM[t] for t in types])

    def __call__(self, n: int, *args) -> int:
        return self._loop(self._kernel, n, *args)


__all__ = ["NativeRepeat", "loop_ir", "LOOP_NAME"]
