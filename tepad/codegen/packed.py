"""``tir.call_packed("name", *args)``: a call from generated code of a Python function
registered with ``tepad.register_func``, through the C symbol ``CALL_PACKED_SYMBOL`` that
``tepad.runtime.registry`` defines (its docstring describes the calling convention)."""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import TepadError
from .. import tir
from ..tir import dtype as dt
from .intrinsics import name_arg
from .lltypes import I32, I64, PTR, ident, ll_type
from .symbols import CALL_PACKED_SYMBOL


def _cstring(module, text: str, name: str):
    """A private constant global holding ``text`` NUL-terminated (one per distinct text)."""
    key = f".str.{name}"
    data = bytearray(text.encode()) + b"\0"
    existing = module.globals.get(key)
    if existing is not None:
        return existing
    g = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name=key)
    g.linkage = "private"
    g.global_constant = True
    g.initializer = ir.Constant(g.value_type, data)
    return g


class PackedCallEmitter:
    """``tir.call_packed("name", *args)``: a call of a function registered with
    ``tepad.register_func`` (see ``tepad.runtime.registry`` for the calling convention)."""

    def call_packed(self, e):
        name = name_arg(e)
        desc, slots = [], []
        for a in e.args[1:]:
            if tir.is_call(a, "tir.tepad_array"):
                data, dtype, shape = a.args[0], a.args[1].value, a.args[2:]
                desc.append(f"b:{dtype}:{len(shape)}")
                slots.append(self.b.ptrtoint(self.expr(data), I64))
                slots += [self._as_i64(self.expr(d), d.dtype) for d in shape]
            elif a.dtype == "handle":
                desc.append("p")
                slots.append(self.b.ptrtoint(self.expr(a), I64))
            elif dt.is_float(a.dtype) and dt.lanes(a.dtype) == 1:
                desc.append("f")
                v = self.cast_to(self.expr(a), a.dtype, "float64")
                slots.append(self.b.bitcast(v, I64))
            elif (dt.is_int(a.dtype) or dt.is_bool(a.dtype)) and dt.lanes(a.dtype) == 1:
                desc.append("i")
                slots.append(self._as_i64(self.expr(a), a.dtype))
            else:
                raise TepadError(f"call_packed {name!r}: cannot pass {a!r} ({a.dtype}); pass "
                                 "buffers, pointers, integers or floats")
        desc_text = ",".join(desc)
        k = len(self.module.globals)
        g_name = _cstring(self.module, name, f"packed.{ident(name)}")
        g_desc = _cstring(self.module, desc_text, f"desc.{k}")
        arr = self.entry_alloca(ir.ArrayType(I64, max(1, len(slots))), name="packed.args")
        for j, v in enumerate(slots):
            p = self.b.gep(arr, [I32(0), I32(j)], inbounds=True,
                           source_etype=ir.ArrayType(I64, max(1, len(slots))))
            self.b.store(v, p)
        fn = self.declare(CALL_PACKED_SYMBOL, I32, [PTR, PTR, PTR])
        st = self.b.call(fn, [g_name, g_desc, arr])
        code = self.status_code(f"packed function {name!r} raised an error")
        fail = self.ctx.fn.append_basic_block("packed.fail")
        ok = self.ctx.fn.append_basic_block("packed.ok")
        self.b.cbranch(self.b.icmp_signed("!=", st, I32(0)), fail, ok)
        self.b.position_at_end(fail)
        self.emit_return_status(I32(code))
        self.b.position_at_end(ok)
        return ir.Constant(ll_type(e.dtype), 0)

    def _as_i64(self, v, dtype):
        if dt.is_bool(dtype) or dt.parse(dtype).is_uint:
            return self.b.zext(v, I64) if v.type.width < 64 else v
        return self.b.sext(v, I64) if v.type.width < 64 else v
