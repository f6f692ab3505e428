"""Elementwise operators with numpy broadcasting (TVM's ``topi.add`` and friends)."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute
from ..tensor.tensor import register_elementwise
from ..tir import op as tirop
from ..tir import dtype as dt
from ..tir.expr import IntImm, PrimExpr, const, convert, floordiv, floormod, truncmod


def _shape_of(x):
    if isinstance(x, (tuple, list)):
        return tuple(IntImm(v, "int32") if isinstance(v, int) else v for v in x)
    return tuple(x.shape) if isinstance(x, Tensor) else ()


def broadcast_shape(a, b, what="broadcast"):
    """numpy's broadcast of two shapes (tensors, scalars or shape tuples; constant extents
    must agree or be 1)."""
    sa, sb = list(_shape_of(a)), list(_shape_of(b))
    n = len(sa) if len(sa) > len(sb) else len(sb)
    sa, sb = [IntImm(1, "int32")] * (n - len(sa)) + sa, [IntImm(1, "int32")] * (n - len(sb)) + sb
    out = []
    for k, (x, y) in enumerate(zip(sa, sb)):
        if isinstance(x, IntImm) and x.value == 1:
            out.append(y)
        elif isinstance(y, IntImm) and y.value == 1:
            out.append(x)
        elif isinstance(x, IntImm) and isinstance(y, IntImm) and x.value != y.value:
            raise TepadError(f"{what}: shapes {list(_shape_of(a))} and {list(_shape_of(b))} do "
                             f"not broadcast (dimension {k}: {x.value} vs {y.value})")
        else:
            out.append(x)
    return tuple(out)


def _reader(x, out_ndim, dtype):
    """``index -> element`` of ``x`` (a Tensor broadcast to ``out_ndim`` dims, or a scalar)."""
    if not isinstance(x, Tensor):
        v = x if isinstance(x, PrimExpr) else convert(x)
        if v.dtype != dtype:
            v = v.astype(dtype)
        return lambda idx: v
    shape = list(x.shape)
    lead = out_ndim - len(shape)

    def read(idx):
        sub = [IntImm(0, i.dtype) if isinstance(s, IntImm) and s.value == 1 else i
               for s, i in zip(shape, idx[lead:])]
        return x[tuple(sub)] if sub else x()
    return read


def _dtype_of(a, b):
    for x in (a, b):
        if isinstance(x, Tensor):
            return x.dtype
    return convert(a).dtype


def _binary(name, combine):
    def op(lhs, rhs):
        if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
            return combine(convert(lhs), convert(rhs))
        shape = broadcast_shape(lhs, rhs, f"topi.{name}")
        dtype = _dtype_of(lhs, rhs)
        ra, rb = _reader(lhs, len(shape), dtype), _reader(rhs, len(shape), dtype)
        # TVM's tags: a tensor with a scalar is elementwise, two tensors broadcast
        both = isinstance(lhs, Tensor) and isinstance(rhs, Tensor)
        return compute(shape, lambda *idx: combine(ra(idx), rb(idx)), name=f"T_{name}",
                       tag="broadcast" if both else "elemwise")
    op.__name__ = name
    op.__doc__ = f"Elementwise {name} with numpy broadcasting; scalars are allowed on one side."
    return op


add = _binary("add", lambda a, b: a + b)
subtract = _binary("subtract", lambda a, b: a - b)
multiply = _binary("multiply", lambda a, b: a * b)
divide = _binary("divide", lambda a, b: a / b)
maximum = _binary("maximum", tirop.max)
minimum = _binary("minimum", tirop.min)



def _bool(v):
    return v if v.dtype == "bool" else v != const(0, v.dtype)


def _mod(a, b):
    return tirop.fmod(a, b) if dt.is_float(a.dtype) else truncmod(a, b)


def _floor_divide(a, b):
    return tirop.floor(a / b) if dt.is_float(a.dtype) else floordiv(a, b)


def _floor_mod(a, b):
    return a - tirop.floor(a / b) * b if dt.is_float(a.dtype) else floormod(a, b)


power = _binary("power", tirop.power)
mod = _binary("mod", _mod)
floor_divide = _binary("floor_divide", _floor_divide)
floor_mod = _binary("floor_mod", _floor_mod)
equal = _binary("equal", lambda a, b: a == b)
not_equal = _binary("not_equal", lambda a, b: a != b)
less = _binary("less", lambda a, b: a < b)
less_equal = _binary("less_equal", lambda a, b: a <= b)
greater = _binary("greater", lambda a, b: a > b)
greater_equal = _binary("greater_equal", lambda a, b: a >= b)
bitwise_and = _binary("bitwise_and", lambda a, b: a & b)
bitwise_or = _binary("bitwise_or", lambda a, b: a | b)
bitwise_xor = _binary("bitwise_xor", lambda a, b: a ^ b)
left_shift = _binary("left_shift", lambda a, b: a << b)
right_shift = _binary("right_shift", lambda a, b: a >> b)
logical_and = _binary("logical_and", lambda a, b: _bool(a) & _bool(b))
logical_or = _binary("logical_or", lambda a, b: _bool(a) | _bool(b))
logical_xor = _binary("logical_xor", lambda a, b: _bool(a) != _bool(b))
mod.__doc__ = "``a`` mod ``b`` with the sign of ``a`` (C's % / fmod), broadcasting."
floor_mod.__doc__ = "``a - floor(a / b) * b`` (numpy's %), broadcasting."
floor_divide.__doc__ = "``floor(a / b)`` (numpy's //), broadcasting."


def broadcast_to(data, shape):
    """``data`` broadcast to ``shape`` (numpy's rules; extents of 1 stretch)."""
    if not isinstance(data, Tensor):
        raise TepadError(f"topi.broadcast_to takes a te.Tensor, got {data!r}")
    target = list(_shape_of(tuple(shape)))
    got = broadcast_shape(data, tuple(target), "topi.broadcast_to")
    if len(got) != len(target) or any(isinstance(g, IntImm) and isinstance(t, IntImm) and
                                       g.value != t.value for g, t in zip(got, target)):
        raise TepadError(f"topi.broadcast_to: {data.name} {list(data.shape)} cannot be "
                         f"broadcast to {list(shape)}")
    read = _reader(data, len(target), data.dtype)
    return compute(tuple(target), lambda *idx: read(idx), name="T_broadcast_to",
                   tag="broadcast")


for _name, _fn in (("add", add), ("subtract", subtract), ("multiply", multiply),
                   ("divide", divide)):
    register_elementwise(_name, _fn)

__all__ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "mod",
           "floor_divide", "floor_mod", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "broadcast_to",
           "broadcast_shape"]
