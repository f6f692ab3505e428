"""Expression nodes of the IR.

Every node lists its constructor arguments in ``_fields`` (in order), so generic visitors and
mutators can walk and rebuild any node. Expressions hash and compare structurally
(``structural_equal``), except ``Var`` which is compared by identity. ``a == b`` builds an
``EQ`` node (usable as a condition, TVM habit) whose ``bool()`` is structural equality.

The text forms (``str``, ``repr``, ``script()``) are written by ``tir.printer`` and structural
equality (``==`` of ``Range``/``Stmt``, ``bool()`` of ``EQ``/``NE``) by ``tir.structural``; both
are written over these classes (and ``Buffer``), so the methods here import them when called.
"""
from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..errors import TepadError, warn_deprecated
from . import dtype as dt


def _tuple_getter(fields):
    """A function returning the tuple of ``fields`` of its argument (``operator.attrgetter``
    returns a bare value for one field, so that case is wrapped): visitors call it for every
    node they walk."""
    if not fields:
        return lambda node: ()
    if len(fields) == 1:
        one = attrgetter(fields[0])
        return lambda node: (one(node),)
    return attrgetter(*fields)


class Node:
    """Base of every IR node (expressions, statements, ranges)."""

    __slots__ = ()
    _fields: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._field_getter = staticmethod(_tuple_getter(cls.__dict__.get("_fields",
                                                                         cls._fields)))

    def field_values(self) -> tuple:
        """The values of the node's ``_fields``, in order (what visitors and equality walk)."""
        return self._field_getter(self)

    @classmethod
    def _make(cls, *values):
        """Rebuild a node from its field values (used by generic mutators)."""
        return cls(*values)

    def __str__(self):
        return _script(self)

    def script(self) -> str:
        """The node as TVMScript-like text (``tir.printer.to_script``)."""
        return _script(self)

    def astext(self, show_meta_data: bool = True) -> str:
        """TVM's older name of ``script()``."""
        return _script(self)

    def same_as(self, other) -> bool:
        """TVM's ``Object.same_as``: ``other`` is this very node (not an equal one)."""
        return self is other


def _script(node) -> str:
    from .printer import to_script      # tir.printer is written over this module's classes
    return to_script(node)


def _expr_text(expr) -> str:
    from .printer import expr_to_str    # tir.printer is written over this module's classes
    return expr_to_str(expr)


def _structurally_equal(a, b) -> bool:
    from .structural import structural_equal    # it needs Buffer, written over this module
    return structural_equal(a, b)


