"""The intrinsics a hybrid script calls, at parse time (TVM's hybrid ``calls``): math
functions, ``min``/``max``, casts, ``ceil_div``, ``likely``, ``len``, ``inf``/``ninf``,
``max_num_threads``. Their numpy versions for emulation are in ``runtime``."""
from __future__ import annotations

import ast

from ...tir import op as tirop
from ...tir.expr import cast, const
from .values import Array, max_num_threads

MATH = {"sqrt": tirop.sqrt, "exp": tirop.exp, "log": tirop.log, "tanh": tirop.tanh,
        "sigmoid": tirop.sigmoid, "power": tirop.power, "popcount": tirop.popcount,
        "round": tirop.round, "floor": tirop.floor, "ceil": tirop.ceil, "sin": tirop.sin,
        "cos": tirop.cos, "abs": tirop.abs, "rsqrt": tirop.rsqrt, "erf": tirop.erf,
        "log2": tirop.log2, "log10": tirop.log10, "exp2": tirop.exp2, "tan": tirop.tan,
        "atan": tirop.atan, "trunc": tirop.trunc, "isnan": tirop.isnan}

CASTS = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
         "uint16", "uint32", "uint64", "bool")


def call_intrinsic(parser, e: ast.Call):
    """The value of the intrinsic call ``e`` (``parser`` evaluates its arguments and reports
    mistakes with the script's line)."""
    if not isinstance(e.func, ast.Name):
        parser.fail("only calls of intrinsics by name (sqrt(x), max(a, b), float32(x), ...)",
                    e)
    f = e.func.id
    if e.keywords:
        parser.fail(f"{f}: keyword arguments are not supported here", e)
    args = [parser.expr(a) for a in e.args]
    if f in MATH:
        parser._scalars(e, *args)
        return MATH[f](*args)
    if f in ("min", "max"):
        if len(args) != 2:
            parser.fail(f"{f} takes 2 arguments", e)
        parser._scalars(e, *args)
        return (tirop.min if f == "min" else tirop.max)(*args)
    if f in CASTS:
        if len(args) != 1:
            parser.fail(f"{f}(x) casts one expression", e)
        parser._scalars(e, *args)
        return cast(f, args[0])
    if f == "ceil_div":
        parser._scalars(e, *args)
        a, b = args
        return (a + b - 1) // b
    if f == "likely":
        return tirop.likely(parser._cond(args[0], e))
    if f == "len":
        v = args[0] if len(args) == 1 else None
        if isinstance(v, Array):
            return v.shape[0]
        if isinstance(v, (list, tuple)):
            return const(len(v))
        parser.fail("len takes an array or a tuple", e)
    if f in ("inf", "ninf"):
        if len(args) != 1 or not isinstance(args[0], str):
            parser.fail(f"{f} takes a dtype string", e)
        return (tirop.max_value if f == "inf" else tirop.min_value)(args[0])
    if f == "max_num_threads":
        return const(max_num_threads(args))
    if f in ("output_tensor", "allocate"):
        parser.fail(f"{f}(...) is assigned to a name: `c = {f}(shape, dtype)`", e)
    parser.fail(f"call of {f}: not a hybrid intrinsic (math functions, min/max, casts, "
                "ceil_div, likely, len, inf/ninf)", e)


__all__ = ["MATH", "CASTS", "call_intrinsic"]
