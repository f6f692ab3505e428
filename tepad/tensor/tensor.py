"""Tensors and operations: the definition side (what is computed), independent of schedules."""
from __future__ import annotations

from .axes import AxisList
from ..errors import TepadError
from ..tir import dtype as dt
from ..tir.expr import ProducerLoad, PrimExpr, convert
from ..tir.functor import post_order_visit
from ..tir.printer import expr_to_str
from ..tir.reduce import Reduce


class Tensor:
    """Output ``value_index`` of ``op``. Equal to another Tensor that is the same output."""

    def same_as(self, other) -> bool:
        """TVM's ``Object.same_as``: ``other`` is this output of this op."""
        return self is other or (isinstance(other, Tensor) and other.op is self.op
                                 and other.value_index == self.value_index)

    def __init__(self, op, value_index, shape, dtype):
        self.op = op
        self.value_index = value_index
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def name(self):
        """The operation's name; ``name.v<k>`` for output k of a multi-output operation."""
        return self.op.name if self.op.num_outputs == 1 else f"{self.op.name}.v{self.value_index}"

    @property
    def ndim(self):
        """The number of dimensions (``len(shape)``)."""
        return len(self.shape)

    @property
    def axis(self):
        """The data-parallel IterVars of the operation computing this tensor (``op.axis``)."""
        return self.op.axis

    def __getitem__(self, indices):
        """``A[i, j]``: the element expression (a ProducerLoad) for one integer index per
        dimension. Fewer indices give a partial index that only accepts more indices
        (``A[i][j]``); more indices, or a non-integer index, are a TepadError."""
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) < self.ndim or any(isinstance(i, slice) for i in indices):
            # a region (``A[i, 0:16]``, an argument of a tensor intrinsic) or a partial index
            return _TensorSlice(self, indices)
        if len(indices) != self.ndim:
            raise TepadError(
                f"tensor {self.name} has {self.ndim} dimensions, indexed with {len(indices)}")
        idx = []
        for k, i in enumerate(indices):
            e = convert(i)
            if not dt.is_int(e.dtype):
                raise TepadError(
                    f"index {k} of tensor {self.name} must be an integer expression, got "
                    f"{e!r} of dtype {e.dtype}")
            idx.append(e)
        return ProducerLoad(self, idx)

    def __call__(self, *indices):
        """``A(i, j)`` is ``A[i, j]``."""
        return self[indices]

    def __eq__(self, other):
        return isinstance(other, Tensor) and other.op is self.op and \
            other.value_index == self.value_index

    def __hash__(self):
        return hash((id(self.op), self.value_index))

    def __repr__(self):
        shape = ", ".join(expr_to_str(s) for s in self.shape)
        return f"Tensor(name={self.name}, shape=({shape}), dtype={self.dtype})"

    # expressions hand ``x + A``, ``x * A`` to the reflected operators below
    __tepad_expr_defer__ = True

    # ``A + B``, ``A * 2.0``, ``2.0 * A``, ``x - A``, ``A / B``: new tensors by topi's broadcasting operators, as in
    # TVM (whose topi binds them to Tensor on import, as tepad.topi does through
    # ``register_elementwise``: this layer sits below topi)
    def __add__(self, o): return _elementwise("add", self, o)
    def __radd__(self, o): return _elementwise("add", o, self)
    def __sub__(self, o): return _elementwise("subtract", self, o)
    def __rsub__(self, o): return _elementwise("subtract", o, self)
    def __mul__(self, o): return _elementwise("multiply", self, o)
    def __rmul__(self, o): return _elementwise("multiply", o, self)
    def __truediv__(self, o): return _elementwise("divide", self, o)
    def __rtruediv__(self, o): return _elementwise("divide", o, self)
    def __neg__(self): return _elementwise("multiply", self, -1)

    def astype(self, dtype: str):
        """A new tensor of this one's elements cast to ``dtype`` (``topi.cast``, as TVM's
        ``Tensor.astype``)."""
        return _elementwise("cast", self, dtype)


# name -> function(lhs, rhs) for the Tensor operators above; filled by tepad.topi
_ELEMENTWISE: dict = {}