class PrimExpr(Node):
    """A scalar (or vector) expression with a ``dtype``."""

    __slots__ = ("dtype", "_hash")

    def __hash__(self):
        h = self._hash
        if h is None:
            h = structural_hash(self)
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self):
        return _expr_text(self)

    def __getstate__(self):
        # the cached hash is not carried across processes: it may mix in object ids and
        # Python's per-process string hashing
        state = {name: getattr(self, name) for cls in type(self).__mro__
                 for name in getattr(cls, "__slots__", ())
                 if name not in ("__weakref__", "__dict__") and hasattr(self, name)}
        state["_hash"] = None
        return None, state

    # --- arithmetic operators (TVM semantics) -------------------------------------------------
    # an operand that sets ``__tepad_expr_defer__`` (a te.Tensor) takes the operator itself:
    # ``x * A`` is ``A.__rmul__(x)``, an elementwise tensor (TVM's ExprOp dispatch to topi)
    def __add__(self, o): return NotImplemented if _defers(o) else add(self, o)
    def __radd__(self, o): return add(o, self)
    def __sub__(self, o): return NotImplemented if _defers(o) else sub(self, o)
    def __rsub__(self, o): return sub(o, self)
    def __mul__(self, o): return NotImplemented if _defers(o) else mul(self, o)
    def __rmul__(self, o): return mul(o, self)
    def __floordiv__(self, o): return floordiv(self, o)
    def __rfloordiv__(self, o): return floordiv(o, self)
    def __mod__(self, o): return floormod(self, o)
    def __rmod__(self, o): return floormod(o, self)
    def __truediv__(self, o): return NotImplemented if _defers(o) else true_div(self, o)
    def __rtruediv__(self, o): return true_div(o, self)
    def __neg__(self): return neg(self)
    def __lt__(self, o): return _cmp(LT, self, o)
    def __le__(self, o): return _cmp(LE, self, o)
    def __gt__(self, o): return _cmp(GT, self, o)
    def __ge__(self, o): return _cmp(GE, self, o)
    def __eq__(self, o):
        if not _convertible(o):
            return NotImplemented
        return _cmp(EQ, self, o)
    def __ne__(self, o):
        if not _convertible(o):
            return NotImplemented
        return _cmp(NE, self, o)
    # on bool: logical; on integers: bitwise (TVM's tir.bitwise_* / shift_* calls)
    def __and__(self, o): return _bitwise("tir.bitwise_and", logical_and, self, o)
    def __rand__(self, o): return _bitwise("tir.bitwise_and", logical_and, o, self)
    def __or__(self, o): return _bitwise("tir.bitwise_or", logical_or, self, o)
    def __ror__(self, o): return _bitwise("tir.bitwise_or", logical_or, o, self)
    def __xor__(self, o): return _bitwise("tir.bitwise_xor", None, self, o)
    def __rxor__(self, o): return _bitwise("tir.bitwise_xor", None, o, self)
    def __lshift__(self, o): return _bitwise("tir.shift_left", None, self, o)
    def __rlshift__(self, o): return _bitwise("tir.shift_left", None, o, self)
    def __rshift__(self, o): return _bitwise("tir.shift_right", None, self, o)
    def __rrshift__(self, o): return _bitwise("tir.shift_right", None, o, self)

    def __invert__(self):
        if dt.is_int(self.dtype):
            return Call(self.dtype, "tir.bitwise_not", [self])
        return logical_not(self)

    def __bool__(self):
        raise TepadError(
            f"cannot use the expression `{self!r}` as a Python bool; use tir.all / tir.any / "
            "te.if_then_else to build conditions")

    def astype(self, dtype: str) -> "PrimExpr":
        return cast(dtype, self)

    def equal(self, o) -> "PrimExpr":
        """``self == o`` as an expression (TVM's ``expr.equal``)."""
        return _cmp(EQ, self, o)


# ----------------------------------------------------------------------------------------------
# Leaves
# ----------------------------------------------------------------------------------------------

class ConstExpr(PrimExpr):
    __slots__ = ("value",)
    _fields = ("value", "dtype")

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __index__(self):
        if not dt.is_int(self.dtype) and not dt.is_bool(self.dtype):
            raise TypeError(f"{self!r} is not an integer")
        return int(self.value)

    def __bool__(self):
        return bool(self.value)


class IntImm(ConstExpr):
    __slots__ = ()

    def __init__(self, value, dtype: str = "int32"):
        if isinstance(value, str) and not isinstance(dtype, str):   # TVM's IntImm(dtype, value)
            value, dtype = dtype, value
        d = dt.parse(dtype)
        if not (d.is_integer or d.is_bool):
            raise TepadError(f"IntImm needs an integer dtype, got {dtype!r}")
        v = int(value)
        if d.is_bool:
            v = int(bool(v))
        elif d.is_int:
            lo, hi = -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1
            if not lo <= v <= hi:
                raise TepadError(f"constant {v} does not fit in {dtype}")
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "_hash", None)


class FloatImm(ConstExpr):
    __slots__ = ()

    def __init__(self, value, dtype: str = "float32"):
        if isinstance(value, str) and not isinstance(dtype, str):   # TVM's FloatImm(dtype, value)
            value, dtype = dtype, value
        if not dt.is_float(dtype):
            raise TepadError(f"FloatImm needs a float dtype, got {dtype!r}")
        object.__setattr__(self, "value", float(value))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "_hash", None)


class StringImm(PrimExpr):
    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, value: str):
        object.__setattr__(self, "value", str(value))
        object.__setattr__(self, "dtype", "handle")
        object.__setattr__(self, "_hash", None)


class Var(PrimExpr):
    """A variable. Compared and hashed by identity: two vars named ``i`` are different.

    Vars can be weakly referenced (``te.reduce_axis`` remembers its vars that way).
    """

    __slots__ = ("name", "__weakref__")
    _fields = ("name", "dtype")

    def __init__(self, name: str = "v", dtype: str = "int32"):
        dtype = dt.canonical(dtype)
        object.__setattr__(self, "name", str(name))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "_hash", None)

    def __hash__(self):
        return id(self)

    def copy_with_suffix(self, suffix: str) -> "Var":
        return Var(self.name + suffix, self.dtype)


class SizeVar(Var):
    """A Var known to be non-negative (shape variables)."""
    __slots__ = ()


