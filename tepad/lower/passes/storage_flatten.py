"""StorageFlatten: N-d buffers to flat memory.

Guarantees on the result: no BufferRealize remains (each became an Allocate of its region's
size, indices shifted by the region's origin); every BufferLoad/BufferStore has one index per
axis group of its buffer (one index without axis separators), row-major; argument buffers keep
their N-d declaration in ``buffer_map`` while the body uses flat views sharing the same data var.
"""
from __future__ import annotations

from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, IntImm, Var, add, max_expr, mul, sub
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.stmt import Allocate, BufferStore


class _Entry:
    def __init__(self, flat: Buffer, origin, extents, groups):
        self.flat, self.origin, self.extents, self.groups = flat, origin, extents, groups

    def index(self, indices):
        out = []
        for g in self.groups:
            e = None
            for a in g:
                i = indices[a]
                if self.origin is not None and not (isinstance(self.origin[a], IntImm) and
                                                    self.origin[a].value == 0):
                    i = sub(i, self.origin[a])
                e = i if e is None else add(mul(e, self.extents[a]), i)
            out.append(e if e is not None else IntImm(0))
        return out


class _Flatten(Mutator):
    def __init__(self, func: PrimFunc):
        self.entries = {}
        # a realized buffer's data var -> its allocation's var (other uses of the pointer:
        # views of the same memory, call arguments, a bound tensor intrinsic's buffer)
        self.data_map = {}
        self.views = {}
        for buf in func.buffer_map.values():
            self.entries[buf] = _Entry(buf.get_flattened_buffer(), None, buf.shape,
                                       buf.axis_groups())

    def visit_BufferRealize(self, s):
        buf = s.buffer
        bounds = self.visit(s.bounds)
        origin = [r.min for r in bounds]
        extents = [r.extent for r in bounds]
        data = Var(buf.name, "handle")
        tmp = Buffer(extents, buf.dtype, buf.name, data=data,
                     axis_separators=buf.axis_separators, scope=buf.scope)
        flat = tmp.get_flattened_buffer()
        self.entries[buf] = _Entry(flat, origin, extents, tmp.axis_groups())
        self.data_map[buf.data] = data
        body = self.visit(s.body)
        del self.entries[buf]
        del self.data_map[buf.data]
        shape = flat.shape
        if not all(isinstance(e, IntImm) for e in extents):
            # an exact-bounds extent is a formula that can go negative where the region is
            # empty (a consumer iteration past a non-dividing tail); nothing is stored then,
            # but the allocation size must not wrap: clamp every extent at 0
            clamped = Buffer([max_expr(e, IntImm(0, e.dtype)) for e in extents], buf.dtype,
                             buf.name, data=data, axis_separators=buf.axis_separators,
                             scope=buf.scope)
            shape = clamped.get_flattened_buffer().shape
        return Allocate(data, buf.dtype, shape, s.condition, body,
                        {"scope": buf.scope or "global"})

    def visit_BufferStore(self, s):
        e = self.entries.get(s.buffer)
        idx = self.visit(s.indices)
        val = self.visit(s.value)
        if e is None:
            buf = self._view(s.buffer)
            if buf is s.buffer and val is s.value and \
                    all(a is b for a, b in zip(idx, s.indices)):
                return s
            return BufferStore(buf, val, idx)
        return BufferStore(e.flat, val, e.index(idx))

    def visit_BufferLoad(self, x):
        e = self.entries.get(x.buffer)
        idx = self.visit(x.indices)
        if e is None:
            buf = self._view(x.buffer)
            if buf is x.buffer and all(a is b for a, b in zip(idx, x.indices)):
                return x
            return BufferLoad(buf, idx)
        return BufferLoad(e.flat, e.index(idx))

    def visit_Var(self, v):
        return self.data_map.get(v, v)

    def _view(self, buf):
        """A buffer this pass does not flatten, over the memory of a realized one: the same
        view of the allocation."""
        data = self.data_map.get(buf.data)
        if data is None:
            return buf
        v = self.views.get((buf, data))
        if v is None:
            v = self.views[(buf, data)] = Buffer(buf.shape, buf.dtype, buf.name, data=data,
                                                 axis_separators=buf.axis_separators,
                                                 scope=buf.scope)
        return v


def storage_flatten(func: PrimFunc, cache_line_size=None, create_bound_attributes=False) \
        -> PrimFunc:
    """Flatten every buffer access of ``func`` (see module docstring). An already flattened
    function (no realize, every access through a flat view) is returned as it is.

    ``cache_line_size`` and ``create_bound_attributes`` are TVM's arguments
    (``tir.transform.StorageFlatten(64)``), accepted and not used: allocations get the
    code generator's alignment, and no bound attributes are needed downstream."""
    body = _Flatten(func).visit(func.body)
    return func if body is func.body else func.with_body(body)
