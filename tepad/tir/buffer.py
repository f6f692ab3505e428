"""Buffers: typed, shaped views of memory, with axis separators (RFC 0039)."""
from __future__ import annotations

from ..errors import TepadError
from . import dtype as dt
from .expr import (EQ, BufferLoad, Call, IntImm, PrimExpr, Ramp, Select, Var, add, const,
                   convert, mul, sub)
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
                 elem_offset=0, axis_separators=(), scope="global", data_alignment=-1,
                 offset_factor=0, buffer_type=""):
        self.shape = tuple(convert(s) for s in shape)
        self.dtype = dt.canonical(dtype)
        self.name = name
        self.data = data if data is not None else Var(name, "handle")
        self.strides = tuple(convert(s) for s in strides)
        self.elem_offset = convert(elem_offset)
        self.axis_separators = tuple(int(a) for a in axis_separators)
        self.scope = scope
        self.data_alignment = int(data_alignment)
        self.offset_factor = int(offset_factor)
        self.buffer_type = buffer_type
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

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very buffer (TVM's object identity)."""
        return self is other

    def broadcast_indices(self, indices) -> list:
        """``indices`` as an ``auto_broadcast`` buffer reads them: along a dimension whose
        size is symbolic, index 0 when that size is 1 at run time (TVM binds such a
        dimension's stride to 0), the index itself otherwise. Other buffers: unchanged."""
        indices = [convert(i) for i in indices]
        if self.buffer_type != "auto_broadcast":
            return indices
        out = []
        for i, n in zip(indices, self.shape):
            if isinstance(n, IntImm) or isinstance(i, IntImm):
                out.append(i)
            else:
                out.append(Select(EQ(n, IntImm(1, n.dtype)), IntImm(0, i.dtype), i))
        return out

    READ = 1    # access_ptr masks, as TVM's Buffer.READ / Buffer.WRITE
    WRITE = 2

    def offset_of(self, indices) -> list:
        """The element offset of ``indices`` in each flattened axis group (one offset for a
        buffer without axis separators), ``elem_offset`` included in the first."""
        indices = [convert(i) for i in (indices if isinstance(indices, (list, tuple))
                                        else [indices])]
        if len(indices) != len(self.shape):
            raise TepadError(f"buffer {self.name}: offset_of takes {len(self.shape)} indices, "
                             f"got {len(indices)}")
        out = []
        for g in self.axis_groups():
            off = None
            for k in g:
                stride = self.strides[k] if len(self.strides) == len(self.shape) else None
                if stride is not None:
                    term = mul(indices[k], stride)
                    off = term if off is None else add(off, term)
                else:
                    off = indices[k] if off is None else add(mul(off, self.shape[k]),
                                                             indices[k])
            out.append(off if off is not None else const(0))
        if out and not (hasattr(self.elem_offset, "value") and self.elem_offset.value == 0):
            out[0] = add(self.elem_offset, out[0])
        return out

    def _vector_index(self, begin, lanes: int, what: str) -> list:
        """``begin`` (one index per dimension) with its last index the ``lanes`` consecutive
        elements from there (a Ramp) when ``lanes > 1``."""
        begin = [convert(i) for i in (begin if isinstance(begin, (list, tuple)) else [begin])]
        if lanes > 1:
            if not begin:
                raise TepadError(f"buffer {self.name}: {what} of {lanes} lanes needs an index")
            begin[-1] = Ramp(begin[-1], 1, lanes)
        return begin

    def vload(self, begin, dtype=None):
        """The element at ``begin`` (one index per dimension) as a BufferLoad; with a ``dtype``
        of more lanes than the buffer's element (``"float32x4"`` from a float32 buffer), the
        consecutive elements from ``begin`` along the last dimension."""
        lanes = 1
        if dtype is not None:
            d = dt.parse(dtype)
            if d.scalar != dt.parse(self.dtype).scalar:
                raise TepadError(f"buffer {self.name}: vload of dtype {dtype} from a "
                                 f"{self.dtype} buffer; load {self.dtype} (or a vector of it, "
                                 f"e.g. {self.dtype}x4) and cast")
            lanes = max(1, d.lanes // dt.lanes(self.dtype))
        return BufferLoad(self, self._vector_index(begin, lanes, "vload"))

    def vstore(self, begin, value):
        """``BufferStore(self, value, begin)``: store ``value`` at ``begin`` (a vector value
        of the buffer's element type fills that many consecutive elements along the last
        dimension)."""
        value = convert(value)
        lanes = max(1, dt.lanes(value.dtype) // dt.lanes(self.dtype))
        return BufferStore(self, value, self._vector_index(begin, lanes, "vstore"))

    def access_ptr(self, access_mask, ptr_type="handle", content_lanes=1, offset=0,
                   extent=None):
        """TVM's ``Buffer.access_ptr``: ``tir.tvm_access_ptr(type_annotation(dtype), data,
        elem_offset + offset, extent, mask)``.

        ``access_mask`` is ``"r"``, ``"w"``, ``"rw"`` (bits 1 and 2) or the int itself. The
        extent defaults to the buffer's element count (``strides[0] * shape[0]`` when strided)
        less ``offset``. ``content_lanes`` > 1 is refused (vector element types)."""
        mask = _access_mask(access_mask, self.name)
        if int(content_lanes) != 1:
            raise TepadError(f"buffer {self.name}: access_ptr(content_lanes={content_lanes}) "
                             "needs vector element types, which tepad does not support; use "
                             "content_lanes=1")
        offset = convert(offset)
        if extent is None:
            if not self.shape:
                extent = const(1)
            elif len(self.strides) == len(self.shape):
                extent = mul(self.strides[0], self.shape[0])
            else:
                extent = self.shape[0]
                for e in self.shape[1:]:
                    extent = mul(extent, e)
            extent = sub(extent, offset) if not (hasattr(offset, "value") and
                                                 offset.value == 0) else extent
        else:
            extent = convert(extent)
        elem = add(self.elem_offset, offset) if not (hasattr(offset, "value") and
                                                      offset.value == 0) else self.elem_offset
        return Call(ptr_type, "tir.tvm_access_ptr",
                    [type_annotation(self.dtype), self.data, elem, extent, const(mask)])

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
        """The buffer over the same memory with one axis per axis group; a buffer that is
        flat already (one axis per group, no strides, no element offset) is returned
        itself."""
        n_groups = len(self.axis_separators) + 1
        if self.ndim == n_groups and not self.strides and \
                isinstance(self.elem_offset, IntImm) and self.elem_offset.value == 0:
            return self
        return Buffer(self.flattened_shape(), self.dtype, self.name, data=self.data,
                      axis_separators=list(range(1, n_groups)), scope=self.scope)


def type_annotation(dtype) -> Call:
    """``tir.type_annotation()`` of ``dtype``: a call whose only meaning is its dtype."""
    return Call(dt.canonical(dtype), "tir.type_annotation", [])


def _access_mask(mask, name) -> int:
    if isinstance(mask, str):
        bits = 0
        for ch in mask:
            if ch not in "rw":
                raise TepadError(f"buffer {name}: access mask {mask!r} may only contain 'r' "
                                 "(read) and 'w' (write)")
            bits |= 1 if ch == "r" else 2
        return bits
    if isinstance(mask, int) and 0 <= mask <= 3:
        return mask
    raise TepadError(f"buffer {name}: access mask {mask!r} must be 'r', 'w', 'rw' or 1..3")


def decl_buffer(shape, dtype=None, name="buffer", data=None, strides=None, elem_offset=None,
                scope="", data_alignment=-1, offset_factor=0, buffer_type="",
                axis_separators=None, span=None) -> Buffer:
    """A new Buffer (TVM's ``tvm.tir.decl_buffer``).

    ``elem_offset=None`` with ``offset_factor`` != 0 gives a symbolic offset (a Var named
    ``<name>_elem_offset``): such a buffer binds to a region of a bigger buffer (tensorize);
    otherwise the offset is 0. ``strides`` of Vars likewise bind to the strides of that
    buffer. ``dtype`` defaults to float32, ``scope`` "" to global."""
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    if elem_offset is None:
        elem_offset = Var(name + "_elem_offset", "int32") if int(offset_factor) != 0 else 0
    if buffer_type not in ("", "auto_broadcast", "default"):
        raise TepadError(f"decl_buffer {name}: buffer_type {buffer_type!r} must be '' or "
                         "'auto_broadcast'")
    return Buffer(shape, dtype or "float32", name, data=data, strides=strides or (),
                  elem_offset=elem_offset, axis_separators=axis_separators or (),
                  scope=scope or "global", data_alignment=data_alignment,
                  offset_factor=offset_factor, buffer_type=buffer_type)