# ----------------------------------------------------------------------------------------------
# Compound expressions
# ----------------------------------------------------------------------------------------------

class BinaryOp(PrimExpr):
    __slots__ = ("a", "b")
    _fields = ("a", "b")
    symbol = "?"

    def __init__(self, a: PrimExpr, b: PrimExpr):
        a, b = _operands(a, b)
        if a.dtype != b.dtype:
            raise TepadError(
                f"{type(self).__name__} operands have different dtypes: {a.dtype} vs {b.dtype}")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "dtype", self._result_dtype(a.dtype))
        object.__setattr__(self, "_hash", None)

    @staticmethod
    def _result_dtype(d):
        return d


class Add(BinaryOp): __slots__ = (); symbol = "+"
class Sub(BinaryOp): __slots__ = (); symbol = "-"
class Mul(BinaryOp): __slots__ = (); symbol = "*"
class Div(BinaryOp):
    """Truncating division for integers, true division for floats."""
    __slots__ = (); symbol = "/"
class Mod(BinaryOp):
    """Truncating modulo (sign follows the dividend)."""
    __slots__ = (); symbol = "%"
class FloorDiv(BinaryOp): __slots__ = (); symbol = "//"
class FloorMod(BinaryOp): __slots__ = (); symbol = "%"
class Min(BinaryOp): __slots__ = ()
class Max(BinaryOp): __slots__ = ()


class CmpOp(BinaryOp):
    __slots__ = ()

    @staticmethod
    def _result_dtype(d):
        return dt.with_lanes("bool", dt.lanes(d))


class EQ(CmpOp):
    __slots__ = ()
    symbol = "=="

    def __bool__(self):
        return _structurally_equal(self.a, self.b)


class NE(CmpOp):
    __slots__ = ()
    symbol = "!="

    def __bool__(self):
        return not _structurally_equal(self.a, self.b)


class LT(CmpOp): __slots__ = (); symbol = "<"
class LE(CmpOp): __slots__ = (); symbol = "<="
class GT(CmpOp): __slots__ = (); symbol = ">"
class GE(CmpOp): __slots__ = (); symbol = ">="


class LogicOp(BinaryOp):
    __slots__ = ()

    def __init__(self, a, b):
        for x in (a, b):
            if not dt.is_bool(x.dtype):
                raise TepadError(f"{type(self).__name__} needs bool operands, got {x!r}: {x.dtype}")
        super().__init__(a, b)


class And(LogicOp): __slots__ = (); symbol = "and"
class Or(LogicOp): __slots__ = (); symbol = "or"


class Not(PrimExpr):
    __slots__ = ("a",)
    _fields = ("a",)

    def __init__(self, a):
        a = _bool_operand(a)
        if not dt.is_bool(a.dtype):
            raise TepadError(f"Not needs a bool operand, got {a!r}: {a.dtype}")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "dtype", a.dtype)
        object.__setattr__(self, "_hash", None)


class Select(PrimExpr):
    """``condition ? true_value : false_value``; both branches may be evaluated."""
    __slots__ = ("condition", "true_value", "false_value")
    _fields = ("condition", "true_value", "false_value")

    def __init__(self, condition, true_value, false_value):
        condition = _bool_operand(condition)
        true_value, false_value = _operands(true_value, false_value)
        if true_value.dtype != false_value.dtype:
            raise TepadError(
                f"Select branches differ in dtype: {true_value.dtype} vs {false_value.dtype}")
        if not dt.is_bool(condition.dtype):
            raise TepadError(f"Select condition must be bool, got {condition.dtype}")
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "true_value", true_value)
        object.__setattr__(self, "false_value", false_value)
        object.__setattr__(self, "dtype", true_value.dtype)
        object.__setattr__(self, "_hash", None)


class Cast(PrimExpr):
    __slots__ = ("value",)
    _fields = ("dtype", "value")

    def __init__(self, dtype: str, value: PrimExpr):
        dt.parse(dtype)
        value = convert(value)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_hash", None)


class Op(str):
    """The operator a Call names (``"tir.exp"``, ``"tir.call_extern"``): a string, with TVM's
    ``Op`` reading ``.name`` and ``same_as``; ``Op.get(name)`` makes one."""
    __slots__ = ()

    @property
    def name(self) -> str:
        return str(self)

    def same_as(self, other) -> bool:
        return str(self) == str(other)

    @staticmethod
    def get(name: str) -> "Op":
        """The operator called ``name`` (as TVM's ``tvm.ir.Op.get``)."""
        if not isinstance(name, str) or not name:
            raise TepadError(f"Op.get: an operator name is a non-empty string such as "
                             f"'tir.exp', not {name!r}")
        return Op(name)

    def __reduce__(self):
        return (Op, (str(self),))


