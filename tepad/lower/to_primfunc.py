"""Turn the TE-level statement into a PrimFunc over Buffers (SchedulePostProcToPrimFunc).

Argument tensors get Buffers bound to the function parameters (their realize is dropped: the
caller owns that memory); every other realized tensor gets a BufferRealize over its region.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tensor.tensor import Tensor
from ..tir.buffer import Buffer
from ..tir import dtype as dt
from ..tir.expr import BufferLoad, Call, Var
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import AttrStmt, BufferRealize, BufferStore
from .bind_buffer import BUFFER_BIND_SCOPE, bind_buffer_scope
from .extern_ops import bind_buffer


class _ToBuffers(Mutator):
    def __init__(self, arg_buffers: dict, layouts: dict):
        self.buffers = dict(arg_buffers)   # Tensor -> Buffer
        self.args = set(arg_buffers)
        self.layouts = layouts             # Tensor -> (index maps, axis separators, pad)
        self.layout_of = {}                # Buffer -> (index maps, axis separators, pad)
        self.realized = {}                 # Tensor -> its realize bounds, while in scope
        for t, b in arg_buffers.items():
            if t in layouts:
                self.layout_of[b] = layouts[t]

    def visit_ProducerRealize(self, s):
        t = s.producer
        if t in self.args:
            return self.visit(s.body)
        buf = Buffer(t.shape, t.dtype, t.op.name if t.op.num_outputs == 1 else t.name,
                     scope=s.storage_scope)
        self.buffers[t] = buf
        if t in self.layouts:
            self.layout_of[buf] = self.layouts[t]
        bounds = self.visit(s.bounds)
        self.realized[t] = bounds
        body = self.visit(s.body)
        del self.buffers[t], self.realized[t]
        return BufferRealize(buf, bounds, s.condition, body)

    def _buffer(self, t):
        buf = self.buffers.get(t)
        if buf is None:
            raise TepadError(
                f"tensor {t.name} is read or written but neither computed here nor passed in "
                "args: add it to the argument list of lower/build")
        return buf

    def visit_AttrStmt(self, s):
        if s.attr_key == "prefetch_scope" and s.node not in self.buffers:
            # a prefetch of a tensor not realized here (inlined, or computed inside this
            # loop): nothing to prefetch; a hint, so it goes
            return self.visit(s.body)
        if s.attr_key == BUFFER_BIND_SCOPE:
            declared, t = s.node
            if isinstance(s.value, Call):        # a tensor intrinsic's buffer: a region
                return self.visit(bind_buffer_scope(s, self._buffer(t), self.realized.get(t),
                                                    t in self.layouts))
            # an extern op's buffer: the whole tensor's memory
            return self.visit(bind_buffer(s.body, declared, self._buffer(t)))
        if isinstance(s.node, Tensor):
            return AttrStmt(self._buffer(s.node), s.attr_key, self.visit(s.value),
                            self.visit(s.body))
        return self.generic_visit(s)

    def visit_ProducerStore(self, s):
        return BufferStore(self._buffer(s.producer), self.visit(s.value), self.visit(s.indices))

    def visit_ProducerLoad(self, e):
        buf = self._buffer(e.producer)
        indices = self.visit(e.indices)
        if e.producer in self.args:
            indices = buf.broadcast_indices(indices)
        return BufferLoad(buf, indices)


def to_primfunc(body, arg_tensors, names, name="main", layouts=None, bound=None) -> PrimFunc:
    """``arg_tensors`` are the schedule's current tensors; ``names`` their user-facing names.

    ``layouts`` maps tensors to ``(index maps, axis separators, pad value)`` from
    transform_layout; they become the attributes ``layout_transform_map``,
    ``layout_axis_separators`` and ``layout_pad_value`` keyed by Buffer, for
    apply_buffer_transforms. ``bound``: ``{argument position: Buffer}`` the caller declared
    for that argument (``binds``), used as it is.
    """
    bound = bound or {}
    arg_buffers = {}
    params = []
    seen_names = set()
    for pos, (t, nm) in enumerate(zip(arg_tensors, names)):
        if isinstance(t, Var):
            if t in params:
                raise TepadError(f"variable {nm} appears twice in the argument list")
            if t.dtype == "handle" or not (dt.is_int(t.dtype) or dt.is_float(t.dtype)):
                raise TepadError(f"scalar argument {nm} must have an integer or float dtype, "
                                 f"got {t.dtype}")
            params.append(t)
            continue
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
        buf = bound.get(pos) or Buffer(t.shape, t.dtype, bname)
        arg_buffers[t] = buf
        params.append(buf.data)
    conv = _ToBuffers(arg_buffers, layouts or {})
    new_body = conv.visit(body)
    buffer_map = {b.data: b for b in arg_buffers.values()}
    attrs = {"global_symbol": name, "from_legacy_te_schedule": True}
    if conv.layout_of:
        attrs["layout_transform_map"] = {b: list(v[0]) for b, v in conv.layout_of.items()}
        attrs["layout_axis_separators"] = {b: list(v[1]) for b, v in conv.layout_of.items()}
        attrs["layout_pad_value"] = {b: v[2] for b, v in conv.layout_of.items()}
    return PrimFunc(params, new_body, buffer_map, attrs)


def postproc_to_primfunc(arg_list, body, binds, name="main") -> PrimFunc:
    """TVM's ``SchedulePostProcToPrimFunc(arg_list, body, binds)``: ``arg_list`` holds
    Buffers, Tensors (their buffer: ``binds[tensor]``, else a new dense one) or Vars, in
    parameter order; ``binds`` maps tensors read or written in ``body`` to Buffers."""
    arg_buffers = dict(binds or {})
    params, buffer_map = [], {}
    for a in arg_list:
        if isinstance(a, Tensor):
            buf = arg_buffers.setdefault(a, Buffer(a.shape, a.dtype, a.op.name))
        elif isinstance(a, Buffer):
            buf = a
        elif isinstance(a, Var):
            params.append(a)
            continue
        else:
            raise TepadError(f"SchedulePostProcToPrimFunc: argument {a!r} is not a Tensor, "
                             "Buffer or Var")
        params.append(buf.data)
        buffer_map[buf.data] = buf
    new_body = _ToBuffers(arg_buffers, {}).visit(body)
    return PrimFunc(params, new_body, buffer_map,
                    {"global_symbol": name, "from_legacy_te_schedule": True})
