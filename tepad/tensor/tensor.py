"""Tensors and operations: the definition side (what is computed), independent of schedules."""
from __future__ import annotations

from ..errors import TepadError
from ..tir import dtype as dt
from ..tir.expr import ProducerLoad, PrimExpr, convert
from ..tir.functor import post_order_visit
from ..tir.printer import expr_to_str
from ..tir.reduce import Reduce


class Tensor:
    """Output ``value_index`` of ``op``. Equal to another Tensor that is the same output."""

    def __init__(self, op, value_index, shape, dtype):
        self.op = op
        self.value_index = value_index
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def name(self):
        return self.op.name if self.op.num_outputs == 1 else f"{self.op.name}.v{self.value_index}"

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) < self.ndim:
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
        return self[indices]

    def __eq__(self, other):
        return isinstance(other, Tensor) and other.op is self.op and \
            other.value_index == self.value_index

    def __hash__(self):
        return hash((id(self.op), self.value_index))

    def __repr__(self):
        shape = ", ".join(expr_to_str(s) for s in self.shape)
        return f"Tensor(name={self.name}, shape=({shape}), dtype={self.dtype})"


class _TensorSlice:
    def __init__(self, tensor, indices):
        self.tensor, self.indices = tensor, tuple(indices)

    def __getitem__(self, more):
        if not isinstance(more, tuple):
            more = (more,)
        return self.tensor[self.indices + more]


class Operation:
    """Base of operations. Compared and hashed by identity."""

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
    def __init__(self, name, shape, dtype):
        super().__init__(name)
        self.shape = tuple(shape)
        self.dtype = dtype
        self._outputs = [Tensor(self, 0, self.shape, dtype)]


class ComputeOp(Operation):
    """``output[axis] = body`` (one body per output); ``reduce_axis`` are the reduction axes."""

    def __init__(self, name, tag, attrs, axis, body):
        super().__init__(name, tag, attrs)
        self.axis = list(axis)
        self.body = list(body)
        self.reduce_axis = list(self.body[0].axis) if isinstance(self.body[0], Reduce) else []
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
