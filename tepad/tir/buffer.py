"""Buffers: typed, shaped views of memory, with axis separators (RFC 0039)."""
from __future__ import annotations

from ..errors import TepadError
from . import dtype as dt
from .expr import BufferLoad, PrimExpr, Var, convert, add, mul, const
from .stmt import BufferStore


class _AxisSeparator:
    """The marker placed inside a transform_layout mapping's result list (RFC 0039): the axes
    on either side of it flatten to separate physical axes."""

    def __repr__(self):
        return "te.AXIS_SEPARATOR"


AXIS_SEPARATOR = _AxisSeparator()


class Buffer:
    """A buffer declaration. Compared and hashed by identity.

    ``shape`` is the (logical or physical) N-d shape; ``axis_separators`` split the axes into
    groups that each flatten to one physical axis (RFC 0039); an empty list means one flat axis.
    """

    def __init__(self, shape, dtype="float32", name="buffer", data=None, strides=(),
                 elem_offset=0, axis_separators=(), scope="global"):
        self.shape = tuple(convert(s) for s in shape)
        self.dtype = dt.canonical(dtype)
        self.name = name
        self.data = data if data is not None else Var(name, "handle")
        self.strides = tuple(convert(s) for s in strides)
        self.elem_offset = convert(elem_offset)
        self.axis_separators = tuple(int(a) for a in axis_separators)
        self.scope = scope
        last = 0
        for a in self.axis_separators:
            if not last <= a <= len(self.shape):
                raise TepadError(
                    f"buffer {name}: axis separators {list(self.axis_separators)} must be "
                    f"increasing positions between 0 and {len(self.shape)}")
            last = a

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        shape = ", ".join(repr(s) for s in self.shape)
        return f"Buffer({self.name}, ({shape}), {self.dtype!r})"

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return BufferLoad(self, [convert(i) for i in indices])

    def vload(self, indices, dtype=None):
        """The element at ``indices`` (an index or a tuple of them) as a BufferLoad."""
        if not isinstance(indices, (tuple, list)):
            indices = (indices,)
        return self[tuple(indices)]

    def vstore(self, indices, value):
        """``self[indices] = value`` as a BufferStore statement."""
        if not isinstance(indices, (tuple, list)):
            indices = (indices,)
        return BufferStore(self, value, [convert(i) for i in indices])

    def axis_groups(self) -> list[list[int]]:
        """Axis positions grouped by the separators: each group flattens to one physical axis."""
        bounds = [0, *self.axis_separators, len(self.shape)]
        return [list(range(bounds[k], bounds[k + 1])) for k in range(len(bounds) - 1)]

    def flattened_shape(self) -> list[PrimExpr]:
        out = []
        for g in self.axis_groups():
            e = const(1, self.shape[0].dtype if self.shape else "int32")
            for a in g:
                e = mul(e, self.shape[a])
            out.append(e)
        return out

    def flatten_indices(self, indices) -> list[PrimExpr]:
        """Row-major flattening of N-d indices into one index per axis group."""
        if len(indices) != len(self.shape):
            raise TepadError(
                f"buffer {self.name} has {len(self.shape)} dimensions, indexed with "
                f"{len(indices)} indices")
        out = []
        for g in self.axis_groups():
            e = None
            for a in g:
                idx = convert(indices[a])
                e = idx if e is None else add(mul(e, self.shape[a]), idx)
            out.append(e if e is not None else const(0))
        return out

    def get_flattened_buffer(self) -> "Buffer":
        n_groups = len(self.axis_separators) + 1
        return Buffer(self.flattened_shape(), self.dtype, self.name, data=self.data,
                      axis_separators=list(range(1, n_groups)), scope=self.scope)


def decl_buffer(shape, dtype="float32", name="buffer", **kw) -> Buffer:
    """A new Buffer (TVM's ``tvm.tir.decl_buffer``); keywords go to ``Buffer``."""
    return Buffer(shape, dtype, name, **kw)
