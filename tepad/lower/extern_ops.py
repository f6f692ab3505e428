"""Lowering of extern ops (``te.extern``): their statement, bound to their tensors' memory.

ScheduleOps emits an extern stage as its user statement inside one ``buffer_bind_scope``
attribute per input and output (``node``: the pair ``(declared buffer, tensor)``), under a
realize of every output over its whole shape (an extern op writes its outputs whole).
``to_primfunc`` then calls ``bind_buffer`` to make the statement use the tensor's Buffer in
place of the buffer ``fcompute`` was given.
"""
from __future__ import annotations

from ..tensor.extern import ExternOp
from ..tir.buffer import Buffer
from ..tir.expr import BufferLoad, IntImm, Range
from ..tir.functor import Mutator
from ..tir.stmt import AttrStmt, BufferStore, ProducerRealize, seq
from .bind_buffer import BUFFER_BIND_SCOPE



EXTERN_SCOPE = "extern_scope"


def extern_pipeline(stage, consumer, body=None):
    """The statement of extern ``stage`` (``body``, default the op's own) followed by
    ``consumer`` (None at the end), with its outputs realized over their whole shapes."""
    op: ExternOp = stage.op
    body = op.body if body is None else body
    # TVM marks the extern region (``attr [0] "extern_scope" = 0``): kept to the end, a hint
    # only (the code generators emit its body)
    body = AttrStmt(IntImm(0, "int32"), EXTERN_SCOPE, IntImm(0, "int32"), body)
    pairs = list(zip(op.input_placeholders, op.inputs)) + \
        [(b, op.output(k)) for k, b in enumerate(op.output_placeholders)]
    for buf, t in reversed(pairs):
        body = AttrStmt((buf, t), BUFFER_BIND_SCOPE, IntImm(1, "bool"), body)
    pipe = body if consumer is None else seq(body, consumer)
    for k in reversed(range(op.num_outputs)):
        t = op.output(k)
        bounds = [Range.from_min_extent(IntImm(0, d.dtype), d) for d in t.shape]
        pipe = ProducerRealize(t, bounds, IntImm(1, "bool"), pipe, stage.scope or "")
    return pipe


class _Bind(Mutator):
    def __init__(self, declared: Buffer, real: Buffer):
        self.declared, self.real = declared, real
        self.views = {}

    def _buf(self, b):
        if b is self.declared:
            return self.real
        if b.data is not self.declared.data:
            return b
        v = self.views.get(b)
        if v is None:            # another view of the same memory (ir_builder.buffer_ptr)
            v = self.views[b] = Buffer(b.shape, b.dtype, b.name, data=self.real.data,
                                       strides=b.strides, elem_offset=b.elem_offset,
                                       axis_separators=b.axis_separators, scope=b.scope)
        return v

    def visit_BufferLoad(self, e):
        return BufferLoad(self._buf(e.buffer), self.visit(e.indices))

    def visit_BufferStore(self, s):
        return BufferStore(self._buf(s.buffer), self.visit(s.value), self.visit(s.indices))

    def visit_Var(self, v):
        return self.real.data if v is self.declared.data else v

    def visit_Call(self, e):
        args = [self._buf(a) if isinstance(a, Buffer) else self.visit(a) for a in e.args]
        if all(a is b for a, b in zip(args, e.args)):
            return e
        return type(e)(e.dtype, e.op, args)


def bind_buffer(body, declared: Buffer, real: Buffer):
    """``body`` with every use of the ``declared`` buffer (its loads, stores, data pointer,
    and other buffers over the same pointer) moved to ``real``."""
    return _Bind(declared, real).visit(body)


__all__ = ["extern_pipeline", "bind_buffer", "BUFFER_BIND_SCOPE"]
