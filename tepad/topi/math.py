"""Elementwise math of TVM's ``topi`` (``topi.exp``, ``topi.sqrt``, ... and ``topi.math.*``).

Each operator takes a Tensor and returns one compute stage ``T_<name>`` tagged
``elemwise`` over the same shape, so the injective schedules inline or vectorize it. The
float functions keep a float input's dtype; an integer input is computed in float32 (as the
``te`` intrinsics do). ``fast_exp`` / ``fast_tanh`` approximate as TVM's do, from operations
that vectorize; ``fast_erf`` computes the exact function."""
from __future__ import annotations

from ..errors import TepadError
from ..target.generic_func import generic_func
from ..tensor import Tensor, compute
from ..tir import dtype as dt
from ..tir import op as tirop
from ..tir import op_more as _more
from ..tir.op_more import reinterpret as _bits
from ..tir.expr import IntImm, PrimExpr, cast as _cast_expr, const, convert, select


def _check(x, name):
    if not isinstance(x, Tensor):
        raise TepadError(f"topi.{name} takes a te.Tensor, got {type(x).__name__} {x!r}")


def _unary(name, fn, doc):
    def op(x):
        _check(x, name)
        return compute(x.shape, lambda *i: fn(x[i]), name=f"T_{name}", tag="elemwise")
    op.__name__ = name
    op.__doc__ = doc
    return op


def _neg(v):
    return -v


def _sign(v):
    zero, one = const(0, v.dtype), const(1, v.dtype)
    if dt.parse(v.dtype).is_uint:
        return select(v > zero, one, zero)
    return select(v > zero, one, select(v < zero, const(-1, v.dtype), zero))


identity = _unary("identity", lambda v: v, "A copy of ``x`` (one elementwise stage).")
negative = _unary("negative", _neg, "``-x`` elementwise.")
exp = _unary("exp", tirop.exp, "``e ** x`` elementwise.")
_LN2_HI, _LN2_LO = 0.693145751953125, 1.428606765330187e-06   # Cody-Waite split of ln 2
_LOG2E = 1.4426950408889634


def _pow2_int(n):
    """``2 ** n`` for an integral float ``n`` in [-127, 127] from vector-friendly operations
    only (floor, multiply, select): the product of ``2 ** (2 ** b)`` over the set bits of
    ``|n|``, inverted for negative ``n``; exact."""
    m = tirop.abs(n)
    p = const(1.0, n.dtype)
    for b in range(7):
        q = tirop.floor(m * const(2.0 ** -b, n.dtype))
        bit = q - tirop.floor(q * const(0.5, n.dtype)) * const(2.0, n.dtype)
        p = p * select(bit > const(0.5, n.dtype), const(2.0 ** (2 ** b), n.dtype),
                       const(1.0, n.dtype))
    return select(n < const(0.0, n.dtype), const(1.0, n.dtype) / p, p)


def _fast_exp_expr(v):
    """``e ** v`` as ``2 ** n * e ** r`` with ``n = round(v * log2 e)``, ``|r| <= ln2 / 2``
    and ``e ** r`` from its degree-7 Taylor polynomial (relative error below 2e-7 in
    float32); inputs clamped to [-87.3, 88.3] as TVM's fast_exp clamps them."""
    d = v.dtype if dt.is_float(v.dtype) else "float32"
    v = v if v.dtype == d else v.astype(d)
    c = (lambda x: const(x, d))
    x = tirop.min(tirop.max(v, c(-87.3)), c(88.3))
    n = tirop.floor(x * c(_LOG2E) + c(0.5))
    r = x - n * c(_LN2_HI) - n * c(_LN2_LO)
    poly = c(1.0 / 5040.0)
    for k in (720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0):
        poly = poly * r + c(1.0 / k)
    return poly * _pow2_int(n)


def _fast_tanh_expr(v):
    """``tanh(v) = sign(v) (1 - 2 / (e^{2|v|} + 1))`` with the fast exponential; |v| > 9
    gives +-1 (as TVM's fast_tanh clamps)."""
    d = v.dtype if dt.is_float(v.dtype) else "float32"
    v = v if v.dtype == d else v.astype(d)
    a = tirop.min(tirop.abs(v), const(9.0, d))
    t = const(1.0, d) - const(2.0, d) / (_fast_exp_expr(a * const(2.0, d)) + const(1.0, d))
    small = a < const(0.0004, d)        # tanh(a) = a - a^3/3 + ..., and 1 - ... cancels
    t = select(small, a, t)
    return select(v < const(0.0, d), -t, t)


fast_exp = _unary("fast_exp", _fast_exp_expr,
                  "``e ** x`` approximated as TVM's fast_exp does (range reduction to "
                  "``2 ** n * e ** r`` and a polynomial; relative error below 2e-7), from "
                  "operations that vectorize (no libm call per lane).")
erf = _unary("erf", tirop.erf, "The error function of ``x`` elementwise.")
def _erf_widened(v):
    # float16 goes through float32 (as TVM's fast_erf does): the C library has no half erf
    if v.dtype == "float16":
        return tirop.erf(v.astype("float32")).astype("float16")
    return tirop.erf(v)


