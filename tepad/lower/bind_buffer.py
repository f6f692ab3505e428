"""Buffer binding (TVM's ``buffer_bind_scope`` / ArgBinder): a tensor intrinsic's buffer
becomes a region of a real buffer.

``bind_buffer_scope`` resolves one ``AttrStmt((buffer, tensor), "buffer_bind_scope",
tvm_tuple(min0, ext0, ...), body)`` once the tensor has its Buffer (in ``to_primfunc``):
inside ``body`` the intrinsic buffer's ``data`` is the real buffer's data, its symbolic
``elem_offset`` the region's first element in the real buffer's row-major storage, its
symbolic strides the real buffer's strides and its symbolic shape the region's extents;
loads and stores of it become loads and stores of the real buffer (N-d, so later passes
flatten them like any other access).
"""
from __future__ import annotations

from ..arith import Analyzer
from ..errors import TepadError
from ..tir.buffer import Buffer
from ..tir.expr import BufferLoad, IntImm, Var
from ..tir.functor import collect_vars, ir_transform, substitute
from ..tir.printer import expr_to_str
from ..tir.stmt import BufferStore

BUFFER_BIND_SCOPE = "buffer_bind_scope"


def _row_major_strides(extents):
    out = []
    acc = IntImm(1, extents[-1].dtype) if extents else None
    for e in reversed(extents):
        out.append(acc)
        acc = acc * e
    return list(reversed(out))


def bind_buffer_scope(attr, target: Buffer, realize_bounds=None, transformed=False):
    """The body of the binding ``attr`` with the intrinsic buffer replaced by its region of
    ``target`` (see module docstring). ``realize_bounds``: the Ranges ``target`` is
    allocated over when it is not an argument (its storage starts at their minimum).

    A region that does not fit the intrinsic buffer (a leading dimension with more than one
    element, an extent that differs from a constant dimension, a non-contiguous region for a
    buffer without strides, a constant elem_offset that differs) is a TepadError naming both
    buffers."""
    buf, tensor = attr.node
    args = list(attr.value.args)
    mins, exts = args[0::2], args[1::2]
    ana = Analyzer()
    where = f"binding buffer {buf.name} of a tensor intrinsic to {target.name}"
    pointers = {buf.data, buf.elem_offset, *buf.strides} & collect_vars(attr.body)
    if (transformed or len(target.axis_separators) > 0) and pointers:
        raise TepadError(f"{where}: {target.name} has a transformed layout "
                         "(transform_layout); an intrinsic that uses a buffer's data pointer, "
                         "elem_offset or strides binds to row-major buffers only (loads and "
                         "stores, vload/vstore, bind to any layout)")
    lead = len(mins) - buf.ndim
    if lead < 0:
        raise TepadError(f"{where}: the region has {len(mins)} dimensions, the buffer "
                         f"{buf.ndim}")
    for k in range(lead):
        if not ana.can_prove_equal(exts[k], IntImm(1, exts[k].dtype)):
            raise TepadError(f"{where}: the region spans {expr_to_str(exts[k])} elements "
                             f"along dimension {k}, which {buf.name} does not have")
    if realize_bounds is not None:
        origin = [r.min for r in realize_bounds]
        extents = [r.extent for r in realize_bounds]
    else:
        origin = [IntImm(0, e.dtype) for e in target.shape]
        extents = list(target.shape)
    strides = list(target.strides) if len(target.strides) == len(extents) else \
        _row_major_strides(extents)
    vmap = {}

    def bind(v, value, what):
        if isinstance(v, Var):
            if v in vmap and not ana.can_prove_equal(vmap[v], value):
                raise TepadError(f"{where}: {v.name} would be both {expr_to_str(vmap[v])} "
                                 f"and {expr_to_str(value)}")
            vmap.setdefault(v, value)
        elif not ana.can_prove_equal(v, value):
            raise TepadError(f"{where}: {buf.name}'s {what} is {expr_to_str(v)}, the region "
                             f"needs {expr_to_str(value)}")

    for j in range(buf.ndim):
        bind(buf.shape[j], exts[lead + j], f"dimension {j}")
    offset = IntImm(0, "int32")
    for k in range(len(mins)):
        offset = offset + (mins[k] - origin[k]) * strides[k]
    offset = ana.simplify(offset)
    if buf.strides:
        for j in range(buf.ndim):
            bind(buf.strides[j], strides[lead + j], f"stride {j}")
    else:
        for j in range(1, buf.ndim):
            if not ana.can_prove_equal(exts[lead + j], extents[lead + j]):
                raise TepadError(
                    f"{where}: the region is not contiguous (dimension {lead + j} takes "
                    f"{expr_to_str(exts[lead + j])} of {expr_to_str(extents[lead + j])} "
                    f"elements) and {buf.name} has no strides; declare it with symbolic "
                    f"strides (tir.decl_buffer(..., strides=[te.var('s'), 1]))")
    if isinstance(buf.elem_offset, Var):
        bind(buf.elem_offset, offset, "elem_offset")
    elif not ana.can_prove_equal(buf.elem_offset, offset):
        raise TepadError(f"{where}: the region starts at element {expr_to_str(offset)} of "
                         f"{target.name} but {buf.name} has elem_offset "
                         f"{expr_to_str(buf.elem_offset)}; declare it with offset_factor "
                         "(tir.decl_buffer(..., offset_factor=1)) to bind it at an offset")
    vmap[buf.data] = target.data

    def index(idx):
        return [mins[k] for k in range(lead)] + \
            [ana.simplify(mins[lead + j] + substitute(i, vmap)) for j, i in enumerate(idx)]

    def post(n):
        if isinstance(n, BufferLoad) and n.buffer is buf:
            return BufferLoad(target, index(n.indices))
        if isinstance(n, BufferStore) and n.buffer is buf:
            return BufferStore(target, n.value, index(n.indices))
        return None
    return substitute(ir_transform(attr.body, postorder=post), vmap)


__all__ = ["BUFFER_BIND_SCOPE", "bind_buffer_scope"]
