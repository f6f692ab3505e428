"""Expression helpers and intrinsics (TVM names): min/max/all/any, math calls, builtins."""
from __future__ import annotations

import functools

import numpy as np

from ..errors import TepadError
from ..target.codegen import llvm_get_intrinsic_name
from . import dtype as dt
from .buffer import Buffer
from .expr import (Call, IntImm, FloatImm, PrimExpr, StringImm, _match, cast, const, convert,
                   floordiv, floormod, logical_and, logical_or, max_expr, min_expr, select,
                   true_div, truncdiv, truncmod)

# Intrinsic names understood by codegen. Pure math calls map to LLVM intrinsics or libm.
MATH_INTRINSICS = ("tir.log10", "tir.erf", "tir.log1p", "tir.tan", "tir.atan", "tir.rsqrt",
                   "tir.fmod",
                   "tir.exp", "tir.log", "tir.sqrt", "tir.tanh", "tir.fabs", "tir.floor",
                   "tir.ceil", "tir.pow", "tir.sigmoid", "tir.round", "tir.sin", "tir.cos",
                   "tir.exp2", "tir.log2", "tir.trunc")


def min(a, b=None, *rest):  # noqa: A001 - TVM name
    """``tir.min(a, b)``: the smaller of two expressions."""
    if b is None:
        raise TepadError("tir.min needs two expressions (use te.min for reductions)")
    out = min_expr(a, b)
    for r in rest:
        out = min_expr(out, r)
    return out


def max(a, b=None, *rest):  # noqa: A001 - TVM name
    """``tir.max(a, b)``: the larger of two (or more) expressions; for a reduction use te.max."""
    if b is None:
        raise TepadError("tir.max needs two expressions (use te.max for reductions)")
    out = max_expr(a, b)
    for r in rest:
        out = max_expr(out, r)
    return out


def all(*conds):  # noqa: A001 - TVM name
    """Conjunction of conditions (True for none)."""
    if len(conds) == 1 and isinstance(conds[0], (list, tuple)):
        conds = conds[0]
    return functools.reduce(logical_and, conds, IntImm(1, "bool"))


def any(*conds):  # noqa: A001 - TVM name
    """Disjunction of conditions (False for none); a single list/tuple is its conditions."""
    if len(conds) == 1 and isinstance(conds[0], (list, tuple)):
        conds = conds[0]
    return functools.reduce(logical_or, conds, IntImm(0, "bool"))


def if_then_else(cond, t, f) -> PrimExpr:
    """``cond ? t : f`` where only the taken branch is evaluated (safe for guarded loads)."""
    cond = convert(cond)
    if not dt.is_bool(cond.dtype):
        raise TepadError(f"if_then_else condition must be bool, got {cond!r}")
    t, f = _match(t, f)
    if isinstance(cond, IntImm):
        return t if cond.value else f
    return Call(t.dtype, "tir.if_then_else", [cond, t, f])


def _float_call(name, x):
    x = convert(x)
    if not dt.is_float(x.dtype):
        x = cast("float32", x)
    return Call(x.dtype, name, [x])


def _rounding_call(name, x):
    """A rounding op: an integer or boolean ``x`` is already integral and is returned as it is
    (as TVM does); a float ``x`` gets the call in its dtype."""
    x = convert(x)
    if not dt.is_float(x.dtype):
        return x
    return Call(x.dtype, name, [x])


