"""flatten_physical_axes: one index per access, for targets with flat memory (the CPU).

StorageFlatten keeps one index per axis group (RFC 0039 axis separators), which is what
texture-like memories want. LLVM on the CPU addresses flat memory, so this pass combines the
group indices row-major using the flattened buffer's group extents. Guarantees: every
BufferLoad/BufferStore has exactly one index; buffers without separators are unchanged.
"""
from __future__ import annotations

from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, add, mul
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.stmt import BufferStore
from ...tir.transform import register_pass


class _Flat(Mutator):
    def __init__(self):
        self.flat = {}

    def _buffer(self, buf):
        b = self.flat.get(buf)
        if b is None:
            size = buf.shape[0]
            for e in buf.shape[1:]:
                size = mul(size, e)
            b = Buffer([size], buf.dtype, buf.name, data=buf.data, scope=buf.scope)
            self.flat[buf] = b
        return b

    def _index(self, buf, indices):
        e = indices[0]
        for ext, i in zip(buf.shape[1:], indices[1:]):
            e = add(mul(e, ext), i)
        return [e]

    def visit_BufferLoad(self, x):
        idx = self.visit(x.indices)
        if len(idx) == 1:
            return x if idx is x.indices else BufferLoad(x.buffer, idx)
        return BufferLoad(self._buffer(x.buffer), self._index(x.buffer, idx))

    def visit_BufferStore(self, s):
        idx = self.visit(s.indices)
        val = self.visit(s.value)
        if len(idx) == 1:
            if idx is s.indices and val is s.value:
                return s
            return BufferStore(s.buffer, val, idx)
        return BufferStore(self._buffer(s.buffer), val, self._index(s.buffer, idx))


@register_pass()
def flatten_physical_axes(func: PrimFunc) -> PrimFunc:
    """Combine each access's axis-group indices into one flat index (row-major over the
    group extents); ``func`` itself when no access has more than one index."""
    body = _Flat().visit(func.body)
    return func if body is func.body else func.with_body(body)
