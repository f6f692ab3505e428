"""Calls: TIR builtins (``if_then_else``, ``likely``, ``undef``, ``assume``, ``prefetch``,
``address_of``, ``atomic_add``), math functions (LLVM intrinsics, or libm's), C functions
(``call_extern``) and LLVM intrinsics by name (``call_llvm_intrin``); ``call_packed`` is in
``packed``."""
from __future__ import annotations

import functools
import re

import llvmlite.ir as ir

from .._lazy import lazy_module
from ..errors import TepadError
from ..tir import dtype as dt
from ..target.codegen import llvm_get_intrinsic_name
from ..tir.op_more import LIBM_BINARY, LIBM_UNARY
from .. import tir
from .lltypes import I1, I32, PTR, VOID, ll_type, type_suffix

llvm = lazy_module("llvmlite.binding")
ctypes_util = lazy_module("ctypes.util")   # finds libm at the first libm call

# tir math call -> LLVM intrinsic base name (".f32"/".v8f32" suffix added per type).
MATH_INTRINSICS = {
    "tir.exp": "llvm.exp", "tir.log": "llvm.log", "tir.sqrt": "llvm.sqrt",
    "tir.fabs": "llvm.fabs", "tir.floor": "llvm.floor", "tir.ceil": "llvm.ceil",
    "tir.pow": "llvm.pow", "tir.round": "llvm.nearbyint", "tir.sin": "llvm.sin",
    "tir.cos": "llvm.cos", "tir.exp2": "llvm.exp2", "tir.log2": "llvm.log2",
    "tir.trunc": "llvm.trunc", "tir.tanh": "llvm.tanh", "tir.log10": "llvm.log10",
    "tir.popcount": "llvm.ctpop",
    "tir.nearbyint": "llvm.nearbyint", "tir.copysign": "llvm.copysign",
}

# tir math calls with no LLVM intrinsic: the C library's function (``erff`` for float32)
LIBM = {"tir.erf": "erf", "tir.log1p": "log1p", "tir.tan": "tan", "tir.atan": "atan",
        **LIBM_UNARY}


@functools.cache
def _load_libm():
    """Make the C math library's symbols visible to the JIT (once per process)."""
    path = ctypes_util.find_library("m")
    if path is None:
        raise TepadError("the C math library (libm) was not found; erf/log1p/tan/atan need it")
    llvm.load_library_permanently(path)


# TIR calls of C functions, LLVM intrinsics and builtins -> the emitter method emitting them
_CALLS = {"tir.call_extern": "call_extern", "tir.call_pure_extern": "call_extern",
          "tir.call_llvm_intrin": "call_llvm_intrin",
          "tir.call_llvm_pure_intrin": "call_llvm_intrin",
          "tir.prefetch": "prefetch", "tir.address_of": "address_of",
          "tir.tvm_access_ptr": "access_ptr", "tir.tvm_static_handle": "static_handle",
          "tir.isnullptr": "isnullptr",
          "tir.atomic_add": "atomic_add", "tir.tvm_call_packed": "call_packed",
          "tir.tvm_call_cpacked": "call_packed"}


# integer bit operations -> the llvmlite builder method (shift_right: arithmetic for signed
# types, logical for unsigned ones)
_BITWISE = {"tir.bitwise_and": "and_", "tir.bitwise_or": "or_", "tir.bitwise_xor": "xor",
            "tir.bitwise_not": "not_", "tir.shift_left": "shl", "tir.shift_right": "ashr"}

# float operations written as LLVM instructions -> the emitter method
_FLOAT_OPS = {"tir.rsqrt": "rsqrt", "tir.fmod": "fmod", "tir.isnan": "isnan",
              "tir.isinf": "isinf", "tir.isfinite": "isfinite"}

_TYPE_SUFFIX = re.compile(r"^(v\d+)?([if]\d+|p\d+|bf16)$")


