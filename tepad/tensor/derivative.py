"""The symbolic derivative of an expression with respect to one tensor element (a
``ProducerLoad``), for ``te.gradient``: the chain rule over arithmetic, min / max, selects,
casts, lets and the math intrinsics; zero is ``None`` so that zero terms vanish as they are
built."""
from __future__ import annotations

import math

from ..errors import TepadError
from ..tir import dtype as dt
from ..tir import op as tirop
from ..tir.expr import (Add, Call, Cast, ConstExpr, Div, FloatImm, Let, Max, Min, Mul,
                        ProducerLoad, Select, Sub, Var, select)
from ..tir.functor import post_order_visit, substitute
from ..tir.structural import structural_equal


def _one(dtype):
    return FloatImm(1.0, dtype)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _sub(a, b):
    if b is None:
        return a
    if a is None:
        return -b
    return a - b


def _mul(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, FloatImm) and a.value == 1.0:
        return b
    if isinstance(b, FloatImm) and b.value == 1.0:
        return a
    return a * b


def same_load(a, b) -> bool:
    return isinstance(a, ProducerLoad) and a.producer == b.producer and \
        len(a.indices) == len(b.indices) and \
        all(structural_equal(x, y) for x, y in zip(a.indices, b.indices))


def depends(e, load) -> bool:
    found = []
    post_order_visit(e, lambda n: found.append(1) if same_load(n, load) else None)
    return bool(found)


def derivative(e, load: ProducerLoad):
    """``d e / d load`` as an expression of ``e``'s dtype (every load structurally equal to
    ``load`` is the variable; other loads are constants), or None when it is zero."""
    if isinstance(e, ProducerLoad):
        return _one(e.dtype) if same_load(e, load) else None
    if isinstance(e, (ConstExpr, Var)) or not dt.is_float(e.dtype):
        return None         # constants, and integer/bool parts (indices, conditions)
    if isinstance(e, Add):
        return _add(derivative(e.a, load), derivative(e.b, load))
    if isinstance(e, Sub):
        return _sub(derivative(e.a, load), derivative(e.b, load))
    if isinstance(e, Mul):
        return _add(_mul(derivative(e.a, load), e.b), _mul(e.a, derivative(e.b, load)))
    if isinstance(e, Div):
        da, db = derivative(e.a, load), derivative(e.b, load)
        out = None if da is None else da / e.b
        if db is not None:
            out = _sub(out, e.a * db / (e.b * e.b))
        return out
    if isinstance(e, (Min, Max)):
        da, db = derivative(e.a, load), derivative(e.b, load)
        if da is None and db is None:
            return None
        zero = FloatImm(0.0, e.dtype)
        take_a = e.a <= e.b if isinstance(e, Min) else e.a >= e.b
        return select(take_a, da if da is not None else zero, db if db is not None else zero)
    if isinstance(e, Select):
        dt_, df = derivative(e.true_value, load), derivative(e.false_value, load)
        if dt_ is None and df is None:
            return None
        zero = FloatImm(0.0, e.dtype)
        return select(e.condition, dt_ if dt_ is not None else zero,
                      df if df is not None else zero)
    if isinstance(e, Cast):
        if not dt.is_float(e.value.dtype):
            return None
        d = derivative(e.value, load)
        return None if d is None else Cast(e.dtype, d)
    if isinstance(e, Let):
        return derivative(substitute(e.body, {e.var: e.value}), load)
    if isinstance(e, Call):
        return _call_derivative(e, load)
    return _unsupported(e) if depends(e, load) else None


def _unsupported(e):
    raise TepadError(f"te.gradient: cannot differentiate `{e!r}` ({type(e).__name__})")


_ZERO_GRAD = {"tir.floor", "tir.ceil", "tir.trunc", "tir.round", "tir.nearbyint",
              "tir.isnan", "tir.isinf", "tir.isfinite"}


def _call_derivative(e, load):
    if e.op == "tir.if_then_else":
        c, t, f = e.args
        dt_, df = derivative(t, load), derivative(f, load)
        if dt_ is None and df is None:
            return None
        zero = FloatImm(0.0, e.dtype)
        return tirop.if_then_else(c, dt_ if dt_ is not None else zero,
                                  df if df is not None else zero)
    if e.op in _ZERO_GRAD or not any(depends(a, load) for a in e.args):
        return None
    if e.op in ("tir.likely",):
        return derivative(e.args[0], load)
    if e.op == "tir.pow":
        x, y = e.args
        dx, dy = derivative(x, load), derivative(y, load)
        out = None if dx is None else dx * y * tirop.power(x, y - FloatImm(1.0, y.dtype))
        if dy is not None:
            out = _add(out, dy * e * tirop.log(x))
        return out
    (x,) = e.args if len(e.args) == 1 else (None,)
    if x is None:
        return _unsupported(e)
    dx = derivative(x, load)
    if dx is None:
        return None
    one = FloatImm(1.0, e.dtype)
    local = {
        "tir.exp": lambda: e,
        "tir.exp2": lambda: e * FloatImm(math.log(2.0), e.dtype),
        "tir.log": lambda: one / x,
        "tir.log2": lambda: one / (x * FloatImm(math.log(2.0), e.dtype)),
        "tir.log10": lambda: one / (x * FloatImm(math.log(10.0), e.dtype)),
        "tir.log1p": lambda: one / (one + x),
        "tir.sqrt": lambda: FloatImm(0.5, e.dtype) / e,
        "tir.rsqrt": lambda: FloatImm(-0.5, e.dtype) * e / x,
        "tir.tanh": lambda: one - e * e,
        "tir.sigmoid": lambda: e * (one - e),
        "tir.sin": lambda: tirop.cos(x),
        "tir.cos": lambda: -tirop.sin(x),
        "tir.tan": lambda: one + e * e,
        "tir.atan": lambda: one / (one + x * x),
        "tir.erf": lambda: FloatImm(2.0 / math.sqrt(math.pi), e.dtype) * tirop.exp(-(x * x)),
        "tir.fabs": lambda: select(x >= FloatImm(0.0, x.dtype), one, -one),
    }.get(e.op)
    if local is None:
        raise TepadError(f"te.gradient: no derivative rule for the call {e.op} in `{e!r}`")
    return _mul(dx, local())


__all__ = ["derivative", "same_load", "depends"]
