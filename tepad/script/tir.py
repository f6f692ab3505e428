"""``from tepad.script import tir as T``: TVMScript's typed constants. ``T.int32(5)`` is
``tir.IntImm(5, "int32")``, ``T.float32(0.5)`` a ``FloatImm``, ``T.bool(True)`` a bool
constant; an expression is cast (``T.int64(i)``); without a value, ``T.int32()`` is a fresh
``tir.Var`` of that dtype (as TVMScript's). Every other ``T.`` name (``T.prim_func``,
``T.Buffer``, ...) is TVMScript's parser, which tepad does not have: a TepadError says so."""
from __future__ import annotations

from ..errors import TepadAttributeError
from ..tir.expr import PrimExpr, Var, cast, const

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64", "bool"]


def _typed(dtype: str):
    def make(value=None):
        if value is None:
            return Var("v", dtype)
        if isinstance(value, PrimExpr) or hasattr(value, "as_expr"):
            return cast(dtype, value)
        return const(value, dtype)
    make.__name__ = make.__qualname__ = dtype
    make.__doc__ = f"A {dtype} constant (or, given an expression, the expression cast to " \
                   f"{dtype}; given nothing, a new {dtype} Var)."
    return make


for _d in DTYPES:
    globals()[_d] = _typed(_d)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise TepadAttributeError(
        f"T.{name}: tepad has only TVMScript's typed constants ({', '.join(DTYPES)}); "
        "TVMScript parsing (T.prim_func, T.Buffer, ...) is not part of tepad: build "
        "functions with tepad.te or tepad.tir")


__all__ = list(DTYPES)
