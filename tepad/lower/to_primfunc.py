"""Turn the TE-level statement into a PrimFunc over Buffers (SchedulePostProcToPrimFunc).

Argument tensors get Buffers bound to the function parameters (their realize is dropped: the
caller owns that memory); every other realized tensor gets a BufferRealize over its region.
"""
from __future__ import annotations

from ..errors import TepadError
from ..te.tensor import Tensor
from ..tir.buffer import Buffer
from ..tir.expr import BufferLoad, Var
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import BufferRealize, BufferStore


class _ToBuffers(Mutator):
    def __init__(self, arg_buffers: dict):
        self.buffers = dict(arg_buffers)   # Tensor -> Buffer
        self.args = set(arg_buffers)

    def visit_ProducerRealize(self, s):
        t = s.producer
        if t in self.args:
            return self.visit(s.body)
        buf = Buffer(t.shape, t.dtype, t.op.name if t.op.num_outputs == 1 else t.name,
                     scope=s.storage_scope)
        self.buffers[t] = buf
        bounds = self.visit(s.bounds)
        body = self.visit(s.body)
        del self.buffers[t]
        return BufferRealize(buf, bounds, s.condition, body)

    def _buffer(self, t):
        buf = self.buffers.get(t)
        if buf is None:
            raise TepadError(
                f"tensor {t.name} is read or written but neither computed here nor passed in "
                "args: add it to the argument list of lower/build")
        return buf

    def visit_ProducerStore(self, s):
        return BufferStore(self._buffer(s.producer), self.visit(s.value), self.visit(s.indices))

    def visit_ProducerLoad(self, e):
        return BufferLoad(self._buffer(e.producer), self.visit(e.indices))


def to_primfunc(body, arg_tensors, names, name="main") -> PrimFunc:
    """``arg_tensors`` are the schedule's current tensors; ``names`` their user-facing names."""
    arg_buffers = {}
    params = []
    seen_names = set()
    for t, nm in zip(arg_tensors, names):
        if not isinstance(t, Tensor):
            raise TepadError(f"lower/build arguments must be tensors, got {t!r}")
        if t in arg_buffers:
            raise TepadError(f"tensor {nm} appears twice in the argument list")
        bname = nm
        k = 1
        while bname in seen_names:
            bname = f"{nm}_{k}"
            k += 1
        seen_names.add(bname)
        buf = Buffer(t.shape, t.dtype, bname)
        arg_buffers[t] = buf
        params.append(buf.data)
    new_body = _ToBuffers(arg_buffers).visit(body)
    buffer_map = {b.data: b for b in arg_buffers.values()}
    return PrimFunc(params, new_body, buffer_map,
                    {"global_symbol": name, "from_legacy_te_schedule": True})