def _fconst(t, value):
    """The float constant ``value`` of type ``t`` (every lane when ``t`` is a vector)."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


# calls without side effects: their value may be reused where the same node recurs
PURE_CALLS = frozenset({"tir.if_then_else", "tir.likely", "tir.sigmoid", "tir.reinterpret",
                        "tir.clz", *MATH_INTRINSICS, *LIBM, *LIBM_BINARY, *_BITWISE,
                        *_FLOAT_OPS})


class CallEmitter:
    """``expr_Call`` and the intrinsic helpers built on ``EmitterBase.intrinsic``."""

    def call_is_pure(self, e) -> bool:
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        return op in PURE_CALLS

    def expr_Call(self, e):
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        if op not in PURE_CALLS and self.expr_memo is not None:
            self.expr_memo.forget()     # a side effect may follow: reuse nothing from before
        if op == "tir.if_then_else":
            return self.if_then_else(e)
        if op == "tir.likely":
            return self.expr(e.args[0])
        if op == "tir.undef":
            return ir.Constant(ll_type(e.dtype), None)
        if op == "tir.assume":
            return ir.Constant(I1, 1)
        if op == "tir.sigmoid":
            x = self.expr(e.args[0])
            one = _fconst(x.type, 1.0)
            ex = self.call_intrinsic("llvm.exp", [self.b.fneg(x)])
            return self.b.fdiv(one, self.b.fadd(one, ex))
        handler = _CALLS.get(op)
        if handler is not None:
            return getattr(self, handler)(e)
        if op in _BITWISE:
            args = [self.expr(a) for a in e.args]
            if op == "tir.bitwise_not":
                return self.b.not_(args[0])
            name = _BITWISE[op]
            if op == "tir.shift_right" and dt.parse(e.dtype).is_uint:
                name = "lshr"
            return getattr(self.b, name)(*args)
        if op in LIBM:
            return self.call_libm(LIBM[op], self.expr(e.args[0]))
        if op in LIBM_BINARY:
            return self.call_libm(LIBM_BINARY[op], *[self.expr(a) for a in e.args])
        if op == "tir.clz":
            x = self.expr(e.args[0])
            fn = self.intrinsic("llvm.ctlz", x.type, [x.type, I1], [x.type])
            return self.b.call(fn, [x, ir.Constant(I1, 0)])
        if op == "tir.reinterpret":
            return self.b.bitcast(self.expr(e.args[0]), ll_type(e.dtype))
        if op in _FLOAT_OPS:
            return getattr(self, _FLOAT_OPS[op])(*[self.expr(a) for a in e.args])
        base = MATH_INTRINSICS.get(op)
        if base is None and op == "tir.vscale":
            raise TepadError("codegen: tir.vscale() (a scalable-vector length) reaches the "
                             "kernel, but tepad's targets have fixed-width vectors; use a "
                             "constant split factor or vector width")
        if base is None:
            raise TepadError(f"codegen: the intrinsic {e.op!r} (in {e!r}) has no code of its "
                             "own and no lowering rule for this target; register one with "
                             "tvm.ir.register_intrin_lowering(op_name, target=kind, f=rule)")
        return self.call_intrinsic(base, [self.expr(a) for a in e.args])

    def call_libm(self, name, x, *more):
        """The C library's ``name`` (``namef`` for float32) of ``x`` (and the further
        arguments ``more``, of ``x``'s type), lane by lane for a vector."""
        elem = x.type.element if isinstance(x.type, ir.VectorType) else x.type
        fname = name + ("f" if isinstance(elem, ir.FloatType) else "")
        _load_libm()
        args = (x, *more)
        fn = self.declare(fname, elem, [elem] * len(args))
        if not isinstance(x.type, ir.VectorType):
            return self.b.call(fn, list(args))
        out = ir.Constant(x.type, ir.Undefined)
        for k in range(x.type.count):
            lane = self.b.call(fn, [self.b.extract_element(a, ir.Constant(I32, k))
                                    for a in args])
            out = self.b.insert_element(out, lane, ir.Constant(I32, k))
        return out

    def rsqrt(self, x):
        return self.b.fdiv(_fconst(x.type, 1.0), self.call_intrinsic("llvm.sqrt", [x]))

    def fmod(self, x, y):
        return self.b.frem(x, y)

    def isnan(self, x):
        return self.b.fcmp_unordered("uno", x, x)

    def isinf(self, x):
        return self.b.fcmp_ordered("==", self.call_intrinsic("llvm.fabs", [x]),
                                   _fconst(x.type, float("inf")))

    def isfinite(self, x):
        return self.b.fcmp_ordered("<", self.call_intrinsic("llvm.fabs", [x]),
                                   _fconst(x.type, float("inf")))

    def call_intrinsic(self, base, args):
        """Call the intrinsic ``base`` overloaded on, and returning, the first argument's type."""
        t = args[0].type
        return self.b.call(self.intrinsic(base, t, [a.type for a in args], [t]), args)

    def if_then_else(self, e):
        """``if_then_else(c, t, f)`` evaluating only the side taken: branches and a phi for a
        scalar condition; for a vector condition both sides under complementary lane masks
        (so their loads touch only their lanes), then a select."""
        cond_e, t_e, f_e = e.args
        cond = self.expr(cond_e)
        if isinstance(cond.type, ir.VectorType):
            outer = self.ctx.mask
            m_t = cond if outer is None else self.b.and_(cond, outer)
            m_f = self.b.not_(cond) if outer is None else self.b.and_(self.b.not_(cond), outer)
            try:
                self.ctx.mask = m_t
                with self.expr_scope():
                    t = self.expr(t_e)
                self.ctx.mask = m_f
                with self.expr_scope():
                    f = self.expr(f_e)
            finally:
                self.ctx.mask = outer
            if not isinstance(t.type, ir.VectorType):
                t = self.broadcast(t, cond.type.count)
            if not isinstance(f.type, ir.VectorType):
                f = self.broadcast(f, cond.type.count)
            return self.b.select(cond, t, f)
        fn = self.ctx.fn
        then_bb = fn.append_basic_block("ite.then")
        else_bb = fn.append_basic_block("ite.else")
        end_bb = fn.append_basic_block("ite.end")
        self.b.cbranch(cond, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        with self.expr_scope():
            t = self.expr(t_e)
        t_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(else_bb)
        with self.expr_scope():
            f = self.expr(f_e)
        f_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)
        phi = self.b.phi(t.type)
        phi.add_incoming(t, t_end)
        phi.add_incoming(f, f_end)
        return phi

    # ------------------------------------------------------------------ C functions, LLVM intrinsics
    def _declared(self, name, ret, args, what):
        """The module's declaration of ``name`` with this signature (a TepadError when an
        earlier call declared it with another one)."""
        g = self.module.globals.get(name)
        ftype = ir.FunctionType(ret, args)
        if g is not None and g.function_type != ftype:
            raise TepadError(f"{what} {name!r} is called with two signatures: "
                             f"{g.function_type} and {ftype}")
        return self.declare(name, ret, args)

    def _ret_type(self, e):
        """LLVM type a call returns: ``void`` for a ``handle`` call used as a statement."""
        if e.dtype == "handle" and e is self.statement_call:
            return VOID
        return ll_type(e.dtype)

    def call_extern(self, e):
        """``tir.call_extern(dtype, "f", *args)``: declare the C function ``f`` with the
        argument types of the values passed and call it (resolved when the kernel loads)."""
        name = name_arg(e)
        vals = [self.expr(a) for a in e.args[1:]]
        fn = self._declared(name, self._ret_type(e), [v.type for v in vals], "extern function")
        r = self.b.call(fn, vals)
        return ir.Constant(I32, 0) if isinstance(r.type, ir.VoidType) else r

    def call_llvm_intrin(self, e):
        """``tir.call_llvm_intrin(dtype, name_or_id, num_signature, *args)``: a call of an LLVM
        intrinsic. A name without a type suffix is mangled with the return type (the first
        argument's for a void intrinsic) when ``num_signature`` > 0."""
        first = e.args[0]
        name = first.value if isinstance(first, tir.StringImm) else \
            llvm_get_intrinsic_name(int(first.value))
        if len(e.args) < 2 or not isinstance(e.args[1], tir.IntImm):
            raise TepadError(f"{e.op}({name!r}, ...): the first argument after the name must be "
                             "the number of overloaded signature types (an integer constant)")
        nsig = int(e.args[1].value)
        vals = [self.expr(a) for a in e.args[2:]]
        ret = self._ret_type(e)
        last = name.rsplit(".", 1)[-1]
        if nsig > 0 and not _TYPE_SUFFIX.match(last):
            over = ret if not isinstance(ret, ir.VoidType) else (vals[0].type if vals else None)
            if over is not None:
                name = f"{name}.{type_suffix(over)}"
        fn = self._declared(name, ret, [v.type for v in vals], "LLVM intrinsic")
        r = self.b.call(fn, vals)
        return ir.Constant(I32, 0) if isinstance(r.type, ir.VoidType) else r

    def address_of(self, e):
        """``tir.address_of(buffer[index])``: the address of that element."""
        load = e.args[0]
        if not isinstance(load, tir.BufferLoad) or len(load.indices) != 1:
            raise TepadError(f"tir.address_of takes one flat buffer element, got {load!r}")
        elem_t = ll_type(load.buffer.dtype, memory=True)
        return self.b.gep(self.buffer_ptr(load.buffer), [self.expr(load.indices[0])],
                          inbounds=True, source_etype=elem_t)

    def access_ptr(self, e):
        """``tir.tvm_access_ptr(type_annotation(dtype), data, offset, extent, mask)``: the
        address of element ``offset`` (in units of ``dtype``) of the buffer ``data`` points
        to, as an extern function receives a tensorized region."""
        if len(e.args) != 5:
            raise TepadError(f"tir.tvm_access_ptr takes (type_annotation, data, offset, extent, "
                             f"rw_mask), got {len(e.args)} arguments: {e!r}")
        ptype, data, offset = e.args[:3]
        base = self.expr(data)
        if not isinstance(base.type, ir.PointerType):
            raise TepadError(f"tir.tvm_access_ptr: its data argument must be a buffer's data "
                             f"pointer, got {data!r}")
        elem_t = ll_type(ptype.dtype, memory=True)
        return self.b.gep(base, [self.expr(offset)], inbounds=True, source_etype=elem_t)

    def static_handle(self, e):
        """``tir.tvm_static_handle()``: the address of a pointer-sized slot of this call site,
        null when the module loads and kept across calls (TVM's per-call-site cache handle,
        e.g. for ``tvm_call_packed``)."""
        g = ir.GlobalVariable(self.module, PTR, self.module.get_unique_name("static_handle"))
        g.linkage = "internal"
        g.initializer = ir.Constant(PTR, None)
        return g

    def isnullptr(self, e):
        """``tir.isnullptr(handle)``: whether the pointer is null."""
        p = self.expr(e.args[0])
        if not isinstance(p.type, ir.PointerType):
            raise TepadError(f"tir.isnullptr takes a handle, got {e.args[0]!r}")
        return self.b.icmp_unsigned("==", p, ir.Constant(p.type, None))

    def prefetch(self, e):
        """``tir.prefetch(address, rw, locality, cache_type)``: ``llvm.prefetch`` (value 0)."""
        addr = self.expr(e.args[0])
        rest = [self.cast_to(self.expr(a), a.dtype, "int32") for a in e.args[1:4]]
        fn = self.declare("llvm.prefetch.p0", VOID, [PTR, I32, I32, I32])
        self.b.call(fn, [addr] + rest)
        return ir.Constant(ll_type(e.dtype), 0)

    def atomic_add(self, e):
        """``tir.atomic_add(address, value)``: add ``value`` at ``address`` atomically; the
        value there before."""
        addr, val = self.expr(e.args[0]), self.expr(e.args[1])
        op = "fadd" if dt.is_float(e.args[1].dtype) else "add"
        return self.b.atomic_rmw(op, addr, val, "seq_cst")


def name_arg(e) -> str:
    """The function name a call_extern / call_packed carries as its first argument."""
    first = e.args[0] if e.args else None
    if not isinstance(first, tir.StringImm):
        raise TepadError(f"{e.op}: the first argument must be the function name, got {first!r}")
    return first.value
