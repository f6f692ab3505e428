"""``arg_info_of``: what a Module checks about each argument of a lowered function."""
from __future__ import annotations

from ..runtime import ArgInfo
from ..runtime.args import param_info
from ..tir.expr import BufferLoad, Call, Var
from ..tir.function import PrimFunc
from ..tir.functor import post_order_visit
from ..tir.stmt import BufferStore


def arg_info_of(func: PrimFunc) -> list:
    """One ArgInfo per parameter: logical/physical shapes, pad value, written or not."""
    written = set()

    def visit(n):
        if isinstance(n, BufferStore):
            written.add(n.buffer.data)
        elif isinstance(n, Call):
            # memory handed to a call (an extern or packed function, an atomic through
            # address_of) may be written by it
            for a in n.args:
                if isinstance(a, Var) and a.dtype == "handle":
                    written.add(a)
                elif n.op == "tir.address_of" and isinstance(a, BufferLoad):
                    written.add(a.buffer.data)
    post_order_visit(func.body, visit)
    layouts = func.attrs.get("arg_layouts", {})
    out = []
    for k, p in enumerate(func.params):
        buf = func.buffer_map.get(p)
        if buf is None:
            out.append(param_info(p))
            continue
        lay = layouts.get(p, {})
        out.append(ArgInfo(buf.name, buf.dtype, tuple(lay.get("logical_shape", buf.shape)),
                           tuple(buf.shape), tuple(buf.axis_separators),
                           lay.get("pad_value"), p in written))
    return out


__all__ = ["arg_info_of"]
