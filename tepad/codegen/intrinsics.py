"""Calls: TIR builtins (``if_then_else``, ``likely``, ``undef``, ``assume``) and math
functions, which become LLVM intrinsics."""
from __future__ import annotations

import llvmlite.ir as ir

from .. import tir
from ..errors import InternalError
from .lltypes import I1, I32, PTR, ll_type

# tir math call -> LLVM intrinsic base name (".f32"/".v8f32" suffix added per type).
MATH_INTRINSICS = {
    "tir.exp": "llvm.exp", "tir.log": "llvm.log", "tir.sqrt": "llvm.sqrt",
    "tir.fabs": "llvm.fabs", "tir.floor": "llvm.floor", "tir.ceil": "llvm.ceil",
    "tir.pow": "llvm.pow", "tir.round": "llvm.nearbyint", "tir.sin": "llvm.sin",
    "tir.cos": "llvm.cos", "tir.exp2": "llvm.exp2", "tir.log2": "llvm.log2",
    "tir.trunc": "llvm.trunc", "tir.tanh": "llvm.tanh",
}


def _fconst(t, value):
    """The float constant ``value`` of type ``t`` (every lane when ``t`` is a vector)."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [ir.Constant(t.element, value)] * t.count)
    return ir.Constant(t, value)


class CallEmitter:
    """``expr_Call`` and the intrinsic helpers built on ``EmitterBase.intrinsic``."""

    def expr_Call(self, e):
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        if op == "tir.if_then_else":
            return self.if_then_else(e)
        if op == "tir.likely":
            return self.expr(e.args[0])
        if op == "tir.undef":
            return ir.Constant(ll_type(e.dtype), None)
        if op == "tir.assume":
            return ir.Constant(I1, 1)
        if op == "tir.address_of":
            return self.address_of(e.args[0])
        if op == "tir.prefetch":
            # llvm.prefetch(ptr, rw, locality, cache type): a hint; never faults
            ptr = self.expr(e.args[0])
            fn = self.intrinsic("llvm.prefetch", ir.VoidType(), [PTR, I32, I32, I32], [PTR])
            self.b.call(fn, [ptr] + [I32(int(a.value)) for a in e.args[1:4]])
            return I32(0)
        if op == "tir.sigmoid":
            x = self.expr(e.args[0])
            one = _fconst(x.type, 1.0)
            ex = self.call_intrinsic("llvm.exp", [self.b.fneg(x)])
            return self.b.fdiv(one, self.b.fadd(one, ex))
        base = MATH_INTRINSICS.get(op)
        if base is None:
            raise InternalError(f"codegen: unknown call {e.op!r} in {e!r}")
        return self.call_intrinsic(base, [self.expr(a) for a in e.args])

    def address_of(self, load):
        """The address of a scalar ``BufferLoad``'s element (``tir.address_of``)."""
        if not isinstance(load, tir.BufferLoad) or len(load.indices) != 1:
            raise InternalError(f"codegen: tir.address_of needs a flat BufferLoad, got {load!r}")
        elem_t = ll_type(load.buffer.dtype, memory=True)
        return self.b.gep(self.buffer_ptr(load.buffer), [self.expr(load.indices[0])],
                          source_etype=elem_t)

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
            self.ctx.mask = m_t
            t = self.expr(t_e)
            self.ctx.mask = m_f
            f = self.expr(f_e)
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
        t = self.expr(t_e)
        t_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(else_bb)
        f = self.expr(f_e)
        f_end = self.b.block
        self.b.branch(end_bb)
        self.b.position_at_end(end_bb)
        phi = self.b.phi(t.type)
        phi.add_incoming(t, t_end)
        phi.add_incoming(f, f_end)
        return phi
