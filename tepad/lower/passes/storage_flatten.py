"""StorageFlatten: N-d buffers to flat memory.

Guarantees on the result: no BufferRealize remains (each became an Allocate of its region's
size, indices shifted by the region's origin); every BufferLoad/BufferStore has one index per
axis group of its buffer (one index without axis separators), row-major; argument buffers keep
their N-d declaration in ``buffer_map`` while the body uses flat views sharing the same data var.
A realize under ``buffer_dim_align`` attrs (``Stage.storage_align``) gets TVM's padded strides:
its allocation is ``stride[0] * extent[0]`` elements and the attrs are removed. A ``Prefetch``
becomes loops of ``tir.prefetch`` calls, one per cache line.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...errors import TepadError
from ...tir.buffer import Buffer
from ...tir import dtype as dt
from ...tir.expr import (BufferLoad, IntImm, Var, add, floordiv, floormod, max_expr, min_expr,
                         mul, sub)
from ...tir.function import PrimFunc
from ...tir.functor import Mutator
from ...tir.op import call_intrin
from ...tir.stmt import Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind
from ...tir.transform import register_pass

# storage_align's attr (ScheduleOps): value tvm_tuple(dim, factor, offset), node the buffer.
BUFFER_DIM_ALIGN = "buffer_dim_align"


def _simplify(e):
    return Analyzer().simplify(e)




class _Entry:
    def __init__(self, flat: Buffer, origin, extents, groups, strides=None):
        self.flat, self.origin, self.extents, self.groups = flat, origin, extents, groups
        self.strides = strides

    def index(self, indices):
        out = []
        for g in self.groups:
            e = None
            for a in g:
                i = indices[a]
                if self.origin is not None and not (isinstance(self.origin[a], IntImm) and
                                                    self.origin[a].value == 0):
                    i = sub(i, self.origin[a])
                if self.strides is not None:
                    term = i if _is_one(self.strides[a]) else mul(i, self.strides[a])
                    e = term if e is None else add(e, term)
                else:
                    e = i if e is None else add(mul(e, self.extents[a]), i)
            out.append(e if e is not None else IntImm(0))
        return out


def _is_one(e):
    return isinstance(e, IntImm) and e.value == 1


def _take_dim_align(body, buf):
    """``(body without its buffer_dim_align attrs for buf, {dim: (factor, offset)})``: the
    attrs ScheduleOps put at the top of a realize (storage_align), looked for through the
    AttrStmts there."""
    align, kept = {}, []
    node = body
    while isinstance(node, AttrStmt):
        if node.attr_key == BUFFER_DIM_ALIGN and node.node is buf:
            dim, factor, offset = (int(a.value) for a in node.value.args)
            align[dim] = (factor, offset)
        else:
            kept.append(node)
        node = node.body
    if not align:
        return body, align
    for a in reversed(kept):
        node = AttrStmt(a.node, a.attr_key, a.value, node)
    return node, align


def aligned_strides(extents, align):
    """TVM's storage_align strides, innermost first: a dimension with ``(factor, offset)``
    gets the dense stride rounded up to the next value that is ``offset`` modulo ``factor``;
    returns ``(strides, allocation size)``."""
    strides = [None] * len(extents)
    stride = IntImm(1, extents[0].dtype if extents else "int32")
    for dim in reversed(range(len(extents))):
        if dim in align:
            factor, offset = align[dim]
            f = IntImm(factor, stride.dtype)
            stride = add(stride, floormod(f + IntImm(offset, stride.dtype) -
                                          floormod(stride, f), f))
            stride = _simplify(stride)
        strides[dim] = stride
        stride = _simplify(mul(stride, extents[dim]))
    return strides, stride


class _Flatten(Mutator):
    def __init__(self, func: PrimFunc, cache_line_size: int = 64):
        self.cache_line_size = cache_line_size
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
        inner, align = _take_dim_align(s.body, buf)
        if align:
            if buf.axis_separators:
                raise TepadError(f"buffer {buf.name}: storage_align with axis separators is "
                                 "not supported")
            clamped = [max_expr(e, IntImm(0, e.dtype)) if not isinstance(e, IntImm) else e
                       for e in extents]
            strides, size = aligned_strides(clamped, align)
            flat = Buffer([size], buf.dtype, buf.name, data=data, scope=buf.scope)
            self.entries[buf] = _Entry(flat, origin, extents, tmp.axis_groups(), strides)
            self.data_map[buf.data] = data
            body = self.visit(inner)
            del self.entries[buf]
            del self.data_map[buf.data]
            return Allocate(data, buf.dtype, [size], s.condition, body,
                            {"scope": buf.scope or "global"})
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

    def visit_AttrStmt(self, s):
        # TVM's StorageFlatten: a double_buffer_scope on a realized buffer names its
        # allocation's var (inject_double_buffer works on the Allocate)
        if s.attr_key == "double_buffer_scope" and isinstance(s.node, Buffer) and \
                s.node in self.entries:
            data = self.data_map.get(s.node.data, s.node.data)
            return AttrStmt(data, s.attr_key, self.visit(s.value), self.visit(s.body))
        return self.generic_visit(s)

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


    def visit_Prefetch(self, s):
        """TVM's prefetch lowering: the innermost axes that fit in one cache line are one
        block; a loop over the region's cache lines along the next axis (stride: the lines'
        worth of elements) and plain loops over the outer axes issue one ``tir.prefetch`` of
        ``address_of(buffer[...])`` each. Indices are clamped into the buffer (a prefetch
        region may reach past it: iterations ahead of the last one)."""
        buf = s.buffer
        e = self.entries.get(buf)
        bounds = self.visit(s.bounds)
        if len(bounds) != len(buf.shape):
            raise TepadError(f"prefetch of {buf.name}: {len(bounds)} ranges for a buffer of "
                             f"{len(buf.shape)} dimensions")
        if e is not None and e.origin is not None:
            lo = list(e.origin)
            shape = list(e.extents)
        else:
            lo = [IntImm(0, r.min.dtype) for r in bounds]
            shape = list(buf.shape)
        elem = max(1, self.cache_line_size // (dt.parse(buf.dtype).bytes * dt.lanes(buf.dtype)))
        starts, block = len(bounds) - 1, 1
        while starts > 0:
            d = shape[starts]
            if not isinstance(d, IntImm) or block * d.value > elem:
                break
            block *= d.value
            starts -= 1
        stride = max(1, elem // block)
        ana = Analyzer()
        loop_vars, index = {}, []
        for d, r in enumerate(bounds):
            if d > starts:
                idx = r.min
            else:
                v = Var(f"prefetch.{buf.name}.{d}", r.min.dtype)
                loop_vars[d] = v
                idx = add(r.min, mul(v, IntImm(stride, v.dtype))) if d == starts else \
                    add(r.min, v)
            hi = sub(add(lo[d], shape[d]), IntImm(1, idx.dtype))
            idx = max_expr(min_expr(idx, hi), lo[d])
            index.append(ana.simplify(idx))
        load = BufferLoad(buf, index)
        load = self.visit_BufferLoad(load) if e is not None else \
            BufferLoad(buf.get_flattened_buffer(), _row_major(index, buf.shape))
        body = Evaluate(call_intrin("int32", "tir.prefetch",
                                    call_intrin("handle", "tir.address_of", load), 0, 3, 1))
        for d in reversed(range(starts + 1)):
            ext = bounds[d].extent
            if d == starts:
                ext = floordiv(add(ext, IntImm(stride - 1, ext.dtype)),
                               IntImm(stride, ext.dtype))
            body = For(loop_vars[d], IntImm(0, ext.dtype), ana.simplify(ext), ForKind.SERIAL,
                       body)
        return body


def _row_major(index, shape):
    e = None
    for i, n in zip(index, shape):
        e = i if e is None else add(mul(e, n), i)
    return [e if e is not None else IntImm(0)]


@register_pass("StorageFlatten", "FlattenBuffer")
def storage_flatten(func: PrimFunc, cache_line_size=None, create_bound_attributes=False) \
        -> PrimFunc:
    """Flatten every buffer access of ``func`` (see module docstring). An already flattened
    function (no realize, every access through a flat view) is returned as it is.

    ``cache_line_size`` and ``create_bound_attributes`` are TVM's arguments
    (``tir.transform.StorageFlatten(64)``): the cache line (bytes, default 64) sizes the loops
    a ``Prefetch`` becomes; allocations get the code generator's alignment, and no bound
    attributes are needed downstream."""
    body = _Flatten(func, cache_line_size or 64).visit(func.body)
    return func if body is func.body else func.with_body(body)