fast_erf = _unary("fast_erf", _erf_widened,
                  "``erf(x)`` (computed exactly, float16 through float32; TVM approximates).")
tanh = _unary("tanh", tirop.tanh, "``tanh(x)`` elementwise.")
fast_tanh = _unary("fast_tanh", _fast_tanh_expr,
                   "``tanh(x)`` from ``fast_exp`` (absolute error below 1e-6; TVM "
                   "approximates too), from operations that vectorize.")
sigmoid = _unary("sigmoid", tirop.sigmoid, "``1 / (1 + exp(-x))`` elementwise.")
sqrt = _unary("sqrt", tirop.sqrt, "``sqrt(x)`` elementwise.")
rsqrt = _unary("rsqrt", tirop.rsqrt, "``1 / sqrt(x)`` elementwise.")
log = _unary("log", tirop.log, "The natural logarithm of ``x`` elementwise.")
log2 = _unary("log2", tirop.log2, "``log2(x)`` elementwise.")
log10 = _unary("log10", tirop.log10, "``log10(x)`` elementwise.")
sin = _unary("sin", tirop.sin, "``sin(x)`` elementwise (radians).")
cos = _unary("cos", tirop.cos, "``cos(x)`` elementwise (radians).")
tan = _unary("tan", tirop.tan, "``tan(x)`` elementwise (radians).")
atan = _unary("atan", tirop.atan, "``arctan(x)`` elementwise.")
asin = _unary("asin", _more.asin, "``arcsin(x)`` elementwise (NaN outside [-1, 1]).")
acos = _unary("acos", _more.acos, "``arccos(x)`` elementwise (NaN outside [-1, 1]).")
sinh = _unary("sinh", _more.sinh, "``sinh(x)`` elementwise.")
cosh = _unary("cosh", _more.cosh, "``cosh(x)`` elementwise.")
asinh = _unary("asinh", _more.asinh, "``arcsinh(x)`` elementwise.")
acosh = _unary("acosh", _more.acosh, "``arccosh(x)`` elementwise (NaN below 1).")
atanh = _unary("atanh", _more.atanh, "``arctanh(x)`` elementwise (NaN outside [-1, 1]).")
floor = _unary("floor", tirop.floor, "``x`` rounded down elementwise.")
ceil = _unary("ceil", tirop.ceil, "``x`` rounded up elementwise.")
round = _unary("round", tirop.round,  # noqa: A001 - TVM name
               "``x`` rounded to the nearest integral value, halves to even (numpy's round).")
trunc = _unary("trunc", tirop.trunc, "``x`` rounded toward zero elementwise.")
abs = _unary("abs", tirop.abs, "``|x|`` elementwise, in ``x``'s dtype.")  # noqa: A001
sign = _unary("sign", _sign, "-1, 0 or 1 by the sign of ``x``, in ``x``'s dtype.")
isnan = _unary("isnan", tirop.isnan, "Whether ``x`` is NaN (a bool tensor).")
isinf = _unary("isinf", tirop.isinf, "Whether ``x`` is infinite (a bool tensor).")
isfinite = _unary("isfinite", tirop.isfinite, "Whether ``x`` is finite (a bool tensor).")


def bitwise_not(data):
    """``~data`` elementwise (integer ``data``)."""
    _check(data, "bitwise_not")
    return compute(data.shape, lambda *i: ~data[i], name="T_bitwise_not", tag="elemwise")


def logical_not(data):
    """``not data`` elementwise (``data`` is read as bool: nonzero is true); a bool tensor."""
    _check(data, "logical_not")
    return compute(data.shape, lambda *i: ~_as_bool(data[i]), name="T_logical_not",
                   tag="elemwise")


def _as_bool(v):
    return v if v.dtype == "bool" else v != const(0, v.dtype)


def cast(x, dtype: str):
    """``x`` converted to ``dtype``: a Tensor gives a ``T_cast`` stage, a scalar (number or
    expression) an expression. Float to int truncates toward zero, as C and numpy do."""
    try:
        dt.parse(dtype)
    except Exception as err:  # noqa: BLE001 - say which argument is wrong
        raise TepadError(f"topi.cast: {dtype!r} is not a dtype") from err
    if isinstance(x, Tensor):
        if x.dtype == dtype:
            return compute(x.shape, lambda *i: x[i], name="T_cast", tag="elemwise")
        return compute(x.shape, lambda *i: _to(x[i], dtype), name="T_cast", tag="elemwise")
    return _to(convert(x), dtype)


def _to(v: PrimExpr, dtype: str) -> PrimExpr:
    if dtype == "bool" and v.dtype != "bool":
        return v != const(0, v.dtype)
    return _cast_expr(dtype, v)


def reinterpret(x, dtype: str):
    """The bits of each element of ``x`` read as ``dtype`` (a ``T_reinterpret`` stage of
    ``tir.reinterpret``: an LLVM bitcast); both dtypes must have the same width."""
    _check(x, "reinterpret")
    return compute(x.shape, lambda *i: _bits(dtype, x[i]), name="T_reinterpret",
                   tag="elemwise")