class Call(PrimExpr):
    """Call of an intrinsic or builtin, named by string (``"exp"``, ``"tir.if_then_else"``, ...)."""
    __slots__ = ("op", "args")
    # TVM 0.6's call types (``make.Call(dtype, name, args, Call.Extern, None, 0)``): accepted
    # by the older constructor and otherwise unused (a call is named by its op alone)
    Extern, ExternCPlusPlus, PureExtern, Halide, Intrinsic, PureIntrinsic = range(6)
    _fields = ("dtype", "op", "args")

    def __init__(self, dtype: str, op: str, args):
        dtype = "handle" if dtype in ("", "void") else dt.canonical(dtype)  # TVM's void calls
        # Python numbers and strings among the arguments become constants (as in TVM)
        args = tuple(StringImm(a) if isinstance(a, str) else
                     convert(a) if isinstance(a, (bool, int, float)) else a for a in args)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "op", Op(op))
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "_hash", None)

    @property
    def name(self) -> str:
        """TVM 0.6's ``Call.name`` (warns once): the function an extern call names, else the
        op's name without its ``tir.`` prefix (``"exp"``)."""
        warn_deprecated("Call.name", "Call.op.name")
        op = str(self.op)
        if op in ("tir.call_extern", "tir.call_pure_extern") and self.args and \
                isinstance(self.args[0], StringImm):
            return self.args[0].value
        return op[4:] if op.startswith("tir.") else op


class ProducerLoad(PrimExpr):
    """Read of a tensor (``producer`` is a te.Tensor) at ``indices``; exists before flattening."""
    __slots__ = ("producer", "indices")
    _fields = ("producer", "indices")

    def __init__(self, producer, indices):
        object.__setattr__(self, "producer", producer)
        object.__setattr__(self, "indices", tuple(indices))
        object.__setattr__(self, "dtype", producer.dtype)
        object.__setattr__(self, "_hash", None)


class BufferLoad(PrimExpr):
    __slots__ = ("buffer", "indices")
    _fields = ("buffer", "indices")

    def __init__(self, buffer, indices):
        indices = tuple(convert(i) if isinstance(i, (int, np.integer)) else i for i in indices)
        object.__setattr__(self, "buffer", buffer)
        object.__setattr__(self, "indices", indices)
        lanes = max([dt.lanes(i.dtype) for i in indices] + [1])
        # a buffer of vector elements gives its lanes for each element read
        object.__setattr__(self, "dtype", dt.with_lanes(buffer.dtype,
                                                        lanes * dt.lanes(buffer.dtype)))
        object.__setattr__(self, "_hash", None)


class Ramp(PrimExpr):
    """The vector ``[base, base + stride, ..., base + (lanes-1)*stride]``."""
    __slots__ = ("base", "stride", "lanes")
    _fields = ("base", "stride", "lanes")

    def __init__(self, base, stride, lanes: int):
        base = convert(base)
        if isinstance(stride, (int, np.integer)) and not isinstance(stride, bool):
            stride = const(int(stride), base.dtype)   # Python numbers take the base's dtype
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "stride", convert(stride))
        object.__setattr__(self, "lanes", int(lanes))
        object.__setattr__(self, "dtype", dt.with_lanes(base.dtype, int(lanes)))
        object.__setattr__(self, "_hash", None)


class Broadcast(PrimExpr):
    __slots__ = ("value", "lanes")
    _fields = ("value", "lanes")

    def __init__(self, value, lanes: int):
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "lanes", int(lanes))
        object.__setattr__(self, "dtype", dt.with_lanes(value.dtype, int(lanes)))
        object.__setattr__(self, "_hash", None)


