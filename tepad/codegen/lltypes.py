"""LLVM types of TIR dtypes, and the small naming helpers every emitter shares."""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import InternalError
from ..tir import dtype as dt

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
I16 = ir.IntType(16)
PTR = ir.PointerType()      # opaque: tepad never emits typed pointers
VOID = ir.VoidType()

_SCALAR_TYPES = {
    "bool": I1, "int8": I8, "uint8": I8, "int16": ir.IntType(16), "uint16": ir.IntType(16),
    "int32": I32, "uint32": I32, "int64": I64, "uint64": I64,
    "float16": ir.HalfType(), "float32": ir.FloatType(), "float64": ir.DoubleType(),
    "bfloat16": ir.FloatType(),     # in registers: a float32 holding a bfloat16 value
    "handle": PTR,
}


def ll_type(dtype: str, memory: bool = False) -> ir.Type:
    """LLVM type of a TIR dtype. ``memory=True`` gives the in-memory type (bool is a byte)."""
    d = dt.parse(dtype)
    t = _SCALAR_TYPES[d.scalar]
    if memory and d.is_bool:
        t = I8
    if memory and d.scalar == "bfloat16":
        t = ir.IntType(16)
    return t if d.lanes == 1 else ir.VectorType(t, d.lanes)


def type_suffix(t: ir.Type) -> str:
    """The overload suffix LLVM intrinsic names use for ``t`` (``f32``, ``v8f32``, ``p0``, ``p1`` for
    a pointer in address space 1)."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{type_suffix(t.element)}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.PointerType):
        return f"p{t.addrspace}"
    raise InternalError(f"no intrinsic suffix for {t}")


def is_unsigned(dtype: str) -> bool:
    """Whether integer operations on ``dtype`` use the unsigned forms (uint and bool)."""
    d = dt.parse(dtype)
    return d.is_uint or d.is_bool


def ident(name: str) -> str:
    """``name`` reduced to characters LLVM prints unquoted (never empty)."""
    return "".join(c if c.isalnum() or c in "_." else "_" for c in str(name)) or "v"


def is_bf16(dtype: str) -> bool:
    return dt.parse(dtype).scalar == "bfloat16"


def retype(t: ir.Type, element: ir.Type) -> ir.Type:
    """``element``, or a vector of it with as many lanes as ``t`` has."""
    return ir.VectorType(element, t.count) if isinstance(t, ir.VectorType) else element


def splat(t: ir.Type, value) -> ir.Constant:
    """The constant ``value`` of type ``t`` (in every lane when ``t`` is a vector)."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)