def clip(x, a_min, a_max):
    """``min(max(x, a_min), a_max)`` elementwise (bounds are numbers or expressions, cast to
    ``x``'s dtype)."""
    _check(x, "clip")
    lo = _to(convert(a_min), x.dtype)
    hi = _to(convert(a_max), x.dtype)
    return compute(x.shape, lambda *i: tirop.min(tirop.max(x[i], lo), hi), name="T_clip",
                   tag="elemwise")


def fixed_point_multiply(x, multiplier: int, shift: int):
    """``round(x * multiplier * 2**(shift - 31))`` for an int32 ``x``: the fixed-point
    multiplication of quantized kernels (TVM's ``topi.fixed_point_multiply``). The product is
    formed in int64 and rounded half up, as TVM's ``q_multiply_shift``."""
    _check(x, "fixed_point_multiply")
    if x.dtype != "int32":
        raise TepadError(f"topi.fixed_point_multiply: {x.name} is {x.dtype}; it takes int32")
    left, right = (shift, 0) if shift > 0 else (0, -shift)
    total = 31 + right
    nudge = const(1 << (total - 1), "int64")
    div = const(1 << total, "int64")
    m = const(int(multiplier), "int64")
    scale = const(1 << left, "int64")

    def body(*i):
        v = x[i].astype("int64") * scale * m + nudge
        return (v // div).astype("int32")
    return compute(x.shape, body, name="T_fixed_point_multiply", tag="elemwise")


def fixed_point_multiply_per_axis(x, y, lshift, rshift, is_lshift_required: int,
                                  is_rshift_required: int, axes):
    """Fixed-point multiplication with a multiplier per channel: element ``x[i]`` (int32) times
    ``y[c] * 2**(lshift[c] - rshift[c] - 31)`` rounded half up, where ``c`` are the indices of
    ``i`` on ``axes`` (the axes of ``x`` that ``y``, ``lshift`` and ``rshift``, int32 tensors
    of one shape, run along). The left shift is applied only when ``is_lshift_required``;
    ``is_rshift_required`` is accepted for TVM's signature (a zero right shift is exact)."""
    for t, what in ((x, "x"), (y, "y"), (lshift, "lshift"), (rshift, "rshift")):
        _check(t, "fixed_point_multiply_per_axis")
        if t.dtype != "int32":
            raise TepadError(f"topi.fixed_point_multiply_per_axis: {what} ({t.name}) is "
                             f"{t.dtype}; it takes int32")
    axes = [int(a) for a in axes]
    ndim = len(x.shape)
    if len(axes) != len(y.shape) or any(not 0 <= a < ndim for a in axes):
        raise TepadError(f"topi.fixed_point_multiply_per_axis: axes {axes} must name one axis "
                         f"of x ({ndim}-d) per axis of y {list(y.shape)}")
    one = const(1, "int64")

    def body(*i):
        c = tuple(i[a] for a in axes)
        v = x[i].astype("int64")
        if is_lshift_required:
            v = v << lshift[c].astype("int64")
        v = v * y[c].astype("int64")
        total = rshift[c].astype("int64") + const(31, "int64")
        return ((v + (one << (total - one))) >> total).astype("int32")
    return compute(x.shape, body, name="T_fixed_point_multiply_per_axis", tag="broadcast")


def ceil_log2(x):
    """``ceil(log2(x))`` of a scalar: a float expression in its dtype; an integer one (or a
    Python int, made an int32 constant) computed through float64 and cast back (a positive
    constant folds to a constant). A Tensor
    gives an elementwise stage of the same."""
    if isinstance(x, Tensor):
        return compute(x.shape, lambda *i: ceil_log2(x[i]), name="T_ceil_log2",
                       tag="elemwise")
    x = convert(x)
    if dt.is_float(x.dtype):
        return tirop.ceil(tirop.log2(x))
    if isinstance(x, IntImm) and x.value > 0:         # a constant folds to a constant
        return const((int(x.value) - 1).bit_length(), x.dtype)
    return _cast_expr(x.dtype, tirop.ceil(tirop.log2(_cast_expr("float64", x))))


def _legalize_hook(name):
    def hook(attrs, inputs, types):
        return None
    hook.__name__ = name
    hook.__doc__ = (f"TVM's ``{name}`` relay legalization hook, a ``tvm.target.generic_func``:"
                    " the default returns None (the operator unchanged); ``.register(key)`` "
                    "adds a target's rewrite.")
    return generic_func(hook)


erf_legalize = _legalize_hook("erf_legalize")


__all__ = ["bitwise_not", "identity", "negative", "exp", "fast_exp", "erf", "fast_erf", "tanh", "fast_tanh",
           "sigmoid", "sqrt", "rsqrt", "log", "log2", "log10", "sin", "cos", "tan", "atan",
           "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "ceil_log2",
           "fixed_point_multiply_per_axis", "erf_legalize",
           "floor", "ceil", "round", "trunc", "abs", "sign", "isnan", "isinf", "isfinite",
           "logical_not", "cast", "reinterpret", "clip", "fixed_point_multiply"]