def exp(x):
    """``e ** x`` (``tir.exp``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.exp", x)


def log(x):
    """The natural logarithm of ``x`` (``tir.log``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.log", x)


def sqrt(x):
    """The square root of ``x`` (``tir.sqrt``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.sqrt", x)


def tanh(x):
    """The hyperbolic tangent of ``x`` (``tir.tanh``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.tanh", x)


def floor(x):
    """``x`` rounded down to an integral value (``tir.floor``). A float ``x`` keeps its
    dtype; an integer ``x`` is returned as it is."""
    return _rounding_call("tir.floor", x)


def ceil(x):
    """``x`` rounded up to an integral value (``tir.ceil``). A float ``x`` keeps its
    dtype; an integer ``x`` is returned as it is."""
    return _rounding_call("tir.ceil", x)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (``tir.sigmoid``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.sigmoid", x)


def round(x):  # noqa: A001
    """``x`` rounded to the nearest integral value (``tir.round``). A float ``x`` keeps its
    dtype; an integer ``x`` is returned as it is."""
    return _rounding_call("tir.round", x)


def sin(x):
    """The sine of ``x`` in radians (``tir.sin``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.sin", x)


def cos(x):
    """The cosine of ``x`` in radians (``tir.cos``). A float ``x`` keeps its dtype; an integer
    ``x`` is cast to float32 first."""
    return _float_call("tir.cos", x)


def exp2(x):
    """``2 ** x`` (``tir.exp2``); an integer ``x`` is cast to float32 first."""
    return _float_call("tir.exp2", x)


def log2(x):
    """The base-2 logarithm of ``x`` (``tir.log2``); integers are cast to float32 first."""
    return _float_call("tir.log2", x)


def log10(x):
    """The base-10 logarithm of ``x`` (``tir.log10``); integers are cast to float32 first."""
    return _float_call("tir.log10", x)


def log1p(x):
    """``log(1 + x)``, accurate for small ``x`` (``tir.log1p``, libm's log1p)."""
    return _float_call("tir.log1p", x)


def erf(x):
    """The error function of ``x`` (``tir.erf``, libm's erf)."""
    return _float_call("tir.erf", x)


def tan(x):
    """The tangent of ``x`` in radians (``tir.tan``, libm's tan)."""
    return _float_call("tir.tan", x)


def atan(x):
    """The arc tangent of ``x`` (``tir.atan``, libm's atan)."""
    return _float_call("tir.atan", x)


def rsqrt(x):
    """``1 / sqrt(x)`` (``tir.rsqrt``)."""
    return _float_call("tir.rsqrt", x)


def trunc(x):
    """``x`` rounded toward zero (``tir.trunc``); an integer ``x`` is returned as it is."""
    return _rounding_call("tir.trunc", x)


def fmod(x, y):
    """The float remainder of ``x / y`` with the sign of ``x`` (C's fmod, ``tir.fmod``)."""
    x, y = _match(x, y)
    if not dt.is_float(x.dtype):
        x, y = cast("float32", x), cast("float32", y)
    return Call(x.dtype, "tir.fmod", [x, y])


def _float_test(name, x):
    x = convert(x)
    if not dt.is_float(x.dtype):
        if name == "tir.isfinite":
            return const(True, "bool")
        return const(False, "bool")       # an integer is never NaN or infinite
    return Call("bool", name, [x])


def isnan(x):
    """Whether ``x`` is NaN (False for integers)."""
    return _float_test("tir.isnan", x)


def isinf(x):
    """Whether ``x`` is +-infinity (False for integers)."""
    return _float_test("tir.isinf", x)


def isfinite(x):
    """Whether ``x`` is neither NaN nor infinite (True for integers)."""
    return _float_test("tir.isfinite", x)


def popcount(x):
    """The number of set bits of the integer ``x`` (``tir.popcount``), in ``x``'s dtype."""
    x = convert(x)
    if not dt.is_int(x.dtype):
        raise TepadError(f"popcount needs an integer, got a {x.dtype} expression")
    return Call(x.dtype, "tir.popcount", [x])


def abs(x):  # noqa: A001
    """``|x|`` in the dtype of ``x`` (unsigned values are returned unchanged)."""
    x = convert(x)
    if dt.is_float(x.dtype):
        return Call(x.dtype, "tir.fabs", [x])
    if dt.parse(x.dtype).is_uint:
        return x
    return select(x < 0, -x, x)


def power(x, y):
    """``x ** y`` (``tir.pow``) after matching the dtypes; integers are computed in float32."""
    x, y = _match(x, y)
    if not dt.is_float(x.dtype):
        x, y = cast("float32", x), cast("float32", y)
    return Call(x.dtype, "tir.pow", [x, y])


pow = power  # noqa: A001


def max_value(dtype: str) -> PrimExpr:
    """The largest finite value of ``dtype``, as a constant of that dtype."""
    d = dt.parse(dtype)
    if d.is_float:
        return FloatImm(float(np.finfo(d.scalar).max), dtype)
    if d.is_bool:
        return IntImm(1, "bool")
    return IntImm(int(np.iinfo(d.scalar).max), dtype)


def min_value(dtype: str) -> PrimExpr:
    """The smallest (most negative) finite value of ``dtype``, as a constant of that dtype."""
    d = dt.parse(dtype)
    if d.is_float:
        return FloatImm(float(np.finfo(d.scalar).min), dtype)
    if d.is_bool:
        return IntImm(0, "bool")
    return IntImm(int(np.iinfo(d.scalar).min), dtype)


def likely(cond) -> PrimExpr:
    """``cond`` marked as usually true (``T.likely``): the value is ``cond`` itself."""
    cond = convert(cond)
    return Call("bool", "tir.likely", [cond])


def assume(cond) -> PrimExpr:
    """``tir.assume(cond)``: a fact the compiler may rely on (RFC 0077); emits no code."""
    cond = convert(cond)
    if not dt.is_bool(cond.dtype):
        raise TepadError(f"tir.assume needs a bool condition, got {cond!r}")
    return Call("bool", "tir.assume", [cond])


def undef(dtype: str = "float32") -> PrimExpr:
    """``tir.undef(dtype)``: an unspecified value; storing it may be removed (RFC 0077)."""
    return Call(dt.canonical(dtype), "tir.undef", [])


def vscale() -> PrimExpr:
    """``tir.vscale()``: the run-time multiplier of a scalable-vector target's vector length
    (Arm SVE, RISC-V V), an int32. tepad's targets have fixed-width vectors: an expression
    may hold it, but a kernel that reaches codegen with it is refused."""
    return Call("int32", "tir.vscale", [])


def is_call(e, name: str) -> bool:
    """Whether ``e`` is a Call of the intrinsic ``name`` (e.g. ``"tir.likely"``)."""
    return isinstance(e, Call) and e.op == name


def call_intrin(dtype, op, *args):
    """A Call of intrinsic ``op`` returning ``dtype``, with the arguments converted (a string
    becomes a StringImm, as TVM's ``tvm_storage_sync("shared")`` takes it)."""
    return Call(dtype, op, [a if isinstance(a, str) else convert(a) for a in args])


def _extern_call(kind, dtype, name, args):
    if isinstance(name, (int, IntImm)) and "llvm" in kind:   # TVM's intrinsic id
        name = llvm_get_intrinsic_name(int(name))
    if not isinstance(name, str) or not name:
        raise TepadError(f"{kind}: the function name must be a non-empty string, got {name!r}")
    # TVM's void calls ("" dtype) are handle calls; used as a statement they return nothing
    dtype = "handle" if dtype in ("", "void", None) else dt.canonical(dtype)
    return Call(dtype, kind, [StringImm(name)] + [convert(a) for a in args])


def call_extern(dtype, func_name, *args):
    """``tir.call_extern(dtype, "f", *args)``: a call of the C function ``f`` (with side
    effects allowed). The first argument of the Call is the name, as a StringImm."""
    return _extern_call("tir.call_extern", dtype, func_name, args)


def call_pure_extern(dtype, func_name, *args):
    """``tir.call_pure_extern``: as ``call_extern``, for a function without side effects."""
    return _extern_call("tir.call_pure_extern", dtype, func_name, args)


def call_llvm_intrin(dtype, name, *args):
    """``tir.call_llvm_intrin(dtype, "llvm.name", *args)``: a call of an LLVM intrinsic by
    name (TVM passes an intrinsic id; tepad keeps the name, which LLVM resolves)."""
    return _extern_call("tir.call_llvm_intrin", dtype, name, args)


def call_llvm_pure_intrin(dtype, name, *args):
    """``tir.call_llvm_pure_intrin``: as ``call_llvm_intrin``, without side effects."""
    return _extern_call("tir.call_llvm_pure_intrin", dtype, name, args)


def div(a, b) -> PrimExpr:
    """``a / b`` with C semantics (TVM's ``tir.div``): float division for floats, division
    rounding toward zero (``truncdiv``) for integers."""
    a, b = _match(a, b)
    if dt.is_float(a.dtype):
        return true_div(a, b)
    return truncdiv(a, b)


def _packed_arg(a):
    """A call_packed argument: a Buffer becomes ``tir.tepad_array(data, dtype, *shape)`` (the
    array the called function receives), anything else an expression."""
    if hasattr(a, "asobject"):                 # an ir_builder BufferVar: its buffer
        a = a.asobject()
    if isinstance(a, Buffer):
        return Call("handle", "tir.tepad_array", [a.data, StringImm(a.dtype), *a.shape])
    return convert(a)


def call_packed(func_name, *args):
    """``tir.call_packed("name", *args)``: call the function registered as ``name``
    (``tepad.register_func``) from generated code. Buffers arrive as NDArrays over the
    kernel's memory, handles as pointers, numbers as numbers; the value is 0, and an exception
    the function raises stops the kernel and is raised again by the Module."""
    if not isinstance(func_name, str) or not func_name:
        raise TepadError(f"call_packed: the function name must be a non-empty string, got "
                         f"{func_name!r}")
    return Call("int32", "tir.tvm_call_packed",
                [StringImm(func_name)] + [_packed_arg(a) for a in args])


call_cpacked = call_packed


indexdiv = floordiv
indexmod = floormod

__all__ = ["min", "max", "all", "any", "if_then_else", "exp", "log", "sqrt", "tanh", "floor",
           "ceil", "sigmoid", "abs", "power", "pow", "max_value", "min_value", "likely", "assume",
           "undef", "is_call", "call_intrin", "call_extern", "call_pure_extern",
           "call_llvm_intrin", "call_llvm_pure_intrin", "floordiv", "floormod", "truncdiv", "truncmod",
           "indexdiv", "indexmod", "div", "call_packed", "call_cpacked", "cast", "const", "round", "sin", "cos", "MATH_INTRINSICS",
           "exp2", "log2", "log10", "log1p", "erf", "tan", "atan", "rsqrt", "trunc", "fmod",
           "isnan", "isinf", "isfinite", "popcount"]
