"""State shared by every part of the TIR -> LLVM emitter, and the helpers they all use.

The emitter is one object assembled from mixins, one per concern (``expressions``,
``memory``, ``intrinsics``, ``statements``, ``parallel``; ``llvm_ir.KernelEmitter`` puts them
together). Each mixin reaches the others only through ``self``: ``expr(e)``, ``stmt(s)``,
``cast_to``, ``emit_loop``, ``emit_parallel_for``, ``call_intrinsic``, ``guarded``,
``buffer_ptr``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import llvmlite.ir as ir

from .. import tir
from ..errors import TepadError
from .lltypes import I32, I64, PTR, VOID, type_suffix
from .symbols import ERROR_VALUE_SYMBOL


@dataclass
class FnCtx:
    """Per-LLVM-function emission state (swapped when outlining a parallel loop body)."""
    fn: ir.Function
    builder: ir.IRBuilder
    entry: ir.Block
    vars: dict = field(default_factory=dict)
    cleanups: list = field(default_factory=list)  # heap pointers live at this point
    in_parallel: bool = False
    mask: object = None  # vector i1 mask while emitting a lane-guarded if_then_else branch
    depth: int = 0       # loops enclosing the builder's position in this function


class EmitterBase:
    """The LLVM module being built, the current function's ``FnCtx``, and the status messages.

    ``messages[k - 1]`` is the text of status ``k`` that the kernel may return.
    """

    def __init__(self, func: tir.PrimFunc, name: str, num_threads: int, use_pool: bool):
        self.func = func
        self.name = name
        self.num_threads = num_threads
        self.use_pool = use_pool
        self.module = ir.Module(name=name)
        self.messages: list[str] = []
        self.n_parallel = 0
        self.ctx: FnCtx | None = None
        self.reduction_update = None
        self.statement_call = None  # the Call an Evaluate is emitting (its value unused)  # the Add/Mul node combining a reduction (see FLOAT_FLAGS)

    @property
    def b(self) -> ir.IRBuilder:
        return self.ctx.builder

    def declare(self, name, ret, args, var_arg=False) -> ir.Function:
        """The module's function ``name``, declared with this signature on first use (a
        TepadError when ``name`` is a function this module defines: the kernel was given the
        name of a function it calls)."""
        g = self.module.globals.get(name)
        if isinstance(g, ir.Function) and not g.is_declaration:
            raise TepadError(f"kernel {name!r} calls the C library or LLVM function {name!r}, "
                             "which its own name would hide; build it under another name "
                             "(tepad.build(..., name=...))")
        if g is None:
            g = ir.Function(self.module, ir.FunctionType(ret, args, var_arg=var_arg), name=name)
        return g

    def intrinsic(self, base: str, ret: ir.Type, args: list, overload: list) -> ir.Function:
        """Declaration of the LLVM intrinsic ``base`` overloaded on the types ``overload``."""
        name = base + "".join("." + type_suffix(t) for t in overload)
        return self.declare(name, ret, args)

    def error_value_global(self) -> ir.GlobalVariable:
        """The module's i64 ``tepad_error_value``, where a failed value-reporting check
        stores the value its message shows (read by ``JitModule.error_value``)."""
        g = self.module.globals.get(ERROR_VALUE_SYMBOL)
        if g is None:
            g = ir.GlobalVariable(self.module, I64, ERROR_VALUE_SYMBOL)
            g.initializer = I64(0)
        return g

    def status_code(self, message: str) -> int:
        """A new non-zero status the kernel returns to report ``message``."""
        self.messages.append(message)
        return len(self.messages)

    def new_ctx(self, fn: ir.Function, in_parallel: bool) -> FnCtx:
        """Fresh state for ``fn``: an ``entry`` block for allocas that branches to ``start``,
        where the builder is placed."""
        entry = fn.append_basic_block("entry")
        start = fn.append_basic_block("start")
        ir.IRBuilder(entry).branch(start)
        return FnCtx(fn, ir.IRBuilder(start), entry, in_parallel=in_parallel)

    def entry_alloca(self, typ, name="") -> ir.Instruction:
        """Alloca at the top of the current function's entry block (so LLVM can promote it)."""
        eb = ir.IRBuilder(self.ctx.entry)
        eb.position_before(self.ctx.entry.terminator)
        a = eb.alloca(typ, name=name)
        a.type = PTR  # llvmlite would print a typed pointer; we use opaque pointers throughout
        return a

    def emit_return_status(self, code: ir.Value):
        """Free every live heap buffer, then ``ret code`` (the block ends here)."""
        free = self.declare("free", VOID, [PTR])
        for p in reversed(self.ctx.cleanups):
            self.b.call(free, [p])
        self.b.ret(code)

    def emit_status_check(self, status: ir.Value, label: str):
        """A non-zero i32 ``status`` (of a call) returns from the current function after its
        cleanups (``emit_return_status``); the builder continues where it is zero."""
        fail_bb = self.ctx.fn.append_basic_block(f"{label}.fail")
        ok_bb = self.ctx.fn.append_basic_block(f"{label}.ok")
        self.b.cbranch(self.b.icmp_signed("!=", status, I32(0)), fail_bb, ok_bb)
        self.b.position_at_end(fail_bb)
        self.emit_return_status(status)
        self.b.position_at_end(ok_bb)

    def const_vec(self, t: ir.VectorType, values) -> ir.Constant:
        return ir.Constant(t, [ir.Constant(t.element, v) for v in values])

    def broadcast(self, v: ir.Value, lanes: int) -> ir.Value:
        """``v`` repeated in ``lanes`` lanes (a constant vector when ``v`` is constant)."""
        if isinstance(v, ir.Constant) and not isinstance(v.type, ir.VectorType):
            return ir.Constant(ir.VectorType(v.type, lanes), [v] * lanes)
        vt = ir.VectorType(v.type, lanes)
        x = self.b.insert_element(ir.Constant(vt, ir.Undefined), v, I32(0))
        return self.b.shuffle_vector(x, ir.Constant(vt, ir.Undefined),
                                     ir.Constant(ir.VectorType(I32, lanes), [I32(0)] * lanes))
