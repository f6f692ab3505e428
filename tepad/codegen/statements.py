"""Control flow: statement dispatch, sequences, lets, asserts, ifs and serial loops."""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import ERROR_VALUE_OP, InternalError
from .. import tir
from ..tir.stmt import ForKind
from .lltypes import I32, ident, is_unsigned


class StatementEmitter:
    """``stmt(s)``: emit a TIR statement at the builder, dispatched on ``stmt_<NodeType>``.

    Nothing is emitted after a block's terminator (code after a failed-assert return is
    dead). ``For`` loops marked parallel go to ``emit_parallel_for`` when the pool is used
    and no parallel region encloses them; deep serial loops may be outlined
    (``should_outline``, ``outline_nest``: see ``tepad.codegen.outline``; an emitter without
    that mixin never outlines).
    """

    def should_outline(self, s) -> bool:
        return False

    def stmt(self, s):
        meth = getattr(self, "stmt_" + type(s).__name__, None)
        if meth is None:
            raise InternalError(f"codegen: unsupported statement {type(s).__name__}:\n{s}")
        if self.b.block.is_terminated:
            return
        meth(s)

    def stmt_SeqStmt(self, s):
        for x in s.seq:
            self.stmt(x)

    def stmt_AttrStmt(self, s):
        self.stmt(s.body)

    def stmt_LetStmt(self, s):
        self.ctx.vars[s.var] = self.expr(s.value)
        self.stmt(s.body)

    def stmt_Evaluate(self, s):
        v = s.value
        if isinstance(v, (tir.ConstExpr, tir.StringImm)) or tir.is_call(v, "tir.assume"):
            return
        self.statement_call = v      # its value is unused: a handle call may return void
        self.expr(v)
        self.statement_call = None

    def stmt_AssertStmt(self, s):
        value = None
        if tir.is_call(s.message, ERROR_VALUE_OP):   # text with VALUE_MARK, and the value
            text, value = s.message.args
            msg = text.value
        else:
            msg = s.message.value if isinstance(s.message, tir.StringImm) else str(s.message)
        code = self.status_code(msg)
        cond = self.expr(s.condition)
        lanes = cond
        if isinstance(cond.type, ir.VectorType):      # holds when every lane holds
            fn = self.intrinsic("llvm.vector.reduce.and", ir.IntType(1), [cond.type],
                                [cond.type])
            cond = self.b.call(fn, [lanes])
        ok = self.ctx.fn.append_basic_block("assert.ok")
        fail = self.ctx.fn.append_basic_block("assert.fail")
        self.b.cbranch(cond, ok, fail)
        self.b.position_at_end(fail)
        if value is not None:
            v = self.expr(value)
            if isinstance(v.type, ir.VectorType):     # the first lane whose condition failed
                n = v.type.count
                bad = self.b.bitcast(self.b.not_(lanes), ir.IntType(n)) \
                    if isinstance(lanes.type, ir.VectorType) else ir.Constant(ir.IntType(n), 1)
                cttz = self.intrinsic("llvm.cttz", ir.IntType(n), [ir.IntType(n), ir.IntType(1)],
                                      [ir.IntType(n)])
                k = self.b.call(cttz, [bad, ir.Constant(ir.IntType(1), 1)])
                v = self.b.extract_element(v, self.b.trunc(k, I32) if n > 32 else
                                           (self.b.zext(k, I32) if n < 32 else k))
            v = self.cast_to(v, tir.dtype.element_of(value.dtype), "int64")
            # (IRBuilder.store_atomic insists on typed pointers; build the instruction directly)
            self.b._insert(ir.instructions.StoreAtomicInstr(
                self.b.block, v, self.error_value_global(), "monotonic", 8))
        self.emit_return_status(I32(code))
        self.b.position_at_end(ok)
        self.stmt(s.body)

    def stmt_IfThenElse(self, s):
        cond = self.expr(s.condition)
        if isinstance(cond.type, ir.VectorType):
            self.masked_if(s, cond)
            return
        fn = self.ctx.fn
        then_bb = fn.append_basic_block("if.then")
        end_bb = fn.append_basic_block("if.end")
        else_bb = fn.append_basic_block("if.else") if s.else_case is not None else end_bb
        self.b.cbranch(cond, then_bb, else_bb)
        self.b.position_at_end(then_bb)
        self.stmt(s.then_case)
        if not self.b.block.is_terminated:
            self.b.branch(end_bb)
        if s.else_case is not None:
            self.b.position_at_end(else_bb)
            self.stmt(s.else_case)
            if not self.b.block.is_terminated:
                self.b.branch(end_bb)
        self.b.position_at_end(end_bb)

    def stmt_While(self, s):
        """``while cond: body``: the condition is evaluated in the loop header each time."""
        fn = self.ctx.fn
        header = fn.append_basic_block("while.cond")
        body_bb = fn.append_basic_block("while.body")
        exit_bb = fn.append_basic_block("while.end")
        self.b.branch(header)
        self.b.position_at_end(header)
        self.b.cbranch(self.expr(s.condition), body_bb, exit_bb)
        self.b.position_at_end(body_bb)
        self.stmt(s.body)
        if not self.b.block.is_terminated:
            self.b.branch(header)
        self.b.position_at_end(exit_bb)

    def masked_if(self, s, cond):
        """An ``if`` with a lane-mask condition (a vectorized loop's guard): each branch runs
        under its lanes (``ctx.mask``; loads and stores are masked, see ``MemoryEmitter``),
        and is skipped when none of its lanes is set."""
        outer = self.ctx.mask
        for case, m in ((s.then_case, cond), (s.else_case, self.b.not_(cond))):
            if case is None:
                continue
            if outer is not None:
                m = self.b.and_(m, outer)
            fn = self.ctx.fn
            run_bb = fn.append_basic_block("mask.then")
            end_bb = fn.append_basic_block("mask.end")
            self.b.cbranch(self.any_lane(m), run_bb, end_bb)
            self.b.position_at_end(run_bb)
            self.ctx.mask = m
            self.stmt(case)
            self.ctx.mask = outer
            if not self.b.block.is_terminated:
                self.b.branch(end_bb)
            self.b.position_at_end(end_bb)

    def stmt_For(self, s):
        if s.kind == ForKind.PARALLEL and not self.ctx.in_parallel and self.use_pool:
            self.emit_parallel_for(s)
            return
        if self.should_outline(s):
            self.outline_nest(s)
            return
        lo = self.cast_to(self.expr(s.min), s.min.dtype, s.loop_var.dtype)
        ext = self.cast_to(self.expr(s.extent), s.extent.dtype, s.loop_var.dtype)
        hi = self.b.add(lo, ext, flags=("nsw",))
        self.emit_loop(s.loop_var, lo, hi, s.body)

    def emit_loop(self, var, lo, hi, body):
        """``for var in [lo, hi): body`` as a guarded loop LLVM can rotate and vectorize."""
        fn = self.ctx.fn
        pre = self.b.block
        header = fn.append_basic_block(f"for.{ident(var.name)}")
        body_bb = fn.append_basic_block(f"for.{ident(var.name)}.body")
        exit_bb = fn.append_basic_block(f"for.{ident(var.name)}.end")
        self.b.branch(header)
        self.b.position_at_end(header)
        i = self.b.phi(lo.type, name=ident(var.name))
        i.add_incoming(lo, pre)
        cond = (self.b.icmp_unsigned if is_unsigned(var.dtype) else self.b.icmp_signed)("<", i, hi)
        self.b.cbranch(cond, body_bb, exit_bb)
        self.b.position_at_end(body_bb)
        self.ctx.vars[var] = i
        self.ctx.depth += 1
        self.stmt(body)
        self.ctx.depth -= 1
        if not self.b.block.is_terminated:
            nxt = self.b.add(i, ir.Constant(lo.type, 1), flags=("nsw",))
            i.add_incoming(nxt, self.b.block)
            self.b.branch(header)
        self.b.position_at_end(exit_bb)