class Shuffle(PrimExpr):
    """Lanes picked from the concatenation of ``vectors`` (scalars count as one lane): lane
    ``k`` of the result is lane ``indices[k]`` of that concatenation (TVM's ``tir.Shuffle``)."""
    __slots__ = ("vectors", "indices")
    _fields = ("vectors", "indices")

    def __init__(self, vectors, indices):
        vectors = tuple(convert(v) for v in vectors)
        indices = tuple(convert(i) for i in indices)
        if not vectors:
            raise TepadError("Shuffle needs at least one vector")
        scalar = dt.element_of(vectors[0].dtype)
        total = 0
        for v in vectors:
            if dt.element_of(v.dtype) != scalar:
                raise TepadError(f"Shuffle: vectors of different element types "
                                 f"({vectors[0].dtype} and {v.dtype})")
            total += dt.lanes(v.dtype)
        for i in indices:
            if not isinstance(i, IntImm) or not 0 <= i.value < total:
                raise TepadError(f"Shuffle: index {i!r} is not a constant lane in "
                                 f"[0, {total})")
        object.__setattr__(self, "vectors", vectors)
        object.__setattr__(self, "indices", indices)
        object.__setattr__(self, "dtype", dt.with_lanes(scalar, len(indices)))
        object.__setattr__(self, "_hash", None)

    @staticmethod
    def concat(vectors) -> "Shuffle":
        """The lanes of ``vectors``, one after the other."""
        vectors = [convert(v) for v in vectors]
        total = sum(dt.lanes(v.dtype) for v in vectors)
        return Shuffle(vectors, [IntImm(k, "int32") for k in range(total)])


class Let(PrimExpr):
    __slots__ = ("var", "value", "body")
    _fields = ("var", "value", "body")

    def __init__(self, var, value, body):
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "dtype", body.dtype)
        object.__setattr__(self, "_hash", None)


class Range(Node):
    """Half-open integer range ``[min, min + extent)``. ``Range(begin, end)`` as in TVM."""

    __slots__ = ("min", "extent", "_hash")
    _fields = ("min", "extent")

    def __init__(self, begin, end=None):
        if end is None:
            begin, end = 0, begin
        b = convert(begin)
        e = convert(end)
        object.__setattr__(self, "min", b)
        object.__setattr__(self, "extent", sub(e, b))
        object.__setattr__(self, "_hash", None)

    @classmethod
    def from_min_extent(cls, min_value, extent) -> "Range":
        r = cls.__new__(cls)
        object.__setattr__(r, "min", convert(min_value))
        object.__setattr__(r, "extent", convert(extent))
        object.__setattr__(r, "_hash", None)
        return r

    @classmethod
    def _make(cls, min_value, extent):
        return cls.from_min_extent(min_value, extent)

    def __hash__(self):
        return hash((hash(self.min), hash(self.extent)))

    def __eq__(self, other):
        return isinstance(other, Range) and _structurally_equal(self, other)

    def __repr__(self):
        return f"Range(min={_expr_text(self.min)}, extent={_expr_text(self.extent)})"


# ----------------------------------------------------------------------------------------------
# Structural hashing (equality needs Buffer and lives in tir.structural)
# ----------------------------------------------------------------------------------------------

def structural_hash(node, map_free_vars: bool = False) -> int:
    """A hash consistent with ``structural_equal``: Vars hash by identity, constants by value,
    other nodes by type and fields. ``map_free_vars``: Vars hash by dtype and the order they
    first appear in (TVM's flag), so expressions equal up to renaming hash alike."""
    if map_free_vars:
        return _mapped_hash(node, {})
    if isinstance(node, Var):
        return id(node)
    if isinstance(node, ConstExpr):
        return hash((type(node).__name__, node.value, node.dtype))
    if isinstance(node, Node):
        return hash((type(node).__name__,) + tuple(_field_hash(v) for v in node.field_values()))
    return _field_hash(node)


def _mapped_hash(v, order: dict) -> int:
    if isinstance(v, Var):
        return hash(("Var", v.dtype, order.setdefault(v, len(order))))
    if isinstance(v, ConstExpr):
        return hash((type(v).__name__, v.value, v.dtype))
    if isinstance(v, Node):
        return hash((type(v).__name__,) + tuple(_mapped_hash(f, order)
                                                for f in v.field_values()))
    if isinstance(v, (tuple, list)):
        return hash(tuple(_mapped_hash(x, order) for x in v))
    return _field_hash(v)


def _field_hash(v) -> int:
    if isinstance(v, Node):
        return hash(v) if not isinstance(v, Var) else id(v)
    if isinstance(v, (tuple, list)):
        return hash(tuple(_field_hash(x) for x in v))
    if isinstance(v, dict):
        return hash(len(v))
    try:
        return hash(v)
    except TypeError:
        return id(v)