def register_elementwise(name: str, fn) -> None:
    """Make ``fn(lhs, rhs)`` the implementation of Tensor operator ``name`` ("add",
    "subtract", "multiply", "divide"; "cast" takes the tensor and a dtype)."""
    _ELEMENTWISE[name] = fn


def _elementwise(name, lhs, rhs):
    fn = _ELEMENTWISE.get(name)
    if fn is None:
        raise TepadError(f"Tensor operator {name} needs tepad.topi (tepad.te registers it)")
    return fn(lhs, rhs)


class _TensorSlice:
    """A tensor indexed with fewer indices than it has dimensions (``A[i]`` of a 2-D ``A``).

    Only further indexing is allowed (TVM's chained ``A[i][j]``). Using it as an expression
    (arithmetic, comparison, ``convert``, a compute body, a reduction source, ``bool``) raises
    a TepadError naming the tensor, its rank and the number of indices given.
    """

    def __init__(self, tensor, indices):
        self.tensor, self.indices = tensor, tuple(indices)

    def __getitem__(self, more):
        if not isinstance(more, tuple):
            more = (more,)
        return self.tensor[self.indices + more]

    def as_expr(self):
        t, n = self.tensor, len(self.indices)
        given = ", ".join(_index_str(i) for i in self.indices)
        wanted = ", ".join([_index_str(i) for i in self.indices] +
                           ["..."] * (t.ndim - n))
        raise TepadError(
            f"tensor {t.name} has {t.ndim} dimensions but {t.name}[{given}] gives {n} "
            f"ind{'ex' if n == 1 else 'ices'}, so it is not a value and cannot be used in an "
            f"expression; index every dimension: {t.name}[{wanted}] (or chain "
            f"{t.name}[{given}][...])")

    def _refuse(self, *_):
        self.as_expr()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refuse
    __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __abs__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __invert__ = __bool__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _refuse
    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.tensor.name}[{', '.join(_index_str(i) for i in self.indices)}]"


def _index_str(i):
    try:
        return expr_to_str(convert(i))
    except Exception:   # noqa: BLE001 -- only for a message: show what was given
        return repr(i)


class Operation:
    """Base of operations. Compared and hashed by identity."""

    def same_as(self, other) -> bool:
        """TVM's ``Object.same_as``: ``other`` is this very object."""
        return self is other

    num_outputs = 1

    def __init__(self, name, tag="", attrs=None):
        self.name = name
        self.tag = tag
        self.attrs = dict(attrs or {})

    def output(self, i=0) -> Tensor:
        return self._outputs[i]

    @property
    def input_tensors(self) -> list:
        return []

    def __repr__(self):
        return f"{type(self).__name__}({self.name})"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


class PlaceholderOp(Operation):
    """An input of the computation (``te.placeholder``): a shape and dtype, no definition."""

    def __init__(self, name, shape, dtype):
        super().__init__(name)
        self.shape = tuple(shape)
        self.dtype = dtype
        self._outputs = [Tensor(self, 0, self.shape, dtype)]


class ComputeOp(Operation):
    """``output[axis] = body`` (one body per output); ``reduce_axis`` are the reduction axes."""

    def __init__(self, name, tag, attrs, axis, body):
        super().__init__(name, tag, attrs)
        self.axis = AxisList(axis, name)
        self.body = list(body)
        self.reduce_axis = AxisList(self.body[0].axis if isinstance(self.body[0], Reduce)
                                    else [], name, "reduce_axis")
        self.num_outputs = len(self.body)
        shape = tuple(iv.dom.extent for iv in self.axis)
        self._outputs = [Tensor(self, k, shape, b.dtype) for k, b in enumerate(self.body)]

    @property
    def input_tensors(self) -> list:
        return collect_input_tensors(self.body)

    @property
    def root_iter_vars(self):
        return self.axis + self.reduce_axis


def collect_input_tensors(exprs) -> list:
    """Tensors read by ProducerLoads in ``exprs``, in first-use order, without repeats."""
    seen, out = set(), []

    def f(n):
        if isinstance(n, ProducerLoad) and n.producer not in seen:
            seen.add(n.producer)
            out.append(n.producer)
    for e in exprs:
        post_order_visit(e, f)
    return out


__all__ = ["Tensor", "Operation", "PlaceholderOp", "ComputeOp", "PrimExpr"]
