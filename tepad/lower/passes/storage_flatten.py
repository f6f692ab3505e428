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
        # a realized buffer's own data var -> its allocation's (a bound tensor intrinsic
        # buffer's pointer, tensorize, refers to the realized buffer's data)
        self.data_remap = {}
        for buf in func.buffer_map.values():
            self.entries[buf] = _Entry(buf.get_flattened_buffer(), None, buf.shape,
                                       buf.axis_groups())

    def visit_BufferRealize(self, s):
        buf = s.buffer
        bounds = self.visit(s.bounds)
        origin = [r.min for r in bounds]
        extents = [r.extent for r in bounds]
        data = Var(buf.name, "handle")
        self.data_remap[buf.data] = data
        tmp = Buffer(extents, buf.dtype, buf.name, data=data,
                     axis_separators=buf.axis_separators, scope=buf.scope)
        flat = tmp.get_flattened_buffer()
        self.entries[buf] = _Entry(flat, origin, extents, tmp.axis_groups())
        body = self.visit(s.body)
        del self.entries[buf], self.data_remap[buf.data]
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

    def visit_Var(self, v):
        return self.data_remap.get(v, v)

    def visit_BufferStore(self, s):
        e = self.entries.get(s.buffer)
        idx = self.visit(s.indices)
        val = self.visit(s.value)
        if e is None:
            return BufferStore(s.buffer, val, idx)
        return BufferStore(e.flat, val, e.index(idx))

    def visit_BufferLoad(self, x):
        e = self.entries.get(x.buffer)
        idx = self.visit(x.indices)
        if e is None:
            return BufferLoad(x.buffer, idx)
        return BufferLoad(e.flat, e.index(idx))


def storage_flatten(func: PrimFunc) -> PrimFunc:
    """Flatten every buffer access of ``func`` (see module docstring)."""
    body = _Flatten(func).visit(func.body)
    return func.with_body(body)
