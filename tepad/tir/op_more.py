"""The rest of TVM's ``tvm.tir`` operator functions: inverse and hyperbolic math
(``acos`` ... ``atanh``), two-argument math (``atan2``, ``hypot``, ``copysign``,
``nextafter``, ``ldexp``), ``exp10``, ``nearbyint``, ``clz``, named bit operations
(``bitwise_and`` ... ``shift_right``), ``reinterpret``, ``infinity``, ``ceildiv``, the
generic arithmetic ``add`` / ``subtract`` / ``multiply`` (TVM 0.12's ``tir.add``), the
statement helpers ``stmt_seq`` / ``stmt_list``, and the builtin calls TE tensor intrinsics
write by hand (``address_of``, ``tvm_access_ptr``, the wmma ``tvm_*_matrix_sync`` family).

Every function builds tepad IR; the LLVM code generator emits the math calls as LLVM
intrinsics or the C library's functions (``codegen/intrinsics.py``), and
``tepad.testing.reference`` evaluates them with numpy.
"""
from __future__ import annotations

from ..errors import TepadError
from . import dtype as dt
from .expr import Call, FloatImm, Mul, _match, cast, const, convert, floordiv
from .op import _float_call, _rounding_call, call_intrin
from .stmt import SeqStmt, Stmt, Evaluate

# tir calls added here that the code generator maps to the C library (one or two arguments)
LIBM_UNARY = {"tir.acos": "acos", "tir.asin": "asin", "tir.acosh": "acosh",
              "tir.asinh": "asinh", "tir.atanh": "atanh", "tir.cosh": "cosh",
              "tir.sinh": "sinh"}
LIBM_BINARY = {"tir.atan2": "atan2", "tir.hypot": "hypot", "tir.nextafter": "nextafter"}


def acos(x):
    """``arccos(x)`` (``tir.acos``, libm's acos). An integer ``x`` is cast to float32."""
    return _float_call("tir.acos", x)


def asin(x):
    """``arcsin(x)`` (``tir.asin``, libm's asin). An integer ``x`` is cast to float32."""
    return _float_call("tir.asin", x)


def acosh(x):
    """``arccosh(x)`` (``tir.acosh``). An integer ``x`` is cast to float32."""
    return _float_call("tir.acosh", x)


def asinh(x):
    """``arcsinh(x)`` (``tir.asinh``). An integer ``x`` is cast to float32."""
    return _float_call("tir.asinh", x)


def atanh(x):
    """``arctanh(x)`` (``tir.atanh``). An integer ``x`` is cast to float32."""
    return _float_call("tir.atanh", x)


def cosh(x):
    """``cosh(x)`` (``tir.cosh``). An integer ``x`` is cast to float32."""
    return _float_call("tir.cosh", x)


def sinh(x):
    """``sinh(x)`` (``tir.sinh``). An integer ``x`` is cast to float32."""
    return _float_call("tir.sinh", x)


def nearbyint(x):
    """``x`` rounded to the nearest integral value, ties to even (``tir.nearbyint``, LLVM's
    nearbyint). An integer ``x`` is returned as it is."""
    return _rounding_call("tir.nearbyint", x)


def exp10(x):
    """``10 ** x`` (TVM's ``tir.exp10``), built as ``pow(10, x)`` in ``x``'s float dtype."""
    x = convert(x)
    if not dt.is_float(x.dtype):
        x = cast("float32", x)
    return Call(x.dtype, "tir.pow", [const(10.0, x.dtype), x])


def _float_pair(name, x1, x2):
    a, b = convert(x1), convert(x2)
    if not dt.is_float(a.dtype) and not dt.is_float(b.dtype):
        a, b = cast("float32", a), cast("float32", b)
    a, b = _match(a, b)
    return Call(a.dtype, name, [a, b])


def atan2(x1, x2):
    """The angle of the point ``(x2, x1)``: ``arctan(x1 / x2)`` in the right quadrant
    (``tir.atan2``, libm's atan2). Integer operands are cast to float32."""
    return _float_pair("tir.atan2", x1, x2)