# ----------------------------------------------------------------------------------------------
# Conversion and operator construction (with constant folding, as TVM's Python operators do)
# ----------------------------------------------------------------------------------------------

def _defers(x) -> bool:
    """Whether ``x`` handles arithmetic with expressions itself (its reflected operator)."""
    return getattr(type(x), "__tepad_expr_defer__", False)


def _convertible(x) -> bool:
    return isinstance(x, (PrimExpr, int, float, bool)) or hasattr(x, "as_expr")


def const(value, dtype: str | None = None) -> PrimExpr:
    """A constant. Python ints become int32 (int64 if they do not fit), floats float32."""
    if dtype is None:
        if isinstance(value, np.generic):       # before float: np.float64 subclasses float
            return const(value.item(), value.dtype.name)
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int32" if -(1 << 31) <= value < (1 << 31) else "int64"
        elif isinstance(value, float):
            dtype = "float32"
        else:
            raise TypeError(f"cannot make a constant from {value!r}")
    dtype = dt.canonical(dtype)
    if dt.lanes(dtype) > 1:         # a vector constant: the scalar in every lane
        return Broadcast(const(value, dt.element_of(dtype)), dt.lanes(dtype))
    if dt.is_float(dtype):
        return FloatImm(value, dtype)
    return IntImm(value, dtype)


def convert(x) -> PrimExpr:
    """Turn Python numbers, IterVars and tensors-of-rank-0 into expressions."""
    if isinstance(x, PrimExpr):
        return x
    if hasattr(x, "as_expr"):
        return x.as_expr()
    if isinstance(x, (bool, int, float, np.generic)):
        return const(x)
    raise TypeError(f"cannot convert {x!r} ({type(x).__name__}) to an expression")


def _match(a, b):
    """Bring two operands to one dtype, following TVM's BinaryOpMatchTypes."""
    a_py = not isinstance(a, PrimExpr) and not hasattr(a, "as_expr")
    b_py = not isinstance(b, PrimExpr) and not hasattr(b, "as_expr")
    if a_py and not b_py:
        b = convert(b)
        a = _const_like(a, b.dtype)
    elif b_py and not a_py:
        a = convert(a)
        b = _const_like(b, a.dtype)
    else:
        a, b = convert(a), convert(b)
    if a.dtype == b.dtype:
        return a, b
    da, db = dt.parse(a.dtype), dt.parse(b.dtype)
    if da.lanes != db.lanes:
        if da.lanes == 1:
            a = Broadcast(cast(db.scalar, a) if da.scalar != db.scalar else a, db.lanes)
            return _match(a, b)
        if db.lanes == 1:
            b = Broadcast(cast(da.scalar, b) if da.scalar != db.scalar else b, da.lanes)
            return _match(a, b)
        raise TepadError(f"vector lanes differ: {a.dtype} vs {b.dtype}")
    if da.is_float and not db.is_float:
        return a, cast(a.dtype, b)
    if db.is_float and not da.is_float:
        return cast(b.dtype, a), b
    if da.is_float and db.is_float or (da.code == db.code):
        return (cast(b.dtype, a), b) if da.bits < db.bits else (a, cast(a.dtype, b))
    # signed vs unsigned: widen to the larger, prefer signed
    if da.bits >= db.bits:
        return a, cast(a.dtype, b)
    return cast(b.dtype, a), b


def _operands(a, b):
    """The two operands of a node constructor as expressions: a Python number takes the other
    operand's dtype (``tir.Add(x, 1)``, ``tir.Select(c, 1, 0)``), as TVM's node constructors
    accept them; two expressions are left as they are (the node checks their dtypes)."""
    a_py = isinstance(a, (bool, int, float, np.generic))
    b_py = isinstance(b, (bool, int, float, np.generic))
    if a_py and not b_py:
        b = convert(b)
        return _const_like(a.item() if isinstance(a, np.generic) else a, b.dtype), b
    if b_py and not a_py:
        a = convert(a)
        return a, _const_like(b.item() if isinstance(b, np.generic) else b, a.dtype)
    return convert(a), convert(b)


def _bool_operand(x):
    """A condition given to a node constructor: a Python bool becomes a bool constant."""
    if isinstance(x, (bool, np.bool_)):
        return IntImm(int(x), "bool")
    return convert(x)


