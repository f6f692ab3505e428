"""``tepad.build``: lower (when given a schedule), finish the TIR, generate code, wrap a Module."""
from __future__ import annotations

from .errors import TepadError
from .schedule import Schedule
from .tir.function import PrimFunc


def build(s_or_func, args=None, target="llvm", name="main", bounds_check=False):
    """A callable ``Module`` for a schedule (with ``args``) or an already lowered PrimFunc.

    ``bounds_check=True`` guards every buffer access in the generated code: an index outside
    its buffer raises ``TepadError`` naming the buffer and index instead of touching memory.
    """
    if not isinstance(target, str) or target.split()[0] not in ("llvm", "c", "cpu"):
        raise TepadError(f"unknown target {target!r}; tepad builds for 'llvm' (the host CPU)")
    if isinstance(s_or_func, Schedule):
        if args is None:
            raise TypeError("build(schedule, args): args (the tensors, in order) are required")
        from .lower import lower
        func = lower(s_or_func, args, name=name)
    elif isinstance(s_or_func, PrimFunc):
        func = s_or_func
        if name != "main" and func.name != name:
            func = func.with_attr("global_symbol", name)
    else:
        raise TypeError(f"build expects a Schedule or a PrimFunc, got {type(s_or_func).__name__}")
    if bounds_check:
        from .lower.passes.instrument_bound_checks import instrument_bound_checks
        func = instrument_bound_checks(func)
    from .codegen import build_module
    return build_module(func)