def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)`` without undue overflow (``tir.hypot``, libm's hypot)."""
    return _float_pair("tir.hypot", x1, x2)


def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2`` (``tir.nextafter``, libm's nextafter)."""
    return _float_pair("tir.nextafter", x1, x2)


def copysign(x1, x2):
    """``|x1|`` with the sign of ``x2`` (``tir.copysign``, LLVM's copysign)."""
    return _float_pair("tir.copysign", x1, x2)


def ldexp(x1, x2):
    """``x1 * 2 ** x2`` (TVM's ``tir.ldexp``), built as ``x1 * exp2(x2)`` in ``x1``'s float
    dtype (exact for integral ``x2`` in the dtype's exponent range)."""
    a = convert(x1)
    if not dt.is_float(a.dtype):
        a = cast("float32", a)
    b = convert(x2)
    if b.dtype != a.dtype:
        b = cast(a.dtype, b)
    return Mul(a, Call(a.dtype, "tir.exp2", [b]))


def clz(x):
    """The number of leading zero bits of the integer ``x`` (``tir.clz``, LLVM's ctlz); the
    result has ``x``'s dtype, and ``clz(0)`` is the bit width."""
    x = convert(x)
    if not dt.is_int(x.dtype) or dt.is_bool(x.dtype):
        raise TepadError(f"tir.clz needs an integer expression, got {x!r} of dtype {x.dtype}")
    return Call(x.dtype, "tir.clz", [x])


def _bits(op, a, b):
    return getattr(convert(a), op)(b)


def bitwise_and(x, y):
    """``x & y`` on integers (``tir.bitwise_and``); on bools a logical and."""
    return _bits("__and__", x, y)


def bitwise_or(x, y):
    """``x | y`` on integers (``tir.bitwise_or``); on bools a logical or."""
    return _bits("__or__", x, y)


def bitwise_xor(x, y):
    """``x ^ y`` on integers (``tir.bitwise_xor``)."""
    return _bits("__xor__", x, y)


def bitwise_not(x):
    """``~x`` on integers (``tir.bitwise_not``)."""
    return ~convert(x)


def shift_left(x, y):
    """``x << y`` on integers (``tir.shift_left``)."""
    return _bits("__lshift__", x, y)


def shift_right(x, y):
    """``x >> y`` on integers (``tir.shift_right``: arithmetic for signed dtypes, logical for
    unsigned ones)."""
    return _bits("__rshift__", x, y)


def reinterpret(dtype, value):
    """The bits of ``value`` read as ``dtype`` (``tir.reinterpret``, an LLVM bitcast); both
    dtypes must have the same width."""
    v = convert(value)
    dtype = dt.canonical(dtype)
    width = lambda d: dt.parse(d).bits * dt.lanes(d)  # noqa: E731
    if width(dtype) != width(v.dtype):
        raise TepadError(f"tir.reinterpret: {v.dtype} ({width(v.dtype)} bits) cannot be "
                         f"read as {dtype} ({width(dtype)} bits); the widths must agree")
    if dtype == v.dtype:
        return v
    return Call(dtype, "tir.reinterpret", [v])


def infinity(dtype):
    """Positive infinity of the float ``dtype`` (``tir.infinity``)."""
    if not dt.is_float(dtype):
        raise TepadError(f"tir.infinity needs a float dtype, got {dtype!r}")
    return FloatImm(float("inf"), dt.canonical(dtype))


def ceildiv(lhs, rhs):
    """``ceil(lhs / rhs)`` for integers (``tir.ceildiv``): ``floordiv(lhs + rhs - 1, rhs)``,
    exact for a positive ``rhs``."""
    a, b = _match(convert(lhs), convert(rhs))
    if not dt.is_int(a.dtype):
        raise TepadError(f"tir.ceildiv needs integers, got {a.dtype}; use ceil(a / b)")
    return floordiv(a + b - 1, b)


def add(lhs, rhs):
    """``lhs + rhs`` (TVM's ``tir.add``, also ``tir.generic.add``)."""
    return convert(lhs) + rhs


def subtract(lhs, rhs):
    """``lhs - rhs`` (``tir.subtract``)."""
    return convert(lhs) - rhs


def multiply(lhs, rhs):
    """``lhs * rhs`` (``tir.multiply``)."""
    return convert(lhs) * rhs


def stmt_seq(*args):
    """One statement running ``args`` in order (``tir.stmt_seq``): a Stmt is kept, an
    expression becomes an ``Evaluate``; nested SeqStmts are flattened."""
    out = []
    for a in args:
        s = a if isinstance(a, Stmt) else Evaluate(convert(a))
        out.extend(s.seq if isinstance(s, SeqStmt) else [s])
    return out[0] if len(out) == 1 else SeqStmt(out)


def stmt_list(stmt):
    """The statements of ``stmt`` as a list (``tir.stmt_list``): a SeqStmt's parts, flattened,
    or ``[stmt]``."""
    if isinstance(stmt, SeqStmt):
        res = []
        for s in stmt.seq:
            res.extend(stmt_list(s))
        return res
    return [stmt]


def address_of(buffer_load):
    """The address of an element (``tir.address_of(B[i])``): a handle call."""
    return call_intrin("handle", "tir.address_of", buffer_load)


def tvm_access_ptr(ptype, data, offset, extent, rw_mask):
    """TVM's ``tvm_access_ptr(type_annotation, data, offset, extent, rw_mask)``; prefer
    ``Buffer.access_ptr(mask)``, which writes the same call."""
    return call_intrin("handle", "tir.tvm_access_ptr", ptype, data, offset, extent, rw_mask)


def tvm_fill_fragment(fragment, m, n, k, index, value):
    """Fill a wmma fragment with ``value`` (``tir.tvm_fill_fragment``)."""
    return call_intrin("handle", "tir.tvm_fill_fragment", fragment, m, n, k, index, value)


def tvm_load_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout):
    """Load a wmma fragment from memory (``tir.tvm_load_matrix_sync``; ``layout`` is
    ``"row_major"`` or ``"col_major"``)."""
    return call_intrin("handle", "tir.tvm_load_matrix_sync", fragment, m, n, k, index,
                       buffer_ptr, stride, layout)


def tvm_mma_sync(fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, fragment_c,
                 index_c):
    """``D = A * B + C`` on wmma fragments (``tir.tvm_mma_sync``)."""
    return call_intrin("handle", "tir.tvm_mma_sync", fragment_d, index_d, fragment_a, index_a,
                       fragment_b, index_b, fragment_c, index_c)


def tvm_store_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout):
    """Store a wmma fragment to memory (``tir.tvm_store_matrix_sync``)."""
    return call_intrin("handle", "tir.tvm_store_matrix_sync", fragment, m, n, k, index,
                       buffer_ptr, stride, layout)


__all__ = ["acos", "asin", "acosh", "asinh", "atanh", "cosh", "sinh", "nearbyint", "exp10",
           "atan2", "hypot", "nextafter", "copysign", "ldexp", "clz", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right",
           "reinterpret", "infinity", "ceildiv", "add", "subtract", "multiply", "stmt_seq",
           "stmt_list", "address_of", "tvm_access_ptr", "tvm_fill_fragment",
           "tvm_load_matrix_sync", "tvm_mma_sync", "tvm_store_matrix_sync", "LIBM_UNARY",
           "LIBM_BINARY"]