def _const_like(value, dtype: str) -> PrimExpr:
    d = dt.parse(dtype)
    if isinstance(value, float) and not d.is_float:
        return FloatImm(value, "float32" if d.bits <= 32 else "float64") if d.lanes == 1 else \
            Broadcast(FloatImm(value, "float32"), d.lanes)
    c = const(value, d.scalar) if not d.is_bool or isinstance(value, bool) else const(value, "int32")
    return c if d.lanes == 1 else Broadcast(c, d.lanes)


def _is_const(x, v=None):
    return isinstance(x, ConstExpr) and (v is None or x.value == v)


def _fold_int(op, a, b):
    if isinstance(a, IntImm) and isinstance(b, IntImm) and a.dtype == b.dtype and a.dtype != "bool":
        x, y = a.value, b.value
        if op is Add:
            return IntImm(x + y, a.dtype) if _fits(x + y, a.dtype) else None
        if op is Sub:
            return IntImm(x - y, a.dtype) if _fits(x - y, a.dtype) else None
        if op is Mul:
            return IntImm(x * y, a.dtype) if _fits(x * y, a.dtype) else None
        if y != 0:
            if op is FloorDiv:
                return IntImm(x // y, a.dtype)
            if op is FloorMod:
                return IntImm(x % y, a.dtype)
            if op is Div:
                q = abs(x) // abs(y)
                return IntImm(q if (x >= 0) == (y >= 0) else -q, a.dtype)
            if op is Mod:
                r = abs(x) % abs(y)
                return IntImm(r if x >= 0 else -r, a.dtype)
        if op is Min:
            return IntImm(min(x, y), a.dtype)
        if op is Max:
            return IntImm(max(x, y), a.dtype)
    if isinstance(a, FloatImm) and isinstance(b, FloatImm) and a.dtype == b.dtype:
        x, y = a.value, b.value
        table = {Add: lambda: x + y, Sub: lambda: x - y, Mul: lambda: x * y,
                 Min: lambda: min(x, y), Max: lambda: max(x, y)}
        if op in table:
            return FloatImm(table[op](), a.dtype)
    return None


def _fits(v, dtype):
    d = dt.parse(dtype)
    if d.is_uint:
        return 0 <= v < (1 << d.bits)
    return -(1 << (d.bits - 1)) <= v < (1 << (d.bits - 1))


def _binary(op, a, b):
    a, b = _match(a, b)
    folded = _fold_int(op, a, b)
    if folded is not None:
        return folded
    if op is Add:
        if _is_const(b, 0): return a
        if _is_const(a, 0): return b
    elif op is Sub:
        if _is_const(b, 0): return a
    elif op is Mul:
        if _is_const(b, 1): return a
        if _is_const(a, 1): return b
        if isinstance(b, IntImm) and b.value == 0: return b
        if isinstance(a, IntImm) and a.value == 0: return a
    elif op in (FloorDiv, Div):
        if isinstance(b, IntImm) and b.value == 0:
            raise TepadError(f"division by zero in {a!r} // 0")
        if _is_const(b, 1) and dt.is_int(a.dtype): return a
    elif op in (FloorMod, Mod):
        if isinstance(b, IntImm) and b.value == 0:
            raise TepadError(f"modulo by zero in {a!r} % 0")
        if _is_const(b, 1) and dt.is_int(a.dtype): return IntImm(0, a.dtype)
    return op(a, b)


def add(a, b): return _binary(Add, a, b)
def sub(a, b): return _binary(Sub, a, b)
def mul(a, b): return _binary(Mul, a, b)


def floordiv(a, b):
    """``a // b`` rounding toward minus infinity (Python's ``//``); a constant 0 divisor is
    a TepadError."""
    return _binary(FloorDiv, a, b)


def floormod(a, b):
    """``a % b`` with the sign of ``b`` (Python's ``%``); a constant 0 divisor is a TepadError."""
    return _binary(FloorMod, a, b)


def truncdiv(a, b):
    """``a / b`` rounding toward zero (C division); a constant 0 divisor is a TepadError."""
    return _binary(Div, a, b)


def truncmod(a, b):
    """The remainder of ``truncdiv(a, b)`` (sign of ``a``, C ``%``); a constant 0 divisor is a
    TepadError."""
    return _binary(Mod, a, b)


def min_expr(a, b): return _binary(Min, a, b)
def max_expr(a, b): return _binary(Max, a, b)


def true_div(a, b):
    a, b = _match(a, b)
    if not dt.is_float(a.dtype):
        raise TepadError(
            f"`/` on integer expressions ({a!r} / {b!r}) is ambiguous: use // (floordiv), "
            "% (floormod), tir.truncdiv or tir.truncmod")
    if isinstance(a, FloatImm) and isinstance(b, FloatImm) and b.value != 0:
        return FloatImm(a.value / b.value, a.dtype)
    return Div(a, b)


def neg(a):
    a = convert(a)
    if isinstance(a, IntImm):
        return IntImm(-a.value, a.dtype)
    if isinstance(a, FloatImm):
        return FloatImm(-a.value, a.dtype)
    return sub(_const_like(0, a.dtype), a)


def _cmp(op, a, b):
    a, b = _match(a, b)
    if isinstance(a, ConstExpr) and isinstance(b, ConstExpr) and a.dtype == b.dtype:
        x, y = a.value, b.value
        r = {EQ: x == y, NE: x != y, LT: x < y, LE: x <= y, GT: x > y, GE: x >= y}[op]
        return IntImm(int(r), "bool")
    return op(a, b)


def _as_bool(x):
    x = convert(x)
    if not dt.is_bool(x.dtype):
        raise TepadError(f"expected a boolean condition, got {x!r} of dtype {x.dtype}")
    return x


_BITWISE_FOLD = {"tir.bitwise_and": lambda x, y: x & y, "tir.bitwise_or": lambda x, y: x | y,
                 "tir.bitwise_xor": lambda x, y: x ^ y, "tir.shift_left": lambda x, y: x << y,
                 "tir.shift_right": lambda x, y: x >> y}


def _bitwise(op: str, logical, a, b):
    """``a op b`` for integer expressions (a ``tir.bitwise_*``/``tir.shift_*`` call, folded
    when both are constants); ``logical`` (And/Or) when both are bool."""
    a, b = convert(a), convert(b)
    if logical is not None and dt.is_bool(a.dtype) and dt.is_bool(b.dtype):
        return logical(a, b)
    if dt.is_bool(a.dtype) != dt.is_bool(b.dtype):
        raise TepadError(f"{op.split('.')[-1]} mixes a bool and an integer ({a!r}, {b!r}); "
                         "cast the bool, or compare the integer, so both sides agree")
    a, b = _match(a, b)
    if not dt.is_int(a.dtype):
        raise TepadError(f"{op.split('.')[-1]} needs integer operands (or bool for & and |), "
                         f"got {a!r} and {b!r} of dtype {a.dtype}")
    if isinstance(a, IntImm) and isinstance(b, IntImm) and dt.lanes(a.dtype) == 1:
        return const(_BITWISE_FOLD[op](a.value, b.value), a.dtype)
    return Call(a.dtype, op, [a, b])


def logical_and(a, b):
    a, b = _as_bool(a), _as_bool(b)
    if isinstance(a, IntImm):
        return b if a.value else a
    if isinstance(b, IntImm):
        return a if b.value else b
    return And(a, b)


def logical_or(a, b):
    a, b = _as_bool(a), _as_bool(b)
    if isinstance(a, IntImm):
        return a if a.value else b
    if isinstance(b, IntImm):
        return b if b.value else a
    return Or(a, b)


def logical_not(a):
    a = _as_bool(a)
    if isinstance(a, IntImm):
        return IntImm(1 - a.value, "bool")
    return Not(a)


def cast(dtype: str, value) -> PrimExpr:
    """``value`` as ``dtype``: itself when it already has it, a folded constant for constants,
    a Broadcast for a scalar cast to a vector dtype, else a Cast node."""
    value = convert(value)
    dtype = dt.canonical(dtype)
    if value.dtype == dtype:
        return value
    d = dt.parse(dtype)
    if d.lanes == 1 and isinstance(value, ConstExpr):
        if d.is_float:
            return FloatImm(float(value.value), dtype)
        if d.is_bool:
            return IntImm(bool(value.value), "bool")
        v = int(value.value)
        if _fits(v, dtype):
            return IntImm(v, dtype)
    if d.lanes > 1 and dt.lanes(value.dtype) == 1:
        return Broadcast(cast(d.scalar, value), d.lanes)
    return Cast(dtype, value)


def select(cond, t, f) -> PrimExpr:
    """``cond ? t : f`` with both branches evaluated (use if_then_else to guard a load);
    ``cond`` must be bool and the branches are brought to one dtype."""
    cond = _as_bool(cond)
    t, f = _match(t, f)
    return Select(cond, t, f)

